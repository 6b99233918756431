import type { EngineImage } from "./renderer";

/**
 * An effect's input rules beyond the catalogue's (a face found, facing the camera...),
 * checked on the images themselves before any credit is charged. The engine implements
 * it (in its worker threads); `check` rejects with an {@link InputRefusal}. The rules are
 * those of the engine planned to render the effect (ADR 008): all of them for the local
 * engine, only those every engine obeys (consent, minors, a face...) for a hosted one.
 */
export interface InputRules {
  /** Whether the effect has such rules (others skip reading their images). */
  appliesTo(effectId: string): boolean;
  check(request: {
    effectId: string;
    images: EngineImage[];
    options: Record<string, unknown>;
    prompt: string;
  }): Promise<void>;
}

/** What InputRules.check rejects with: the user's reason and its message code. */
export class InputRefusal extends Error {
  constructor(
    readonly reason: string,
    readonly code: string,
  ) {
    super(reason);
    this.name = "InputRefusal";
  }
}
