import type { HostedFinish } from "../../shared/effect-module";
import { looksLikeGrid, unusableOutput } from "../../shared/hosted-finish";

/** The page promises nine hairstyles in a 3 x 3 grid: an image without that layout is refunded. */
export const finish: HostedFinish = async (output) => {
  if (await looksLikeGrid(output.bytes, 3)) return output;
  throw unusableOutput(
    "The image service did not return the 3 x 3 grid of nine hairstyles this effect promises.",
  );
};
