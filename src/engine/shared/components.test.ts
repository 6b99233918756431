import { describe, expect, it } from "vitest";
import { largestComponent } from "./components";

describe("largestComponent", () => {
  it("keeps only the biggest 4-connected piece, and nothing for an empty mask", () => {
    // 5 x 3: a 2-pixel piece on the left, a 4-pixel piece on the right (diagonals do not join).
    const mask = Uint8Array.from([1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0]);
    expect([...largestComponent(mask, 5, 3)]).toEqual([0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0]);
    expect([...largestComponent(new Uint8Array(6), 3, 2)]).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
