import { describe, expect, it } from "vitest";
import { distanceOutside, erode, fillHoles, forEachInPolygon, keepComponents, type Mask } from "./mask";

/** A w x h mask with the pixels `set` returns true for. */
const make = (w: number, h: number, set: (x: number, y: number) => boolean): Mask => {
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data[y * w + x] = set(x, y) ? 1 : 0;
  return { data, width: w, height: h };
};

describe("mask helpers", () => {
  it("measures exact Euclidean distances on a non-square mask", () => {
    // One set pixel at (3, 2) in a 9 x 5 mask: the distance is the straight-line one.
    const d = distanceOutside(make(9, 5, (x, y) => x === 3 && y === 2));
    for (let y = 0; y < 5; y++)
      for (let x = 0; x < 9; x++) expect(d[y * 9 + x]).toBeCloseTo(Math.hypot(x - 3, y - 2), 5);
  });

  it("keeps only the seeded component, fills holes, and erodes by the radius", () => {
    // Two squares; the left one has a hole in the middle.
    const m = make(20, 10, (x, y) => (x < 7 && y < 7 && !(x === 3 && y === 3)) || (x > 12 && y > 4));
    const left = keepComponents(m, [[1, 1]]);
    expect(left.data[9 * 20 + 19]).toBe(0);
    expect(left.data[1 * 20 + 1]).toBe(1);
    const filled = fillHoles(left);
    expect(filled.data[3 * 20 + 3]).toBe(1);
    const core = erode(filled, 2);
    // A 7 x 7 square eroded by 2 leaves its 3 x 3 centre.
    expect(core.data.reduce((t, v) => t + v, 0)).toBe(9);
    expect(core.data[3 * 20 + 3]).toBe(1);
  });
});

describe("forEachInPolygon", () => {
  it("visits the pixels whose sample point is inside, clipped to the grid, row by row", () => {
    const seen: string[] = [];
    // A square from (1, 1) to (4, 3), partly off a 3-wide grid.
    forEachInPolygon(
      [
        [1, 1],
        [4, 1],
        [4, 3],
        [1, 3],
      ],
      3,
      10,
      (x, y) => seen.push(`${x},${y}`),
    );
    expect(seen).toEqual(["1,1", "2,1", "1,2", "2,2"]);
    const corners: string[] = [];
    forEachInPolygon(
      [
        [0.5, 0.5],
        [6.5, 0.5],
        [6.5, 6.5],
        [0.5, 6.5],
      ],
      10,
      10,
      (x, y) => corners.push(`${x},${y}`),
      { at: 0, step: 3 },
    );
    // Every third row and column from the box's corner (0, 0), sampled at the corners.
    expect(corners).toEqual(["3,3", "6,3", "3,6", "6,6"]);
  });
});
