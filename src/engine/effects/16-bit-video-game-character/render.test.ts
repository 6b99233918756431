import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { COOL_RAMP, hexRgb } from "../../shared/pixel-art";
import { distinctColors, photo, raw, request, type Raw } from "../../shared/test-utils";
import { COLOURS, GRID_LONG_SIDE, OUTLINE, render, SKY } from "./render";

const key = (d: Uint8Array | Buffer, o: number) => (d[o]! << 16) | (d[o + 1]! << 8) | d[o + 2]!;

/** The output as a grid of cell colours (every cell k x k pixels, checked uniform). */
function cells(img: Raw): { grid: number[]; cols: number; rows: number } {
  const k = Math.max(img.width, img.height) / GRID_LONG_SIDE;
  expect(Number.isInteger(k)).toBe(true);
  const cols = img.width / k;
  const rows = img.height / k;
  const grid: number[] = [];
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < cols; x++) {
      const o = (y * k * img.width + x * k) * 3;
      for (let dy = 0; dy < k; dy++)
        for (let dx = 0; dx < k; dx++) {
          const p = ((y * k + dy) * img.width + x * k + dx) * 3;
          if (img.data.compare(img.data, p, p + 3, o, o + 3) !== 0)
            throw new Error(`cell ${x},${y} not uniform`);
        }
      grid.push(key(img.data, o));
    }
  return { grid, cols, rows };
}

const SKY_KEYS = new Set([0, 1, 2].map((i) => key(SKY, i * 3)));
const OUTLINE_KEY = key(OUTLINE, 0);

describe("16-bit-video-game-character", () => {
  it("is a sprite: the person on a plain game sky, outlined all round, at most 16 colours", async () => {
    const out = await render(request("16-bit-video-game-character", await photo("portrait-male-1.jpg", 600)));
    const img = await raw(out.bytes);
    const colours = distinctColors(img);
    expect(colours).toBeLessThanOrEqual(COLOURS);
    expect(colours).toBeGreaterThanOrEqual(8); // a palette, not a silhouette
    const { grid, cols, rows } = cells(img);
    // The backdrop is the sky (a good share of the frame, the top corners included)...
    const sky = grid.filter((c) => SKY_KEYS.has(c)).length;
    expect(sky / grid.length).toBeGreaterThan(0.15);
    expect(SKY_KEYS.has(grid[0]!) && SKY_KEYS.has(grid[cols - 1]!)).toBe(true);
    // ... and no sky cell ever touches the person: the outline is closed.
    let outlined = 0;
    for (let y = 0; y < rows; y++)
      for (let x = 0; x < cols; x++) {
        const c = grid[y * cols + x]!;
        if (c === OUTLINE_KEY) outlined++;
        if (!SKY_KEYS.has(c)) continue;
        for (const [nx, ny] of [
          [x + 1, y],
          [x, y + 1],
        ] as const) {
          if (nx >= cols || ny >= rows) continue;
          const d = grid[ny * cols + nx]!;
          if (!SKY_KEYS.has(d) && d !== OUTLINE_KEY) throw new Error(`sky touches the sprite at ${nx},${ny}`);
        }
      }
    expect(outlined).toBeGreaterThan(cols); // a real outline, longer than one row
  });

  it("draws a b/w person with the deliberate cool ramp, every ramp step but one used", async () => {
    const input = await sharp(await photo("portrait-male-2.jpg", 600))
      .greyscale()
      .toColourspace("srgb")
      .png()
      .toBuffer();
    const { grid } = cells(await raw((await render(request("16-bit-video-game-character", input))).bytes));
    const ramp = new Set(COOL_RAMP.map((h) => key(hexRgb([h]), 0)));
    const sprite = new Set(grid.filter((c) => !SKY_KEYS.has(c) && c !== OUTLINE_KEY));
    for (const c of sprite) expect(ramp.has(c)).toBe(true);
    expect(sprite.size).toBeGreaterThanOrEqual(COOL_RAMP.length - 1);
  });

  it("draws a photo without a person whole, in 16 colours of its own and no sky", async () => {
    const img = await raw(
      (await render(request("16-bit-video-game-character", await photo("landscape-1-meadow-cc0.jpg", 600))))
        .bytes,
    );
    expect(distinctColors(img)).toBeLessThanOrEqual(COLOURS);
    const { grid } = cells(img);
    expect(grid.filter((c) => SKY_KEYS.has(c)).length).toBe(0);
  });

  it("is deterministic", async () => {
    const input = await photo("portrait-female-1.jpg", 600);
    const a = await render(request("16-bit-video-game-character", input));
    const b = await render(request("16-bit-video-game-character", input));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
  });
});
