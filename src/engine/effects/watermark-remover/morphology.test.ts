import { describe, expect, it } from "vitest";
import { uniform } from "../../shared/random";
import { components } from "../../shared/components";
import { density, dilate, growMask, open } from "./morphology";

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
  it("grows a mask exactly as a square dilation would, at the borders too", () => {
    const rand = uniform(5);
    for (let t = 0; t < 100; t++) {
      const w = 1 + Math.floor(rand() * 50);
      const h = 1 + Math.floor(rand() * 50);
      const r = Math.floor(rand() * 10);
      const mask = Uint8Array.from({ length: w * h }, () => (rand() < 0.03 ? 1 : 0));
      const square = Uint8Array.from(dilate(Float32Array.from(mask), w, h, r), (v) => (v > 0 ? 1 : 0));
      expect(growMask(mask, w, h, r)).toEqual(square);
    }
  });

  it("labels 4-connected parts", () => {
    // Two bars and a diagonal neighbour (not 4-connected): three parts.
    const w = 6;
    const mask = Uint8Array.from([1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0, 0]);
    const { labels, count } = components(mask, w, 3);
    expect(count).toBe(3);
    expect(labels[0]).toBe(labels[1]);
    expect(labels[9]).toBe(labels[11]);
    expect(labels[14]).not.toBe(labels[9]);
  });
});
