import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { photo, raw, request } from "../../shared/test-utils";
import { render } from "./render";

/** A fixture shrunk to `side` (long side) as PNG bytes, and its raw RGB pixels. */
async function fixture(name: string, side: number) {
  const bytes = await photo(name, side);
  return { bytes, ...(await raw(bytes)) };
}

const grade = async (bytes: Uint8Array, seed = 7) =>
  raw((await render(request("artistic-portrait", bytes, { seed }))).bytes);

const luma = (d: Buffer, i: number): number =>
  0.2126 * d[i * 3]! + 0.7152 * d[i * 3 + 1]! + 0.0722 * d[i * 3 + 2]!;

describe("artistic-portrait", () => {
  it("keeps the frame, grades shadows teal and highlights warm", async () => {
    const input = await fixture("portrait-female-1.jpg", 400);
    const out = await grade(input.bytes);
    expect([out.width, out.height]).toEqual([input.width, input.height]);

    // Dark and bright pixels by the input's luma (bottom and top quartiles). The vignette scales
    // all channels alike, so it shrinks a channel difference but cannot flip its sign.
    const n = input.width * input.height;
    const lumas = Array.from({ length: n }, (_, i) => luma(input.data, i)).sort((a, b) => a - b);
    const q1 = lumas[Math.floor(n * 0.25)]!;
    const q3 = lumas[Math.floor(n * 0.75)]!;
    // Channel balance: (blue - red) in shadows, (red - blue) in highlights, output minus input.
    let darkShift = 0;
    let darkN = 0;
    let brightShift = 0;
    let brightN = 0;
    for (let i = 0; i < n; i++) {
      const l = luma(input.data, i);
      const bIn = input.data[i * 3 + 2]! - input.data[i * 3]!;
      const bOut = out.data[i * 3 + 2]! - out.data[i * 3]!;
      if (l <= q1) {
        darkShift += bOut - bIn;
        darkN++;
      } else if (l >= q3) {
        brightShift += bIn - bOut;
        brightN++;
      }
    }
    // Shadows gain blue over red (teal); highlights gain red over blue (warm), by several levels.
    expect(darkShift / darkN).toBeGreaterThan(8);
    expect(brightShift / brightN).toBeGreaterThan(8);
  });

  it("darkens the corners relative to the centre (vignette)", async () => {
    const input = await fixture("landscape-1-meadow-cc0.jpg", 480);
    const out = await grade(input.bytes);
    const { width, height } = input;
    const meanRatio = (x0: number, y0: number, x1: number, y1: number) => {
      let a = 0;
      let b = 0;
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          a += luma(out.data, y * width + x);
          b += luma(input.data, y * width + x);
        }
      }
      return a / b;
    };
    const c = Math.round(width * 0.1);
    const r = Math.round(height * 0.1);
    const centre = meanRatio(width / 2 - c, height / 2 - r, width / 2 + c, height / 2 + r);
    const corners = [
      meanRatio(0, 0, c, r),
      meanRatio(width - c, 0, width, r),
      meanRatio(0, height - r, c, height),
      meanRatio(width - c, height - r, width, height),
    ];
    for (const corner of corners) expect(corner).toBeLessThan(centre * 0.85);
  });

  it("adds film grain in flat regions", async () => {
    const input = await fixture("portrait-female-1.jpg", 400);
    const out = await grade(input.bytes);
    const { width, height } = input;
    // High-frequency energy: mean squared difference between a pixel's luma and its 3x3 mean.
    const hf = (d: Buffer, x0: number, y0: number, size: number) => {
      let e = 0;
      for (let y = y0; y < y0 + size; y++) {
        for (let x = x0; x < x0 + size; x++) {
          let s = 0;
          for (let dy = -1; dy <= 1; dy++)
            for (let dx = -1; dx <= 1; dx++) s += luma(d, (y + dy) * width + x + dx);
          const v = luma(d, y * width + x) - s / 9;
          e += v * v;
        }
      }
      return e / (size * size);
    };
    // The flattest 24x24 block of the input (out-of-focus background).
    const size = 24;
    let best = { x: 1, y: 1, e: Infinity };
    for (let y = 1; y + size < height - 1; y += 12) {
      for (let x = 1; x + size < width - 1; x += 12) {
        const e = hf(input.data, x, y, size);
        if (e < best.e) best = { x, y, e };
      }
    }
    const grain = hf(out.data, best.x, best.y, size);
    expect(grain).toBeGreaterThan(best.e + 2);
    expect(grain).toBeGreaterThan(best.e * 3);
  });

  it("grains a perfectly flat grey frame", async () => {
    const flat = await sharp({ create: { width: 200, height: 200, channels: 3, background: "#808080" } })
      .png()
      .toBuffer();
    const out = await grade(flat);
    // Neighbouring pixels in the centre (where the vignette is flat) differ; the input's never do.
    let diff = 0;
    let count = 0;
    for (let y = 80; y < 120; y++)
      for (let x = 81; x < 120; x++) {
        const i = (y * out.width + x) * 3;
        diff += Math.abs(out.data[i + 1]! - out.data[i - 2]!);
        count++;
      }
    expect(diff / count).toBeGreaterThan(1.5);
  });

  it("is deterministic for a seed, and the seed drives the grain", async () => {
    const input = await fixture("portrait-male-2.jpg", 256);
    const a = await render(request("artistic-portrait", input.bytes, { seed: 42 }));
    const b = await render(request("artistic-portrait", input.bytes, { seed: 42 }));
    const c = await render(request("artistic-portrait", input.bytes, { seed: 43 }));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
    expect(Buffer.from(a.bytes).equals(Buffer.from(c.bytes))).toBe(false);
  });
});
