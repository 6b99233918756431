import { describe, expect, it } from "vitest";
import { inpaintRgb, inpaintWhole } from "./opencv";

describe("inpaintRgb", () => {
  it("gives exactly OpenCV's whole-image result while inpainting only around the mask", async () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let t = 0; t < 12; t++) {
      const w = 200 + Math.floor(rnd() * 200);
      const h = 150 + Math.floor(rnd() * 150);
      const rgb = Buffer.alloc(w * h * 3);
      for (let i = 0; i < rgb.length; i++) rgb[i] = Math.floor(rnd() * 256);
      // A speckled patch anywhere, touching the border in some cases.
      const mask = new Uint8Array(w * h);
      const cx = Math.floor(rnd() * w);
      const cy = Math.floor(rnd() * h);
      for (let y = cy; y < Math.min(h, cy + 3 + rnd() * 30); y++)
        for (let x = cx; x < Math.min(w, cx + 5 + rnd() * 60); x++) if (rnd() < 0.7) mask[y * w + x] = 1;
      const radius = 1 + Math.floor(rnd() * 6);
      const cropped = await inpaintRgb(rgb, w, h, mask, radius);
      const whole = await inpaintWhole(
        rgb,
        w,
        h,
        Uint8Array.from(mask, (v) => (v ? 255 : 0)),
        radius,
      );
      expect(cropped.equals(whole)).toBe(true);
    }
  });

  it("returns the image unchanged when nothing is masked", async () => {
    const rgb = Buffer.from([1, 2, 3, 4, 5, 6]);
    expect((await inpaintRgb(rgb, 2, 1, new Uint8Array(2), 3)).equals(rgb)).toBe(true);
  });
});
