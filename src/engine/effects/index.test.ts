import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { identifierFor, renderIndexes, staleIndexes } from "../../../scripts/effects-index";

describe("the generated effect indexes", () => {
  it("are up to date with the effect folders (run npm run effects:index after adding one)", () => {
    expect(staleIndexes(__dirname)).toEqual([]);
  });

  it("name modules by one rule from the spec's ids", () => {
    expect(identifierFor("3d-finger")).toBe("fx_3d_finger");
    expect(identifierFor("linkedIn-profile-photo-generator")).toBe("fx_linkedIn_profile_photo_generator");
  });

  it("refuse a folder whose effect.ts declares another id, or none", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "photofx-effects-"));
    try {
      fs.mkdirSync(path.join(dir, "one"));
      fs.writeFileSync(path.join(dir, "one", "effect.ts"), 'export const effect = { id: "two" };');
      expect(() => renderIndexes(dir)).toThrow(/must declare id: "one"/);
      fs.rmSync(path.join(dir, "one", "effect.ts"));
      expect(() => renderIndexes(dir)).toThrow(/has no effect.ts/);
      // Folders starting with "_" are not effects.
      fs.renameSync(path.join(dir, "one"), path.join(dir, "_draft"));
      expect(renderIndexes(dir)["catalogue.ts"]).not.toMatch(/_draft/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
