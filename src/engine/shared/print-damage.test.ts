import { describe, expect, it } from "vitest";
import { decodePortrait } from "./face-rules";
import { photo } from "./test-utils";
import { chromaSpread, PRINT_CHROMA, repairPrintDamage } from "./print-damage";

const luma = (d: Buffer, i: number) => 0.299 * d[i * 3]! + 0.587 * d[i * 3 + 1]! + 0.114 * d[i * 3 + 2]!;

describe("print damage", () => {
  it("fills a torn print's crease from its surroundings, leaves what is protected and the caller's pixels alone", async () => {
    const src = await decodePortrait(await photo("old-torn-1-sepia-three-children.jpg"), 1000);
    expect(chromaSpread(src.data)).toBeLessThan(PRINT_CHROMA);
    const before = Buffer.from(src.data);
    const { width: w, height: h } = src;
    // The crease across the print: a bright line at about 71 % of the height, over its left
    // quarter. Its first tenth is protected (as a face's features would be).
    const row = Math.round(h * 0.705);
    const guard = Math.round(w * 0.1);
    const protect = new Uint8Array(w * h);
    for (let y = row - 12; y <= row + 12; y++) for (let x = 0; x < guard; x++) protect[y * w + x] = 1;
    const repaired = await repairPrintDamage(src, protect);
    expect(repaired).not.toBeNull();
    expect(src.data.equals(before)).toBe(true);
    // The crease's mean step over the print 10 px above it, along a span of columns.
    const step = (d: Buffer, x0: number, x1: number) => {
      let sum = 0;
      for (let x = x0; x < x1; x++) {
        let bright = -255;
        for (let y = row - 3; y <= row + 3; y++)
          bright = Math.max(bright, luma(d, y * w + x) - luma(d, (y - 10) * w + x));
        sum += bright;
      }
      return sum / (x1 - x0);
    };
    const open: [number, number] = [guard + 10, Math.round(w * 0.25)];
    expect(step(src.data, ...open)).toBeGreaterThan(40);
    expect(step(repaired!.data, ...open)).toBeLessThan(step(src.data, ...open) / 3);
    // Inside the protected span (a few pixels off its edge, where the fill may reach) nothing changed.
    let changed = 0;
    for (let y = row - 8; y <= row + 8; y++)
      for (let x = 0; x < guard - 4; x++)
        for (let c = 0; c < 3; c++)
          if (repaired!.data[(y * w + x) * 3 + c] !== before[(y * w + x) * 3 + c]) changed++;
    expect(changed).toBe(0);
    expect(step(repaired!.data, 0, guard - 4)).toBeGreaterThan(40);
  }, 60_000);

  it("finds nothing to fill on a clean print", async () => {
    // A flat sepia print with a soft dark disc: no thin line, no speck.
    const [w, h] = [600, 400];
    const data = Buffer.alloc(w * h * 3);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const t = Math.min(1, Math.max(0, 0.5 - (Math.hypot(x - 300, y - 200) - 80) / 6));
        const v = 140 - 60 * t;
        const i = (y * w + x) * 3;
        [data[i], data[i + 1], data[i + 2]] = [v + 20, v + 5, v - 15];
      }
    expect(
      await repairPrintDamage({ data, width: w, height: h, channels: 3 }, new Uint8Array(w * h)),
    ).toBeNull();
  });
});
