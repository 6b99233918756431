import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { forEachInPolygon, inPolygon } from "../../shared/mask";
import { MESH_BROWS, MESH_EYES, MESH_LIPS_OUTER, MESH_OVAL } from "../../shared/mesh-parts";
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

/** A photo as a b/w print (its lightness only) or a sepia-toned one (that lightness in browns). */
async function asPrint(bytes: Buffer, tone: "bw" | "sepia"): Promise<Buffer> {
  const grey = sharp(bytes).greyscale().toColourspace("srgb");
  if (tone === "bw") return grey.png().toBuffer();
  // Sepia: each channel a share of the grey (a brown toner).
  return grey
    .recomb([
      [1, 0, 0],
      [0.9, 0, 0],
      [0.75, 0, 0],
    ])
    .png()
    .toBuffer();
}

const lab = (img: Raw, x: number, y: number): [number, number, number] => {
  const p = (Math.round(y) * img.width + Math.round(x)) * 3;
  return oklab(img.data[p]!, img.data[p + 1]!, img.data[p + 2]!);
};

describe("pixel-illustration on b/w and toned prints", () => {
  for (const tone of ["bw", "sepia"] as const)
    it(`draws a ${tone} portrait's face in a warm skin hue, not the print's grey (no grey-green cells)`, async () => {
      const input = await asPrint(await photo("portrait-female-1.jpg", 600), tone);
      const face = (await detectFaces(new Uint8Array(input))).faces[0]!;
      const meta = await sharp(input).metadata();
      const img = await raw((await render(request("pixel-illustration", input))).bytes);
      const sx = img.width / meta.width!;
      const sy = img.height / meta.height!;
      const cell = cellSize(img);
      const poly = (ids: readonly number[]) =>
        ids.map((i) => [face.mesh[i]![0] * sx, face.mesh[i]![1] * sy] as [number, number]);
      const features = [
        ...MESH_EYES.map((e) => poly([e.outer, ...e.upper, e.inner, ...[...e.lower].reverse()])),
        ...MESH_BROWS.map((b) => poly([...b.upper, ...[...b.lower].reverse()])),
        poly(MESH_LIPS_OUTER),
      ];
      // One sample per cell of the face's oval, the features (eyes, brows, lips) left out.
      let cells = 0;
      let skin = 0;
      let greyOrGreen = 0;
      forEachInPolygon(
        poly(MESH_OVAL),
        img.width,
        img.height,
        (x, y) => {
          if (features.some((f) => inPolygon(x, y, f))) return;
          const [, a, b] = lab(img, x, y);
          cells++;
          const chroma = Math.hypot(a, b);
          if (a > 0.012 && b > 0.02 && chroma > 0.035) skin++;
          if (a < -0.005 || chroma < 0.02) greyOrGreen++;
        },
        { at: cell / 2, step: cell },
      );
      expect(cells).toBeGreaterThan(150);
      expect(skin / cells).toBeGreaterThan(0.8);
      expect(greyOrGreen / cells).toBeLessThan(0.03);
    }, 60_000);

  it("draws a print without faces in one ramp of its own tone: no palette speckle of peach, olive or green", async () => {
    const land = await photo("landscape-1-meadow-cc0.jpg", 600);
    for (const tone of ["bw", "sepia"] as const) {
      const img = await raw((await render(request("pixel-illustration", await asPrint(land, tone)))).bytes);
      const colours = new Map<number, [number, number, number]>();
      for (let p = 0; p < img.data.length; p += 3) {
        const key = (img.data[p]! << 16) | (img.data[p + 1]! << 8) | img.data[p + 2]!;
        if (!colours.has(key)) colours.set(key, oklab(img.data[p]!, img.data[p + 1]!, img.data[p + 2]!));
      }
      // A deliberate ramp: a few steps, each clearly apart in lightness...
      const labs = [...colours.values()].sort((p, q) => p[0] - q[0]);
      expect(labs.length).toBeGreaterThanOrEqual(5);
      expect(labs.length).toBeLessThanOrEqual(12);
      for (let s = 1; s < labs.length; s++) expect(labs[s]![0] - labs[s - 1]![0]).toBeGreaterThan(0.04);
      // ...all of one tone: muted, and warm (never green) on the sepia print.
      for (const [, a, b] of labs) {
        expect(Math.hypot(a, b)).toBeLessThan(0.06);
        if (tone === "sepia") expect(a > -0.005 && b > -0.005).toBe(true);
      }
    }
  }, 60_000);
});

describe("pixel-illustration on photos without faces", () => {
  /** Share of pixels of a hue family (OKLab) in an image, sampled every `step` pixels. */
  const share = (img: Raw, step: number, is: (a: number, b: number) => boolean): number => {
    let n = 0;
    let hit = 0;
    for (let y = 0; y < img.height; y += step)
      for (let x = 0; x < img.width; x += step) {
        const [, a, b] = lab(img, x, y);
        n++;
        if (is(a, b)) hit++;
      }
    return hit / n;
  };

  /** The meadow made darker still (a dusk), not the fixture as it is. */
  const dusk = async () =>
    sharp(await photo("landscape-1-meadow-cc0.jpg", 600))
      .linear(0.8, 0)
      .png()
      .toBuffer();

  it("keeps a dark photo's greens green (not the palette's navy)", async () => {
    const input = await dusk();
    const img = await raw((await render(request("pixel-illustration", input))).bytes);
    const source = await raw(input);
    const green = (a: number, b: number) => a < -0.008 && b > -0.005;
    // Most of what reads green in the photo reads green in the picture.
    expect(share(img, 4, green)).toBeGreaterThan(0.7 * share(source, 2, green));
  }, 60_000);

  it("leaves no lone speckle cells (photo noise) in a photo without faces", async () => {
    const img = await raw((await render(request("pixel-illustration", await dusk()))).bytes);
    // Lone cells: none of the eight neighbours shares the cell's colour, and it is no darker
    // feature than them (a lone dark cell may be an eye); photo noise, not a drawn cluster.
    const cell = cellSize(img);
    const cols = img.width / cell;
    const rows = img.height / cell;
    const at = (x: number, y: number) => {
      const p = (y * cell * img.width + x * cell) * 3;
      return (img.data[p]! << 16) | (img.data[p + 1]! << 8) | img.data[p + 2]!;
    };
    let lone = 0;
    for (let y = 1; y < rows - 1; y++)
      for (let x = 1; x < cols - 1; x++) {
        const own = at(x, y);
        let same = 0;
        let lighter = 0;
        for (let dy = -1; dy <= 1; dy++)
          for (let dx = -1; dx <= 1; dx++) {
            if (!dx && !dy) continue;
            const v = at(x + dx, y + dy);
            if (v === own) same++;
            if (lab(img, (x + dx) * cell, (y + dy) * cell)[0] > lab(img, x * cell, y * cell)[0] + 0.16)
              lighter++;
          }
        if (!same && lighter < 4) lone++;
      }
    expect(lone / ((cols - 2) * (rows - 2))).toBeLessThan(0.005);
  }, 60_000);
});
