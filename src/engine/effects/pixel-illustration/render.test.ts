import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { oklab } from "../../shared/pixel-art";
import { correlation, distinctColors, grayAt, photo, raw, request, type Raw } from "../../shared/test-utils";
import { detectFaces } from "../../vision/human";
import { render } from "./render";

/** The cell size: the greatest common divisor of every run of equal pixels along rows. */
function cellSize(img: Raw): number {
  const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
  let cell = 0;
  for (let y = 0; y < img.height; y += 7) {
    let run = 1;
    for (let x = 1; x <= img.width; x++) {
      const p = (y * img.width + x) * 3;
      const same = x < img.width && img.data.compare(img.data, p, p + 3, p - 3, p) === 0;
      if (same) run++;
      else {
        cell = gcd(cell, run);
        run = 1;
      }
    }
  }
  return cell;
}

describe("pixel-illustration", () => {
  it("is 8-bit pixel art: at most 32 colours on an even, visible grid, and the subject stays recognisable", async () => {
    const input = await photo("portrait-female-1.jpg", 600);
    const out = await render(request("pixel-illustration", input));
    const img = await raw(out.bytes);
    expect(distinctColors(img)).toBeLessThanOrEqual(32);
    expect(Math.max(img.width, img.height)).toBeLessThanOrEqual(2048);

    const cell = cellSize(img);
    expect(cell).toBeGreaterThanOrEqual(4); // visible pixels, not a photo
    for (let y = 0; y + cell <= img.height; y += cell) {
      for (let x = 0; x + cell <= img.width; x += cell) {
        const o = (y * img.width + x) * 3;
        for (let dy = 0; dy < cell; dy++)
          for (let dx = 0; dx < cell; dx++) {
            const p = ((y + dy) * img.width + x + dx) * 3;
            if (img.data.compare(img.data, p, p + 3, o, o + 3) !== 0)
              throw new Error(`cell at ${x},${y} is not uniform`);
          }
      }
    }
    expect(correlation(await grayAt(input, 48, 48), await grayAt(out.bytes, 48, 48))).toBeGreaterThan(0.6);
  });

  it("gives the same bytes for the same input and seed", async () => {
    const input = await photo("pet-1-cat.png");
    const a = await render(request("pixel-illustration", input));
    const b = await render(request("pixel-illustration", input));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
  });

  it("draws a waist-up portrait's face with room for it and dark eyes where the face mesh puts them", async () => {
    // The astronaut portrait mirrored (not the fixture as it is): her face spans a sixth of the
    // width, about 11 cells of a plain 64-cell grid, where the eyes used to melt into the skin.
    const input = await sharp(await photo("portrait-female-3-nasa.png"))
      .flop()
      .png()
      .toBuffer();
    const face = (await detectFaces(new Uint8Array(input))).faces[0]!;
    const inMeta = await sharp(input).metadata();
    const out = await render(request("pixel-illustration", input));
    const img = await raw(out.bytes);
    expect(distinctColors(img)).toBeLessThanOrEqual(32);
    const sx = img.width / inMeta.width!;
    const sy = img.height / inMeta.height!;
    const cell = cellSize(img);
    // The face gets enough art pixels for its features: at least 18 cells cheek to cheek.
    const cheeks = Math.hypot(
      face.mesh[454]![0] - face.mesh[234]![0],
      face.mesh[454]![1] - face.mesh[234]![1],
    );
    expect((cheeks * sx) / cell).toBeGreaterThanOrEqual(18);
    const lightness = (x: number, y: number): number => {
      const p = (Math.round(y) * img.width + Math.round(x)) * 3;
      return oklab(img.data[p]!, img.data[p + 1]!, img.data[p + 2]!)[0];
    };
    const at = (i: number): [number, number] => [face.mesh[i]![0] * sx, face.mesh[i]![1] * sy];
    // The skin's lightness: the median of the cheeks and forehead (mesh points).
    const skin = [50, 280, 151, 9, 101, 330].map((i) => lightness(...at(i))).sort((a, b) => a - b);
    const skinL = skin[Math.floor(skin.length / 2)]!;
    // Each eye: the darkest cell within one cell of the eye's centre (its contour's mean) is a
    // dark feature pixel, far darker than the skin, and so is each brow.
    const darkest = (points: number[]): number => {
      const cx = points.reduce((s, i) => s + at(i)[0], 0) / points.length;
      const cy = points.reduce((s, i) => s + at(i)[1], 0) / points.length;
      let min = 1;
      for (let dy = -cell; dy <= cell; dy += cell / 2)
        for (let dx = -cell; dx <= cell; dx += cell / 2) min = Math.min(min, lightness(cx + dx, cy + dy));
      return min;
    };
    const rightEye = [33, 246, 161, 160, 159, 158, 157, 173, 133, 155, 154, 153, 145, 144, 163, 7];
    const leftEye = [263, 466, 388, 387, 386, 385, 384, 398, 362, 382, 381, 380, 374, 373, 390, 249];
    for (const eye of [rightEye, leftEye]) expect(skinL - darkest(eye)).toBeGreaterThan(0.4);
    // The mouth: a line darker than the skin between the lips.
    expect(skinL - darkest([13, 14, 78, 308])).toBeGreaterThan(0.15);
  }, 60_000);
});
