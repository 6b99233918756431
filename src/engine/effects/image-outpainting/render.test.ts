import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { correlation, photo, raw, request, type Raw } from "../../shared/test-utils";
import { OUTPAINT_MAX_SIDE, outpaintSize } from "@/core/catalogue-constants";
import { detectFaces } from "../../vision/human";
import { textProbability } from "../../vision/text-detector";
import { mulberry32 } from "../../shared/random";
import { render } from "./render";

const luma = (img: Raw, x: number, y: number) => {
  const i = (y * img.width + x) * 3;
  return 0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!;
};

/** Luma of a column range [x0, x1) over rows [y0, y1), row by row. */
function region(img: Raw, x0: number, x1: number, y0: number, y1: number, flip = false): Float64Array {
  const out = new Float64Array((x1 - x0) * (y1 - y0));
  let k = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) out[k++] = luma(img, flip ? x1 - 1 - (x - x0) : x, y);
  return out;
}

const variance = (v: Float64Array) => {
  const m = v.reduce((a, b) => a + b, 0) / v.length;
  return v.reduce((a, b) => a + (b - m) ** 2, 0) / v.length;
};

/** The values minus the mean of their row (rows of `width`). */
function withoutRowMeans(v: Float64Array, width: number): Float64Array {
  const out = Float64Array.from(v);
  for (let y = 0; y < out.length / width; y++) {
    let m = 0;
    for (let x = 0; x < width; x++) m += out[y * width + x]!;
    m /= width;
    for (let x = 0; x < width; x++) out[y * width + x] = out[y * width + x]! - m;
  }
  return out;
}

/** Mean absolute difference between horizontally adjacent pixels (fine detail along rows). */
function rowDetail(img: Raw, x0: number, x1: number, y0: number, y1: number): number {
  let s = 0;
  let n = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0 + 1; x < x1; x++) {
      s += Math.abs(luma(img, x, y) - luma(img, x - 1, y));
      n++;
    }
  return s / n;
}

async function outpaint(input: Buffer, options: Record<string, unknown>, seed = 7) {
  return render(request("image-outpainting", input, { options, seed }));
}

describe("image-outpainting", () => {
  it("extends exactly the chosen edges by the amount and leaves the photo untouched", async () => {
    const input = await photo("landscape-1-meadow-cc0.jpg", 480);
    const src = await raw(input);
    const result = await outpaint(input, { edges: ["left", "right"], amount: 0.25 });
    const out = await raw(result.bytes);
    const add = Math.round(src.width * 0.25);
    expect([out.width, out.height]).toEqual([src.width + 2 * add, src.height]);
    expect([result.width, result.height]).toEqual([out.width, out.height]);
    for (let y = 0; y < src.height; y++) {
      const a = out.data.subarray((y * out.width + add) * 3, (y * out.width + add + src.width) * 3);
      const b = src.data.subarray(y * src.width * 3, (y + 1) * src.width * 3);
      if (!a.equals(b)) throw new Error(`row ${y} of the photo changed`);
    }
  });

  it("honours a single edge (top only) with its own amount", async () => {
    const input = await photo("scene-rocket-launch.jpg", 320);
    const src = await raw(input);
    const out = await raw((await outpaint(input, { edges: ["top"], amount: 0.4 })).bytes);
    const add = Math.round(src.height * 0.4);
    expect([out.width, out.height]).toEqual([src.width, src.height + add]);
    expect(out.data.subarray(add * out.width * 3).equals(src.data)).toBe(true);
  });

  it("fills the new area with plausible texture: not flat, not a smear, not a mirror", async () => {
    const input = await photo("landscape-1-meadow-cc0.jpg", 480);
    const src = await raw(input);
    const out = await raw((await outpaint(input, { edges: ["left"], amount: 0.3 })).bytes);
    const add = out.width - src.width;
    const h = src.height;
    const strip = region(out, 0, add, 0, h);
    // The photo's border strip of the same width, as it sits in the output.
    const border = region(out, add, 2 * add, 0, h);

    // Not flat: varied like the photo's border region, with comparable fine detail.
    expect(variance(strip)).toBeGreaterThan(variance(border) * 0.2);
    expect(rowDetail(out, 0, add, 0, h)).toBeGreaterThan(rowDetail(out, add, 2 * add, 0, h) * 0.5);

    // Not a smear: new columns are not copies of the photo's edge column.
    const edge = region(out, add, add + 1, 0, h);
    let copies = 0;
    for (let x = 0; x < add; x++) if (correlation(region(out, x, x + 1, 0, h), edge) > 0.95) copies++;
    expect(copies / add).toBeLessThan(0.1);

    // Not a mirror: the strip is not the border strip flipped about the photo's edge. Row means
    // are removed first: sky above grass makes any continuation correlate row by row.
    const mirrored = region(out, add, 2 * add, 0, h, true);
    expect(correlation(withoutRowMeans(strip, add), withoutRowMeans(mirrored, add))).toBeLessThan(0.5);
  });

  it("is deterministic for a seed, and the seed varies the synthesis", async () => {
    const input = await photo("object-coffee.png", 240);
    const a = await outpaint(input, {}, 5);
    const b = await outpaint(input, {}, 5);
    const c = await outpaint(input, {}, 6);
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
    expect(Buffer.from(a.bytes).equals(Buffer.from(c.bytes))).toBe(false);
    // Defaults: all four edges, 25 %.
    const src = await raw(input);
    expect(a.width).toBe(src.width + 2 * Math.round(src.width * 0.25));
    expect(a.height).toBe(src.height + 2 * Math.round(src.height * 0.25));
  });

  it("keeps a large photo's resolution: 1920 x 1080 extended left and right is 2880 x 1080", async () => {
    const input = await photo("landscape-1-meadow-cc0.jpg"); // 1920 x 1080
    const src = await raw(input);
    const out = await raw((await outpaint(input, { edges: ["left", "right"] })).bytes);
    expect([out.width, out.height]).toEqual([src.width + 2 * Math.round(src.width * 0.25), src.height]);
    const x0 = Math.round(src.width * 0.25);
    for (let y = 0; y < src.height; y += 7) {
      const a = out.data.subarray((y * out.width + x0) * 3, (y * out.width + x0 + src.width) * 3);
      if (!a.equals(src.data.subarray(y * src.width * 3, (y + 1) * src.width * 3)))
        throw new Error(`row ${y} of the photo changed`);
    }
  });

  it("past 4096 px, scales the photo so the result fits, exactly as outpaintSize tells the page", async () => {
    const big = await sharp(await photo("landscape-1-meadow-cc0.jpg"))
      .resize(3600, 2025, { fit: "fill" })
      .jpeg()
      .toBuffer();
    const edges = ["left", "right", "top", "bottom"] as const;
    const expected = outpaintSize(3600, 2025, edges);
    expect(expected.scaled).toBe(true);
    const out = await raw((await outpaint(big, { edges: [...edges] })).bytes);
    expect([out.width, out.height]).toEqual([expected.width, expected.height]);
    expect(Math.max(out.width, out.height)).toBe(OUTPAINT_MAX_SIDE);
    // The photo sits in the middle at the scaled size, essentially unchanged.
    const { photoWidth: w, photoHeight: h } = expected;
    const scaled = await raw(await sharp(big).resize(w, h, { fit: "fill" }).png().toBuffer());
    const x0 = Math.round(w * 0.25);
    const y0 = Math.round(h * 0.25);
    let diff = 0;
    let n = 0;
    for (let y = 0; y < h; y += 9)
      for (let x = 0; x < w; x += 9)
        for (let ch = 0; ch < 3; ch++, n++)
          diff += Math.abs(
            out.data[((y + y0) * out.width + x + x0) * 3 + ch]! - scaled.data[(y * w + x) * 3 + ch]!,
          );
    expect(diff / n).toBeLessThan(3);
  });

  it.each([
    ["child-1-three-children-1860s.jpg", 3],
    ["couple-1-daguerreotype-1850s.jpg", 2],
  ])(
    "never copies a person into the extension: %s keeps its %i faces and gains none",
    async (name, count) => {
      // Group photos with the people touching the frame: quilting used to copy heads into the
      // new area (a fourth child, a third face beside the couple).
      const input = await photo(name, 640);
      const src = await raw(input);
      expect((await detectFaces(input)).faces.length).toBe(count);
      const x0 = Math.round(src.width * 0.3);
      const y0 = Math.round(src.height * 0.3);
      for (const seed of [1, 2]) {
        const result = await outpaint(
          input,
          { edges: ["left", "right", "top", "bottom"], amount: 0.3 },
          seed,
        );
        const { faces } = await detectFaces(result.bytes);
        const inExtension = faces.filter((f) => {
          const cx = f.box[0] + f.box[2] / 2;
          const cy = f.box[1] + f.box[3] / 2;
          return cx < x0 || cx >= x0 + src.width || cy < y0 || cy >= y0 + src.height;
        });
        expect(inExtension.map((f) => f.box.map(Math.round))).toEqual([]);
      }
    },
  );

  /** A seeded synthetic photo: a soft two-colour gradient with fine noise, as PNG. */
  async function synthetic(
    w: number,
    h: number,
    seed: number,
    paint?: (x: number, y: number) => number | null,
  ) {
    const next = mulberry32(seed);
    const data = Buffer.alloc(w * h * 3);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const n = (next() / 4294967296 - 0.5) * 16;
        const t = x / w;
        const over = paint?.(x, y) ?? null;
        const base = [120 + 60 * t, 140 + 30 * (y / h), 100 + 40 * (1 - t)];
        for (let c = 0; c < 3; c++) data[(y * w + x) * 3 + c] = Math.round(over ?? base[c]! + n);
      }
    return sharp(data, { raw: { width: w, height: h, channels: 3 } })
      .png()
      .toBuffer();
  }

  it("never copies a distinctive shape near the border into the extension", async () => {
    // A high-contrast checkerboard touching the left border: quilting copied it outward.
    const w = 320;
    const h = 240;
    const [ox, oy, size] = [4, 90, 48];
    const input = await synthetic(w, h, 11, (x, y) =>
      x >= ox && x < ox + size && y >= oy && y < oy + size
        ? ((Math.floor((x - ox) / 8) + Math.floor((y - oy) / 8)) % 2) * 230 + 10
        : null,
    );
    const src = await raw(input);
    const template = region(src, ox, ox + size, oy, oy + size);
    for (const seed of [1, 2, 3]) {
      const out = await raw(
        (await outpaint(input, { edges: ["left", "top", "bottom"], amount: 0.4 }, seed)).bytes,
      );
      const left = out.width - w;
      const top = Math.round(h * 0.4);
      let best = -1;
      // Every window of the template's size in the left extension (all rows of the output).
      for (let y = 0; y + size <= out.height; y += 3)
        for (let x = 0; x + size <= left; x += 3)
          best = Math.max(best, correlation(region(out, x, x + size, y, y + size), template));
      // And in the top and bottom bands beside it.
      for (const [y0, y1] of [
        [0, top],
        [top + h, out.height],
      ] as const)
        for (let y = y0; y + size <= y1; y += 3)
          for (let x = left; x + size <= out.width; x += 3)
            best = Math.max(best, correlation(region(out, x, x + size, y, y + size), template));
      expect(best).toBeLessThan(0.5);
    }
  });

  it("does not continue text at the edge into the extension (the text detector finds none there)", async () => {
    const w = 480;
    const h = 320;
    const base = await synthetic(w, h, 3);
    const svg = Buffer.from(
      `<svg width="${w}" height="${h}" xmlns="http://www.w3.org/2000/svg">` +
        `<text x="6" y="${h - 8}" font-family="sans-serif" font-size="26" font-weight="bold" fill="#d01010">PHOTO CREDIT 2024</text></svg>`,
    );
    const input = await sharp(base)
      .composite([{ input: svg }])
      .png()
      .toBuffer();
    const src = await raw(input);
    const textPixels = (p: Buffer) => p.reduce((k, v) => k + (v > 110 ? 1 : 0), 0);
    // The detector sees the planted text in the photo.
    expect(textPixels(await textProbability(src.data, w, h))).toBeGreaterThan(500);
    const out = await raw((await outpaint(input, {}, 4)).bytes);
    const prob = await textProbability(out.data, out.width, out.height);
    const x0 = Math.round(w * 0.25);
    const y0 = Math.round(h * 0.25);
    let inExtension = 0;
    for (let y = 0; y < out.height; y++)
      for (let x = 0; x < out.width; x++) {
        const inside = x >= x0 && x < x0 + w && y >= y0 && y < y0 + h;
        if (!inside && prob[y * out.width + x]! > 110) inExtension++;
      }
    expect(inExtension).toBeLessThan(40);
  });

  it("does not continue a photo's plain dark border as a band, and keeps it as it was", async () => {
    // A scan with a black band down its right edge, extended to the right.
    const w = 400;
    const h = 300;
    const band = 24;
    const input = await synthetic(w, h, 5, (x) => (x >= w - band ? 8 : null));
    const out = await raw((await outpaint(input, { edges: ["right"], amount: 0.3 }, 2)).bytes);
    expect([out.width, out.height]).toEqual([w + Math.round(w * 0.3), h]);
    const columnMean = (x: number) => {
      let s = 0;
      for (let y = 0; y < h; y++) s += luma(out, x, y);
      return s / h;
    };
    // In the extension no column is much darker than the photo next to the band: the band
    // is not continued (nor pulled outward by the seam blend).
    const reference = columnMean(Math.round(w * 0.85));
    let darkest = Infinity;
    for (let x = w; x < out.width; x++) darkest = Math.min(darkest, columnMean(x));
    expect(darkest).toBeGreaterThan(reference - 30);
    // The whole photo, band included, is unchanged (the page promises the original untouched).
    const src = await raw(input);
    for (let y = 0; y < h; y++) {
      const a = out.data.subarray(y * out.width * 3, (y * out.width + w) * 3);
      expect(a.equals(src.data.subarray(y * w * 3, (y + 1) * w * 3))).toBe(true);
    }
  });

  /** Every non-empty combination of the four edges (15). */
  const ALL_COMBINATIONS = Array.from({ length: 15 }, (_, m) =>
    (["top", "bottom", "left", "right"] as const).filter((_, b) => (m + 1) & (1 << b)),
  );

  it.each([
    // A bright sky at the top (a "white mat" to the old band detector: 100 px were repainted).
    "portrait-female-1.jpg",
    // Dark scan edges and tarnish (the old detector repainted a strip of each).
    "child-1-three-children-1860s.jpg",
    "old-damaged-2-daguerreotype-1850s.jpg",
    "portrait-male-1.jpg",
  ])("keeps every pixel of %s exactly, for every edge combination", async (name) => {
    // The page promises the original pixels untouched. At this size the effect does not scale,
    // so the photo's area of the output must equal the input byte for byte.
    const input = await photo(name, 200);
    const src = await raw(input);
    for (const edges of ALL_COMBINATIONS) {
      const out = await raw((await outpaint(input, { edges: [...edges], amount: 0.2 }, 3)).bytes);
      const x0 = edges.includes("left") ? Math.round(src.width * 0.2) : 0;
      const y0 = edges.includes("top") ? Math.round(src.height * 0.2) : 0;
      for (let y = 0; y < src.height; y++) {
        const a = out.data.subarray(
          ((y + y0) * out.width + x0) * 3,
          ((y + y0) * out.width + x0 + src.width) * 3,
        );
        if (!a.equals(src.data.subarray(y * src.width * 3, (y + 1) * src.width * 3)))
          throw new Error(`${name}, edges ${edges.join("+")}: row ${y} of the photo changed`);
      }
    }
  });

  it("continues the sky above a head, not the hair (no plume rising from the head)", async () => {
    // Portrait 1 cropped so her hair touches the top edge, then extended upward.
    const full = await photo("portrait-female-1.jpg", 500);
    const input = await sharp(full).extract({ left: 0, top: 40, width: 500, height: 460 }).png().toBuffer();
    const src = await raw(input);
    const meanLuma = (img: Raw, x0: number, x1: number, y0: number, y1: number) => {
      let s = 0;
      let n = 0;
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++, n++) s += luma(img, x, y);
      return s / n;
    };
    // The hair at the top edge (over her head) is dark, the sky beside it light.
    const hair = meanLuma(src, 200, 300, 0, 6);
    const sky = meanLuma(src, 10, 80, 0, 6);
    expect(sky - hair).toBeGreaterThan(60);
    const out = await raw((await outpaint(input, { edges: ["top"], amount: 0.3 }, 1)).bytes);
    const top = out.height - src.height;
    // Above the head, from a few pixels over the seam to the top: sky-coloured, not hair.
    const above = meanLuma(out, 200, 300, 0, top - 4);
    expect(Math.abs(above - sky)).toBeLessThan(Math.abs(above - hair));
    expect(above).toBeGreaterThan(sky - 30);
  });

  it("refuses an empty edge list with a readable reason", async () => {
    const input = await photo("pet-1-cat.png");
    await expect(outpaint(input, { edges: [] })).rejects.toThrow(/at least one edge/);
  });
});
