import { describe, expect, it } from "vitest";
import { components } from "../../shared/components";
import { CUTS } from "./cuts";

/** A cut's shape rasterised in head units (X across in face widths, Y down in face heights). */
function raster(name: string, step = 0.01) {
  const cut = CUTS.find((c) => c.name === name)!;
  const xs = Math.round(2.8 / step);
  const ys = Math.round(3.6 / step);
  const mask = new Uint8Array(xs * ys);
  for (let j = 0; j < ys; j++)
    for (let i = 0; i < xs; i++)
      mask[j * xs + i] = cut.shape(-1.4 + i * step, -1.2 + j * step, () => 0.5) > 0.5 ? 1 : 0;
  return { mask, xs, ys, Y: (j: number) => -1.2 + j * step };
}

describe("hair-style-generator cuts", () => {
  it("draws the side ponytail as one piece with the head, hanging down past the chin", () => {
    // Before, the tail was an oval floating beside the head in cell 9 of every grid.
    const { mask, xs, ys, Y } = raster("side ponytail");
    const { labels, count } = components(mask, xs, ys);
    expect(count).toBe(1);
    // The one piece reaches from the crown (above the forehead) to below the chin (Y = 1).
    let top = Infinity;
    let bottom = -Infinity;
    for (let j = 0; j < ys; j++)
      for (let i = 0; i < xs; i++)
        if (labels[j * xs + i]) {
          top = Math.min(top, Y(j));
          bottom = Math.max(bottom, Y(j));
        }
    expect(top).toBeLessThan(-0.2);
    expect(bottom).toBeGreaterThan(1.3);
  });

  it("gives every cut a soft edge: no straight cut-off where the coverage jumps", () => {
    // Before, the pixie's side fringe was an ellipse cut off at two fixed columns: a
    // skin-coloured rectangular notch in the forehead of cell 1 of every grid. A soft edge
    // changes little over a step of 0.002 head units (under a pixel); a cut-off jumps.
    // (Sampled every 0.005: a straight cut-off runs along many of those rows or columns.)
    const step = 0.002;
    for (const cut of CUTS) {
      let worst = 0;
      for (let Y = -1.2; Y < 2.4; Y += 0.005)
        for (let X = -1.4; X < 1.4; X += 0.005) {
          const a = cut.shape(X, Y, () => 0.5);
          worst = Math.max(
            worst,
            Math.abs(cut.shape(X + step, Y, () => 0.5) - a),
            Math.abs(cut.shape(X, Y + step, () => 0.5) - a),
          );
        }
      expect(worst, cut.name).toBeLessThan(0.4);
    }
  });
});
