import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { sobel } from "../../shared/edges";
import { distinctColors, meanSaturation, photo, raw, request } from "../../shared/test-utils";
import { INK, POSTER_COLOURS, render } from "./render";

describe("gta-style-filter (game poster)", () => {
  it("flattens colour into few regions, saturates, and inks bold outlines along the input's edges", async () => {
    const input = await photo("portrait-female-1.jpg", 640);
    const out = await raw((await render(request("gta-style-filter", input))).bytes);
    const src = await raw(await sharp(input).resize(out.width, out.height, { fit: "fill" }).png().toBuffer());
    expect(distinctColors(src)).toBeGreaterThan(5_000);
    expect(distinctColors(out)).toBeLessThanOrEqual(POSTER_COLOURS + 1);
    expect(meanSaturation(out)).toBeGreaterThan(meanSaturation(src) * 1.15);

    const gray = new Uint8Array(src.width * src.height);
    for (let i = 0; i < gray.length; i++)
      gray[i] = (src.data[i * 3]! + src.data[i * 3 + 1]! + src.data[i * 3 + 2]!) / 3;
    const { mag } = sobel(gray, src.width, src.height);
    const sorted = Float32Array.from(mag).sort();
    const strong = sorted[Math.floor(sorted.length * 0.75)]!;
    let ink = 0;
    let near = 0;
    for (let y = 3; y < out.height - 3; y++)
      for (let x = 3; x < out.width - 3; x++) {
        const i = (y * out.width + x) * 3;
        if (out.data[i] !== INK[0] || out.data[i + 1] !== INK[1] || out.data[i + 2] !== INK[2]) continue;
        ink++;
        let best = 0;
        for (let dy = -3; dy <= 3; dy++)
          for (let dx = -3; dx <= 3; dx++) best = Math.max(best, mag[(y + dy) * out.width + x + dx]!);
        if (best >= strong) near++;
      }
    expect(ink / (out.width * out.height)).toBeGreaterThan(0.02); // bold, visible outlines
    expect(near / ink).toBeGreaterThan(0.8);
  });
});
