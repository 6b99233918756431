import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EFFECTS } from "@/core/catalogue";
import { examplesWithheld } from "@/core/effect-definition";
import { realExamples } from "./examples";

const PUBLIC_EXAMPLES = path.resolve(import.meta.dirname, "../../../public/examples");

describe("example galleries", () => {
  it("never advertise a body edit on a real person's photo: no inputs, no pairs, no files", () => {
    const withheld = EFFECTS.filter(examplesWithheld);
    expect(withheld.map((e) => e.id)).toContain("boob-boost-effect");
    for (const effect of withheld) {
      expect(effect.exampleInputs, effect.id).toEqual([]);
      expect(realExamples(effect), effect.id).toEqual([]);
      const dir = path.join(PUBLIC_EXAMPLES, effect.id);
      const files = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
      expect(files, effect.id).toEqual([]);
    }
  });

  it("point only at files that exist, for every other effect", () => {
    for (const effect of EFFECTS.filter((e) => !examplesWithheld(e))) {
      for (const pair of realExamples(effect)) {
        for (const url of [pair.before, pair.after]) {
          expect(fs.existsSync(path.join(PUBLIC_EXAMPLES, "..", url)), `${effect.id}: ${url}`).toBe(true);
        }
      }
    }
  });
});
