import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { COOL_RAMP, hexRgb, WARM_RAMP } from "../../shared/pixel-art";
import { correlation, distinctColors, grayAt, photo, raw, request, type Raw } from "../../shared/test-utils";
import { COLOURS, PALETTE, render } from "./render";

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

const key = (d: Uint8Array | Buffer, o: number) => (d[o]! << 16) | (d[o + 1]! << 8) | d[o + 2]!;

/** The set of colours of an image. */
function colourSet(img: Raw): Set<number> {
  const set = new Set<number>();
  for (let o = 0; o < img.data.length; o += 3) set.add(key(img.data, o));
  return set;
}

/** Share of cells whose eight neighbours all have another colour (speckle). */
function loneShare(img: Raw, k: number): number {
  const cols = img.width / k;
  const rows = img.height / k;
  const at = (x: number, y: number) => key(img.data, (y * k * img.width + x * k) * 3);
  let lone = 0;
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < cols; x++) {
      let same = 0;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if ((dx || dy) && nx >= 0 && ny >= 0 && nx < cols && ny < rows && at(nx, ny) === at(x, y)) same++;
        }
      if (!same) lone++;
    }
  return lone / (cols * rows);
}

/** A photo turned into a faded monochrome print: grey levels squeezed into 90..170, optionally sepia-toned. */
async function fadedPrint(name: string, sepia = false): Promise<Buffer> {
  const grey = await sharp(await photo(name, 600))
    .greyscale()
    .linear(80 / 255, 90)
    .toColourspace("srgb")
    .png()
    .toBuffer();
  if (!sepia) return grey;
  // The classic sepia matrix.
  const toned = sharp(grey).recomb([
    [0.393, 0.769, 0.189],
    [0.349, 0.686, 0.168],
    [0.272, 0.534, 0.131],
  ]);
  return toned.png().toBuffer();
}

describe("pixel-illustration", () => {
  it("is 8-bit pixel art: a small retro palette on an even, visible grid, and the subject stays recognisable", async () => {
    const input = await photo("portrait-female-1.jpg", 600);
    const out = await render(request("pixel-illustration", input));
    const img = await raw(out.bytes);
    expect(distinctColors(img)).toBeLessThanOrEqual(COLOURS);
    expect(Math.max(img.width, img.height)).toBeLessThanOrEqual(2048);
    // Every colour is one of the retro palette's.
    const retro = new Set(PALETTE.map(([r, g, b]) => (r << 16) | (g << 8) | b));
    for (const c of colourSet(img)) expect(retro.has(c)).toBe(true);

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

  it("keeps a skin tone: a portrait's face is drawn in warm colours, not greys", async () => {
    // The face of portrait-female-1 sits in the middle third; its shadowed side was grey before.
    const out = await raw(
      (await render(request("pixel-illustration", await photo("portrait-female-1.jpg", 600)))).bytes,
    );
    let warm = 0;
    let total = 0;
    for (let y = Math.round(out.height * 0.3); y < out.height * 0.55; y += 4)
      for (let x = Math.round(out.width * 0.4); x < out.width * 0.6; x += 4) {
        const o = (y * out.width + x) * 3;
        total++;
        if (out.data[o]! > out.data[o + 2]! + 25) warm++;
      }
    expect(warm / total).toBeGreaterThan(0.6);
  });

  it("draws a faded b/w print with a deliberate ramp: at least 6 clear steps, all from the cool ramp", async () => {
    const out = await raw(
      (await render(request("pixel-illustration", await fadedPrint("portrait-male-2.jpg")))).bytes,
    );
    const colours = colourSet(out);
    const ramp = new Set(COOL_RAMP.map((h) => key(hexRgb([h]), 0)));
    expect(colours.size).toBeGreaterThanOrEqual(6);
    for (const c of colours) expect(ramp.has(c)).toBe(true);
  });

  it("draws a sepia print with the warm ramp", async () => {
    const input = await fadedPrint("portrait-female-1.jpg", true);
    const out = await raw((await render(request("pixel-illustration", input))).bytes);
    const colours = colourSet(out);
    const ramp = new Set(WARM_RAMP.map((h) => key(hexRgb([h]), 0)));
    expect(colours.size).toBeGreaterThanOrEqual(6);
    for (const c of colours) expect(ramp.has(c)).toBe(true);
  });

  it("has almost no speckle: lone cells stay under 3 % (the fixed-palette mapping left 5-6 %)", async () => {
    for (const name of ["pet-1-cat.png", "portrait-male-1.jpg", "landscape-1-meadow-cc0.jpg"]) {
      const out = await raw((await render(request("pixel-illustration", await photo(name, 600)))).bytes);
      expect(loneShare(out, cellSize(out)), name).toBeLessThan(0.03);
    }
  });

  it("gives the same bytes for the same input and seed", async () => {
    const input = await photo("pet-1-cat.png");
    const a = await render(request("pixel-illustration", input));
    const b = await render(request("pixel-illustration", input));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
  });
});
