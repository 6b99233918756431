import type { HostedFinish } from "../../shared/effect-module";
import { onPage } from "../../shared/hosted-finish";
import { PAGE } from "./render";

/** The printable US Letter page (150 dpi) whatever made the drawing. */
export const finish: HostedFinish = (output) => onPage(output, PAGE.width, PAGE.height);
