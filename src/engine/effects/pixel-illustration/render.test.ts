import { describe, expect, it } from "vitest";
import { correlation, distinctColors, grayAt, photo, raw, request } from "../../shared/test-utils";
import { render } from "./render";

describe("pixel-illustration", () => {
  it("is 8-bit pixel art: at most 32 colours on an even, visible grid, and the subject stays recognisable", async () => {
    const input = await photo("portrait-female-1.jpg", 600);
    const out = await render(request("pixel-illustration", input));
    const img = await raw(out.bytes);
    expect(distinctColors(img)).toBeLessThanOrEqual(32);
    expect(Math.max(img.width, img.height)).toBeLessThanOrEqual(2048);

    // The cell size: the greatest common divisor of every run of equal pixels along rows.
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

  it("gives the same bytes for the same input and seed", async () => {
    const input = await photo("pet-1-cat.png");
    const a = await render(request("pixel-illustration", input));
    const b = await render(request("pixel-illustration", input));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
  });
});
