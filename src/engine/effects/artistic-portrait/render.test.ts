import { describe, expect, it } from "vitest";
import { photo, raw, request, type Raw } from "../test-utils";
import { render } from "./render";

const luma = (r: Raw, i: number) => 0.2126 * r.data[i]! + 0.7152 * r.data[i + 1]! + 0.0722 * r.data[i + 2]!;

/** Mean (blue - red) over the darkest and brightest quarter of pixels (by the input's luma). */
function toneBalance(out: Raw, src: Raw) {
  const idx = Array.from({ length: src.width * src.height }, (_, k) => k * 3).sort(
    (a, b) => luma(src, a) - luma(src, b),
  );
  const q = Math.floor(idx.length / 4);
  const bal = (ids: number[], img: Raw) =>
    ids.reduce((s, i) => s + img.data[i + 2]! - img.data[i]!, 0) / ids.length;
  return {
    shadows: bal(idx.slice(0, q), out) - bal(idx.slice(0, q), src),
    highlights: bal(idx.slice(-q), out) - bal(idx.slice(-q), src),
  };
}

describe("artistic-portrait", () => {
  it("grades cinematically: teal shadows and warm highlights, a vignette and film grain", async () => {
    const input = await photo("portrait-male-2.jpg", 500);
    const out = await raw((await render(request("artistic-portrait", input))).bytes);
    const src = await raw(input);
    const { shadows, highlights } = toneBalance(out, src);
    expect(shadows).toBeGreaterThan(5); // bluer shadows
    expect(highlights).toBeLessThan(-5); // warmer highlights

    const mean = (img: Raw, x0: number, y0: number, s: number) => {
      let t = 0;
      for (let y = y0; y < y0 + s; y++)
        for (let x = x0; x < x0 + s; x++) t += luma(img, (y * img.width + x) * 3);
      return t / (s * s);
    };
    const s = 40;
    const ratio = (img: Raw) =>
      mean(img, 0, 0, s) / mean(img, (img.width - s) >> 1, (img.height - s) >> 1, s);
    expect(ratio(out)).toBeLessThan(ratio(src) * 0.85); // corners darker relative to the centre
  });

  it("adds film grain to a flat area", async () => {
    const sharp = (await import("sharp")).default;
    const flat = await sharp({ create: { width: 200, height: 200, channels: 3, background: "#808080" } })
      .png()
      .toBuffer();
    const out = await raw((await render(request("artistic-portrait", flat))).bytes);
    // Pixel-to-pixel differences in the centre, where the vignette is flat.
    let diff = 0;
    let count = 0;
    for (let y = 80; y < 120; y++)
      for (let x = 81; x < 120; x++) {
        const i = (y * out.width + x) * 3;
        diff += Math.abs(out.data[i + 1]! - out.data[i - 2]!);
        count++;
      }
    expect(diff / count).toBeGreaterThan(1); // a flat input has none
  });

  it("is deterministic for a seed and grains differently for another", async () => {
    const input = await photo("pet-1-cat.png");
    const a = await render(request("artistic-portrait", input, { seed: 1 }));
    const b = await render(request("artistic-portrait", input, { seed: 1 }));
    const c = await render(request("artistic-portrait", input, { seed: 2 }));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
    expect(Buffer.from(a.bytes).equals(Buffer.from(c.bytes))).toBe(false);
  });
});
