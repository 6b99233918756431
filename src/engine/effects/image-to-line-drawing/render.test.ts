import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { photo, raw, request } from "../../shared/test-utils";
import { sobel } from "../../shared/edges";
import { render } from "./render";

describe("image-to-line-drawing", () => {
  it("draws clean dark lines on white that follow the input's edges, unlike a plain threshold", async () => {
    const input = await photo("pet-1-cat.png");
    const out = await render(request("image-to-line-drawing", input));
    const img = await raw(out.bytes);
    const src = await sharp(input)
      .resize(img.width, img.height, { fit: "fill" })
      .grayscale()
      .raw()
      .toBuffer();
    const n = img.width * img.height;
    const gray = new Uint8Array(n);
    for (let i = 0; i < n; i++)
      gray[i] = Math.round((img.data[i * 3]! + img.data[i * 3 + 1]! + img.data[i * 3 + 2]!) / 3);

    const white = gray.filter((v) => v >= 230).length / n;
    expect(white).toBeGreaterThanOrEqual(0.85);

    // Dark pixels sit on strong input edges (within 2 px).
    const { mag } = sobel(src, img.width, img.height);
    const sorted = Float64Array.from(mag).sort();
    const strong = sorted[Math.floor(sorted.length * 0.8)]!;
    let dark = 0;
    let onEdge = 0;
    for (let y = 2; y < img.height - 2; y++)
      for (let x = 2; x < img.width - 2; x++) {
        if (gray[y * img.width + x]! >= 100) continue;
        dark++;
        let best = 0;
        for (let dy = -2; dy <= 2; dy++)
          for (let dx = -2; dx <= 2; dx++) best = Math.max(best, mag[(y + dy) * img.width + x + dx]!);
        if (best >= strong) onEdge++;
      }
    expect(dark).toBeGreaterThan(n * 0.005);
    expect(onEdge / dark).toBeGreaterThan(0.8);

    // A plain global threshold of the photo would look very different.
    let agree = 0;
    for (let i = 0; i < n; i++) if (gray[i]! < 128 === src[i]! < 100) agree++;
    expect(agree / n).toBeLessThan(0.9);
  });
});
