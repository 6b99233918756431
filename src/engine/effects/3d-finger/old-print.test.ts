import { describe, expect, it } from "vitest";
import { decodePortrait } from "../../shared/face-rules";
import { photo } from "../../shared/test-utils";
import { fillTear, isPrint, stretchTones } from "./old-print";

const luma = (d: Buffer, i: number) => 0.299 * d[i * 3]! + 0.587 * d[i * 3 + 1]! + 0.114 * d[i * 3 + 2]!;

describe("3d-finger old prints", () => {
  it("readies a torn, faded print to be sculpted: the tear painted over, the tones stretched", async () => {
    const src = await decodePortrait(await photo("old-torn-1-sepia-three-children.jpg"), 1000);
    expect(isPrint(src)).toBe(true);
    // The torn-off top right corner (bare paper) takes the print's tone.
    const corner = src.width - 5 + 5 * src.width;
    expect(luma(src.data, corner)).toBeGreaterThan(215);
    expect(fillTear(src)).toBeGreaterThan(src.width * src.height * 0.01);
    expect(luma(src.data, corner)).toBeLessThan(200);
    // Faded: the people's tones are spread out (a gain above 1), the hue kept.
    const all = new Uint8Array(src.width * src.height).fill(255);
    expect(stretchTones(src.data, all, src.width * src.height)).toBeGreaterThan(1.1);
  }, 60_000);

  it("leaves a colour photo alone", async () => {
    const src = await decodePortrait(await photo("portrait-female-1.jpg", 500));
    expect(isPrint(src)).toBe(false);
  }, 60_000);
});
