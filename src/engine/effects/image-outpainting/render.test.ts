import { describe, expect, it } from "vitest";
import { correlation, photo, raw, request, type Raw } from "../test-utils";
import { render } from "./render";

const column = (img: Raw, x: number, y0: number, y1: number) => {
  const out = new Float64Array(y1 - y0);
  for (let y = y0; y < y1; y++) out[y - y0] = img.data[(y * img.width + x) * 3 + 1]!;
  return out;
};
const std = (v: Float64Array) => {
  const m = v.reduce((a, b) => a + b, 0) / v.length;
  return Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / v.length);
};

describe("image-outpainting", () => {
  it("extends only the chosen edges by the amount, keeping every original pixel in place", async () => {
    const input = await photo("landscape-1-meadow-cc0.jpg", 480);
    const src = await raw(input);
    const out = await raw(
      (
        await render(
          request("image-outpainting", input, { options: { edges: ["left", "right"], amount: 0.25 } }),
        )
      ).bytes,
    );
    const add = Math.round(src.width * 0.25);
    expect([out.width, out.height]).toEqual([src.width + 2 * add, src.height]);
    for (let y = 0; y < src.height; y++) {
      const a = out.data.subarray((y * out.width + add) * 3, (y * out.width + add + src.width) * 3);
      const b = src.data.subarray(y * src.width * 3, (y + 1) * src.width * 3);
      if (!a.equals(b)) throw new Error(`row ${y} of the original changed`);
    }
  });

  it("fills new areas with plausible texture: not flat, not a smear, not a mirror", async () => {
    const input = await photo("landscape-1-meadow-cc0.jpg", 480);
    const src = await raw(input);
    const out = await raw(
      (await render(request("image-outpainting", input, { options: { edges: ["left"], amount: 0.3 } })))
        .bytes,
    );
    const add = out.width - src.width;
    const h = src.height;
    // Not flat: the new strip varies about as much as the original's edge band.
    const stripStd = std(Float64Array.from({ length: add }, (_, x) => std(column(out, x, 0, h))));
    const bandStd = std(Float64Array.from({ length: add }, (_, x) => std(column(src, x, 0, h))));
    const meanColStd = (img: Raw, x0: number, x1: number) => {
      let t = 0;
      for (let x = x0; x < x1; x++) t += std(column(img, x, 0, h));
      return t / (x1 - x0);
    };
    expect(meanColStd(out, 0, add)).toBeGreaterThan(meanColStd(src, 0, add) * 0.4);
    expect(stripStd + bandStd).toBeGreaterThan(0);
    // Not a smear: columns of the new strip are not copies of the original's edge column.
    const edge = column(src, 0, 0, h);
    let copies = 0;
    for (let x = 0; x < add; x++) if (correlation(column(out, x, 0, h), edge) > 0.97) copies++;
    expect(copies / add).toBeLessThan(0.2);
    // Not a mirror: the strip is not the original's edge band flipped.
    let mirrored = 0;
    for (let x = 0; x < add; x++)
      mirrored += correlation(column(out, add - 1 - x, 0, h), column(src, x, 0, h));
    expect(mirrored / add).toBeLessThan(0.9);
  });

  it("extends all four edges by default (25 %) and is deterministic for a seed", async () => {
    const input = await photo("object-coffee.png", 300);
    const src = await raw(input);
    const a = await render(request("image-outpainting", input, { options: {} }));
    const b = await render(request("image-outpainting", input, { options: {} }));
    expect(a.width).toBe(src.width + 2 * Math.round(src.width * 0.25));
    expect(a.height).toBe(src.height + 2 * Math.round(src.height * 0.25));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
  });
});
