import { describe, expect, it } from "vitest";
import { correlation, distinctColors, grayAt, photo, raw, request } from "../../shared/test-utils";
import { render } from "./render";

describe("16-bit-video-game-character", () => {
  it("has at most 16 distinct colours on an even pixel grid and keeps the subject", async () => {
    const input = await photo("portrait-male-1.jpg", 600);
    const out = await render(request("16-bit-video-game-character", input));
    const img = await raw(out.bytes);
    const colours = distinctColors(img);
    expect(colours).toBeLessThanOrEqual(16);
    expect(colours).toBeGreaterThanOrEqual(6); // a palette, not a silhouette
    // Every 11 x 11 cell (1056 / 96) is one colour.
    const k = img.width / 96;
    expect(Number.isInteger(k)).toBe(true);
    for (let y = 0; y < img.height; y += k)
      for (let x = 0; x < img.width; x += k) {
        const o = (y * img.width + x) * 3;
        for (let dy = 0; dy < k; dy++)
          for (let dx = 0; dx < k; dx++) {
            const p = ((y + dy) * img.width + x + dx) * 3;
            if (img.data.compare(img.data, p, p + 3, o, o + 3) !== 0)
              throw new Error(`cell ${x},${y} not uniform`);
          }
      }
    expect(correlation(await grayAt(input, 48, 48), await grayAt(out.bytes, 48, 48))).toBeGreaterThan(0.6);
  });

  it("is deterministic", async () => {
    const input = await photo("pet-1-cat.png");
    const a = await render(request("16-bit-video-game-character", input));
    const b = await render(request("16-bit-video-game-character", input));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
  });
});
