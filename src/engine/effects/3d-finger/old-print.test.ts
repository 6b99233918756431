import { describe, expect, it } from "vitest";
import { decodePortrait } from "../../shared/face-rules";
import { photo } from "../../shared/test-utils";
import { detectFaces } from "../../vision/human";
import { fillTear, isPrint, repairDamage, stretchTones } from "./old-print";

const luma = (d: Buffer, i: number) => 0.299 * d[i * 3]! + 0.587 * d[i * 3 + 1]! + 0.114 * d[i * 3 + 2]!;

describe("3d-finger old prints", () => {
  it("repairs a torn, scratched, faded print before it is sculpted: damage filled, the tear painted over, the tones stretched", async () => {
    const src = await decodePortrait(await photo("old-torn-1-sepia-three-children.jpg"), 1000);
    expect(isPrint(src)).toBe(true);
    const { faces } = await detectFaces(src);
    const repaired = await repairDamage(src, faces);
    expect(repaired).not.toBeNull();
    // The crease across the print (a bright line at about 71 % of the height) is filled.
    const row = Math.round(src.height * 0.705);
    let bright = 0;
    let brightAfter = 0;
    for (let x = 0; x < src.width; x++)
      for (let y = row - 3; y <= row + 3; y++) {
        const i = y * src.width + x;
        bright = Math.max(bright, luma(src.data, i) - luma(src.data, i - 10 * src.width));
        brightAfter = Math.max(
          brightAfter,
          luma(repaired!.data, i) - luma(repaired!.data, i - 10 * src.width),
        );
      }
    expect(brightAfter).toBeLessThan(bright);
    // The torn-off top right corner (bare paper) takes the print's tone.
    const corner = src.width - 5 + 5 * src.width;
    expect(luma(repaired!.data, corner)).toBeGreaterThan(215);
    expect(fillTear(repaired!)).toBeGreaterThan(src.width * src.height * 0.01);
    expect(luma(repaired!.data, corner)).toBeLessThan(200);
    // Faded: the people's tones are spread out (a gain above 1), the hue kept.
    const all = new Uint8Array(src.width * src.height).fill(255);
    expect(stretchTones(repaired!.data, all, src.width * src.height)).toBeGreaterThan(1.1);
  }, 60_000);

  it("leaves a colour photo alone", async () => {
    const src = await decodePortrait(await photo("portrait-female-1.jpg", 500));
    expect(isPrint(src)).toBe(false);
  }, 60_000);
});
