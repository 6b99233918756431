import { isEffectEnabled } from "@/core/ports/settings";
import { pageServices } from "@/ui/share/page-services";

/**
 * Whether an operator switched the effect off in the admin console (runtime settings, the
 * same cached snapshot submit reads). Outside the running server (a build), effects are on.
 */
export function effectSwitchedOff(effectId: string): boolean {
  try {
    return !isEffectEnabled(pageServices().settings.current(), effectId);
  } catch {
    return false;
  }
}
