import { describe, expect, it } from "vitest";
import { density, growMask, open } from "./morphology";

describe("morphology", () => {
  it("opening removes a bright line narrower than the square and keeps a wide plateau", () => {
    const w = 40;
    const h = 20;
    const img = new Float32Array(w * h).fill(10);
    for (let y = 0; y < h; y++) img[y * w + 5] = 200; // 1 px bright line
    for (let y = 0; y < h; y++) for (let x = 20; x < 35; x++) img[y * w + x] = 120; // 15 px plateau
    const o = open(img, w, h, 2);
    expect(o[10 * w + 5]).toBe(10);
    expect(o[10 * w + 27]).toBe(120);
  });

  it("grows a mask and measures local density", () => {
    const w = 9;
    const mask = new Uint8Array(w * w);
    mask[4 * w + 4] = 1;
    const grown = growMask(mask, w, w, 1);
    expect(grown.reduce((a, b) => a + b, 0)).toBe(9);
    expect(density(grown, w, w, 1)[4 * w + 4]).toBe(1);
    expect(density(mask, w, w, 1)[4 * w + 4]).toBeCloseTo(1 / 9);
  });
});
