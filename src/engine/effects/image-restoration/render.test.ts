import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { correlation, grayAt, photo, raw, request } from "../../shared/test-utils";
import { isMonochrome, meanChroma, render } from "./render";

describe("image-restoration", () => {
  it("upscales 2x and colourises a black-and-white photo while keeping its structure", async () => {
    const input = await photo("old-bw-1-migrant-mother-1936.jpg", 400);
    const src = await raw(input);
    const out = await render(request("image-restoration", input));
    expect([out.width, out.height]).toEqual([src.width * 2, src.height * 2]);
    const img = await raw(out.bytes);
    expect(meanChroma(src.data)).toBeLessThan(12);
    expect(meanChroma(img.data)).toBeGreaterThan(12);
    expect(correlation(await grayAt(input, 64, 64), await grayAt(out.bytes, 64, 64))).toBeGreaterThan(0.9);
  });

  it("removes dust specks and a scratch: the damaged pixels come much closer to the clean photo", async () => {
    const clean = await sharp(await photo("portrait-male-1.jpg", 300))
      .png()
      .toBuffer();
    const { width, height } = await sharp(clean).metadata();
    const specks = Array.from({ length: 40 }, (_, i) => {
      const x = (i * 73) % (width! - 10);
      const y = (i * 131) % (height! - 10);
      return `<circle cx="${x + 5}" cy="${y + 5}" r="2" fill="${i % 2 ? "#fff" : "#000"}"/>`;
    }).join("");
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${specks}<line x1="20" y1="10" x2="${width! - 30}" y2="${height! - 20}" stroke="#f4f4f4" stroke-width="1.5"/></svg>`;
    const damaged = await sharp(clean)
      .composite([{ input: Buffer.from(svg) }])
      .png()
      .toBuffer();
    const out = await render(request("image-restoration", damaged));
    const back = await raw(
      await sharp(Buffer.from(out.bytes)).resize(width, height, { fit: "fill" }).png().toBuffer(),
    );
    const c = await raw(clean);
    const d = await raw(damaged);
    let before = 0;
    let after = 0;
    let count = 0;
    for (let i = 0; i < c.data.length; i += 3) {
      const hit =
        Math.abs(d.data[i]! - c.data[i]!) +
        Math.abs(d.data[i + 1]! - c.data[i + 1]!) +
        Math.abs(d.data[i + 2]! - c.data[i + 2]!);
      if (hit < 90) continue; // only the damaged pixels
      before += hit;
      after +=
        Math.abs(back.data[i]! - c.data[i]!) +
        Math.abs(back.data[i + 1]! - c.data[i + 1]!) +
        Math.abs(back.data[i + 2]! - c.data[i + 2]!);
      count++;
    }
    expect(count).toBeGreaterThan(100);
    expect(after / count).toBeLessThan(before / count / 2);
  });

  it("reduces noise in a flat area", async () => {
    const w = 160;
    const noisy = Buffer.alloc(w * w * 3);
    let seed = 1;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5;
    for (let i = 0; i < noisy.length; i++) noisy[i] = Math.round(128 + 40 * rnd());
    const input = await sharp(noisy, { raw: { width: w, height: w, channels: 3 } })
      .png()
      .toBuffer();
    const out = await raw(
      await sharp(Buffer.from((await render(request("image-restoration", input))).bytes))
        .resize(w, w)
        .png()
        .toBuffer(),
    );
    const hf = (d: Buffer) => {
      let t = 0;
      for (let i = 3; i < d.length; i += 3) t += Math.abs(d[i]! - d[i - 3]!);
      return t / (d.length / 3);
    };
    expect(hf(out.data)).toBeLessThan(hf(noisy) * 0.6);
  });

  it("colourises a sepia-toned photo: the tint goes, skin and background get distinct hues, the picture stays", async () => {
    const input = await photo("old-toned-1-sepia-migrant-mother.jpg", 700);
    const src = await raw(input);
    expect(isMonochrome(src.data)).toBe(true);
    const out = await render(request("image-restoration", input));
    const img = await raw(out.bytes);
    // Hues of the pixels with some colour, in 12 bins of 30 degrees: at least two separated
    // clusters (warm skin, a cool backdrop) each holding a real share.
    const bins = new Array<number>(12).fill(0);
    let coloured = 0;
    for (let i = 0; i < img.data.length; i += 3 * 5) {
      const [r, g, b] = [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
      const max = Math.max(r, g, b);
      const min = Math.min(r, g, b);
      if (max - min < 10) continue;
      let h =
        max === r
          ? ((g - b) / (max - min)) % 6
          : max === g
            ? (b - r) / (max - min) + 2
            : (r - g) / (max - min) + 4;
      h = (h * 60 + 360) % 360;
      bins[Math.floor(h / 30)]!++;
      coloured++;
    }
    const shares = bins.map((v) => v / coloured);
    const clusters = shares.map((v, k) => ({ k, v })).filter((b) => b.v > 0.08);
    const spread = Math.max(
      ...clusters.map((a) =>
        Math.max(...clusters.map((b) => Math.min(Math.abs(a.k - b.k), 12 - Math.abs(a.k - b.k)))),
      ),
    );
    expect(spread, JSON.stringify(shares.map((v) => v.toFixed(2)))).toBeGreaterThanOrEqual(4); // 120 degrees or more apart
    // The same picture: its luminance follows the input's.
    expect(correlation(await grayAt(input, 64, 64), await grayAt(out.bytes, 64, 64))).toBeGreaterThan(0.9);
  }, 60_000);

  it("leaves a colour photo's colours alone, even a warm one that is mostly one hue", async () => {
    for (const name of ["portrait-male-2.jpg", "object-coffee.png", "pet-1-cat.png"]) {
      const input = await photo(name, 600);
      const src = await raw(input);
      expect(isMonochrome(src.data), name).toBe(false);
      const img = await raw(
        await sharp(Buffer.from((await render(request("image-restoration", input))).bytes))
          .resize(src.width, src.height)
          .png()
          .toBuffer(),
      );
      let diff = 0;
      for (let i = 0; i < src.data.length; i += 3) {
        // Chroma direction (r - g, g - b) before and after: a recolouring moves it.
        diff += Math.abs(src.data[i]! - src.data[i + 1]! - (img.data[i]! - img.data[i + 1]!));
        diff += Math.abs(src.data[i + 1]! - src.data[i + 2]! - (img.data[i + 1]! - img.data[i + 2]!));
      }
      expect(diff / (src.data.length / 3) / 2, name).toBeLessThan(8);
    }
  }, 60_000);
});
