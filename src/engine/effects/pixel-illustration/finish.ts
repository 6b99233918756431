import type { HostedFinish } from "../../shared/effect-module";
import { limitColours } from "../../shared/hosted-finish";

/** Retro pixel art on a generative backend too: a small flat palette, no dithering. */
export const finish: HostedFinish = (output) => limitColours(output, 32);
