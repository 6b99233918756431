import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { PHOTOS } from "../shared/test-utils";
import { explicitShare, nsfwScores } from "./nsfw";

describe("content safety (NSFWJS on device)", () => {
  it("passes every ordinary photo of the fixtures under the default threshold (no false refusals)", async () => {
    const names = fs.readdirSync(PHOTOS).filter((f) => /\.(jpe?g|png)$/i.test(f));
    expect(names.length).toBeGreaterThan(20);
    const worst: Array<[string, number]> = [];
    for (const name of names) {
      const s = await nsfwScores(fs.readFileSync(`${PHOTOS}/${name}`));
      const sum = s.porn + s.hentai + s.sexy + s.neutral + s.drawing;
      expect(sum).toBeCloseTo(1, 2);
      worst.push([name, explicitShare(s)]);
    }
    worst.sort((a, b) => b[1] - a[1]);
    // The default NSFW_THRESHOLD is 0.7; the most "explicit" fixture stays far under (0.08 measured).
    expect(worst[0]![1], JSON.stringify(worst.slice(0, 3))).toBeLessThan(0.3);
  }, 120_000);
});
