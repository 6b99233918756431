import { describe, expect, it } from "vitest";
import { blurField } from "../../shared/clay/blur";
import { uniform } from "../../shared/random";
import { blurred, personBlur, sample } from "./coarse";

/**
 * The continued body of a tight crop is painted from wide blurs computed at a reduced
 * resolution (coarse.ts). They must be the same soft fields as the full-size float blur they
 * replace: no blocks, no stripes, the person's own colours near the matte's edge.
 */
describe("coarse blurs", () => {
  // A photo: a noisy red person (a disc over a tall body) on a noisy blue background.
  const w = 420;
  const h = 300;
  const rand = uniform(7);
  const rgb = new Uint8Array(w * h * 3);
  const matte = new Float32Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const inside = Math.hypot(x - 200, y - 110) < 70 || (Math.abs(x - 200) < 110 && y > 150);
      matte[i] = inside ? 1 : 0;
      const base = inside ? [200, 60, 50] : [40, 70, 210];
      for (let c = 0; c < 3; c++) rgb[i * 3 + c] = Math.round(base[c]! + (rand() - 0.5) * 60);
    }

  it.each([8, 20, 60])("matches the full-size matte-weighted blur (sigma %i)", (sigma) => {
    const weight = blurField(matte, w, h, sigma);
    const chan = new Float32Array(w * h);
    const full: Float32Array[] = [];
    for (let c = 0; c < 3; c++) {
      for (let i = 0; i < w * h; i++) chan[i] = rgb[i * 3 + c]! * matte[i]!;
      full.push(blurField(chan, w, h, sigma));
    }
    const coarse = personBlur(rgb, matte, w, h, sigma);
    const colour = new Float32Array(3);
    const m = new Float32Array(1);
    let worstColour = 0;
    let worstMatte = 0;
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        sample(coarse.matte, x, y, m);
        worstMatte = Math.max(worstMatte, Math.abs(m[0]! - weight[i]!));
        if (weight[i]! < 0.1) continue;
        sample(coarse.rgb, x, y, colour);
        for (let c = 0; c < 3; c++)
          worstColour = Math.max(worstColour, Math.abs(colour[c]! - full[c]![i]! / weight[i]!));
      }
    // Coverage within 3 %, colour within a few grey levels (of 255).
    expect(worstMatte).toBeLessThan(0.03);
    expect(worstColour).toBeLessThan(4);
    // Near the person's edge the colour is the person's red, not the background's blue.
    sample(coarse.rgb, 200, 110 - 68, colour);
    expect(colour[0]!).toBeGreaterThan(colour[2]! + 100);
  });

  it("reads back smoothly: no steps between neighbouring pixels", () => {
    const field = blurred(matte, w, h, 24);
    const v = new Float32Array(1);
    let prev = 0;
    let worstStep = 0;
    for (let x = 0; x < w; x++) {
      sample(field, x, 150, v);
      if (x) worstStep = Math.max(worstStep, Math.abs(v[0]! - prev));
      prev = v[0]!;
    }
    // A sigma-24 blur of a 0..1 edge changes by at most about 1/60 per pixel.
    expect(worstStep).toBeLessThan(0.025);
  });
});
