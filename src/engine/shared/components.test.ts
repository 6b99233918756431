import { describe, expect, it } from "vitest";
import { forEachPiece8, largestComponent } from "./components";

describe("largestComponent", () => {
  it("keeps only the biggest 4-connected piece, and nothing for an empty mask", () => {
    // 5 x 3: a 2-pixel piece on the left, a 4-pixel piece on the right (diagonals do not join).
    const mask = Uint8Array.from([1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0]);
    expect([...largestComponent(mask, 5, 3)]).toEqual([0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0]);
    expect([...largestComponent(new Uint8Array(6), 3, 2)]).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe("forEachPiece8", () => {
  it("joins diagonal neighbours into one piece and visits pieces in scan order of their first pixel", () => {
    // 4 x 3:  X . . X
    //         . X . .
    //         . . . X
    const mask = Uint8Array.from([1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1]);
    const pieces: number[][] = [];
    forEachPiece8(mask, 4, 3, (piece) => {
      pieces.push([...piece].sort((a, b) => a - b));
      if (piece.length === 1) for (const p of piece) mask[p] = 0;
    });
    expect(pieces).toEqual([[0, 5], [3], [11]]);
    // A piece cleared by its visit is gone from the mask; the others are untouched.
    expect([...mask]).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
  });
});
