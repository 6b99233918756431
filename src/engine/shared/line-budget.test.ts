import { describe, expect, it } from "vitest";
import { budgetLines } from "./line-budget";
import { uniform } from "./random";

/** A 1 px circle outline (the subject's contour) and its filled mask. */
function disc(w: number, h: number, cx: number, cy: number, r: number) {
  const lines = new Uint8Array(w * h);
  const mask = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const d = Math.hypot(x - cx, y - cy);
      if (d <= r + 1) mask[y * w + x] = 255;
      if (Math.abs(d - r) < 0.7) lines[y * w + x] = 1;
    }
  return { lines, mask };
}

describe("budgetLines", () => {
  it("keeps a subject's contour whole and cuts dense background texture to a share of the ink", () => {
    const [w, h] = [400, 300];
    const { lines, mask } = disc(w, h, 200, 150, 80);
    const contour = lines.reduce((n, v) => n + v, 0);
    // Background texture: many short random strokes (seeded), 3-12 px, all round the disc.
    const rnd = uniform(7);
    for (let k = 0; k < 3000; k++) {
      const x0 = rnd() * w;
      const y0 = rnd() * h;
      const a = rnd() * Math.PI;
      const len = 3 + rnd() * 9;
      for (let t = 0; t < len; t++) {
        const x = Math.round(x0 + Math.cos(a) * t);
        const y = Math.round(y0 + Math.sin(a) * t);
        if (x < 0 || y < 0 || x >= w || y >= h || Math.hypot(x - 200, y - 150) < 84) continue;
        lines[y * w + x] = 1;
      }
    }
    const before = lines.reduce((n, v) => n + (v ? 1 : 0), 0);
    budgetLines(lines, w, h, {
      subject: mask,
      minLength: 0,
      cell: 25,
      cap: 0.05,
      subjectCap: 0.1,
      backgroundShare: 0.3,
    });
    let kept = 0;
    let background = 0;
    for (let i = 0; i < w * h; i++) {
      if (!lines[i]) continue;
      kept++;
      if (!mask[i]) background++;
    }
    // The texture was most of the ink; now the background holds at most its share.
    expect(before - contour).toBeGreaterThan(contour * 3);
    expect(background / kept).toBeLessThanOrEqual(0.3 + 1e-9);
    // The contour (inside the mask's edge) is all there.
    const { lines: ring } = disc(w, h, 200, 150, 80);
    let onRing = 0;
    for (let i = 0; i < w * h; i++) if (ring[i] && lines[i]) onRing++;
    expect(onRing / contour).toBeGreaterThan(0.95);
  });

  it("in a scene without a subject, keeps long contours and thins hatching to the density cap", () => {
    const [w, h] = [400, 300];
    const lines = new Uint8Array(w * h);
    // A long horizon at y = 100, and below it dense vertical hatching every 3 px (grass blades, 40 px).
    for (let x = 0; x < w; x++) lines[100 * w + x] = 1;
    for (let x = 0; x < w; x += 3) for (let y = 200; y < 240; y++) lines[y * w + x] = 1;
    const cell = 25;
    budgetLines(lines, w, h, {
      subject: null,
      minLength: 20,
      cell,
      cap: 0.1,
      subjectCap: 0.2,
      backgroundShare: 0.3,
    });
    let horizon = 0;
    for (let x = 0; x < w; x++) horizon += lines[100 * w + x]!;
    expect(horizon).toBe(w);
    // The hatching band: at most the cap's ink per cell (plus one piece's overshoot).
    for (let cy = 200; cy < 240; cy += cell)
      for (let cx = 0; cx + cell <= w; cx += cell) {
        let ink = 0;
        for (let y = cy; y < Math.min(h, cy + cell); y++)
          for (let x = cx; x < cx + cell; x++) ink += lines[y * w + x]!;
        expect(ink / (cell * cell)).toBeLessThan(0.1 + 40 / (cell * cell));
      }
  });
});
