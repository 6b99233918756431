import type { HostedFinish } from "../../shared/effect-module";
import { limitColours } from "../../shared/hosted-finish";
import { COLOURS } from "./render";

/** A generative backend's sprite keeps the page's promise of at most 16 colours. */
export const finish: HostedFinish = (output) => limitColours(output, COLOURS);
