import { describe, expect, it } from "vitest";
import { getEffect } from "@/core/catalogue";
import { createCost } from "./cost";

describe("the Create button's cost", () => {
  it("charges one task per photo for an effect that renders each photo", () => {
    const effect = getEffect("gta-style-filter")!;
    expect(effect.input.mode).toBe("each");
    expect([0, 1, 2, 3, 10].map((n) => createCost(effect, n))).toEqual([2, 2, 4, 6, 20]);
  });

  it("charges one task for the effects that take their photos together", () => {
    for (const id of ["baby-face-generator", "hug-my-younger-self"]) {
      const effect = getEffect(id)!;
      expect(effect.input.mode, id).toBe("together");
      expect(
        [0, 1, 2].map((n) => createCost(effect, n)),
        id,
      ).toEqual([2, 2, 2]);
    }
  });
});
