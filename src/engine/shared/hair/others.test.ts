import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import type { HeadGeometry } from "./hair-region";
import { MAX_CONTACT, otherPeople, requireHairApart } from "./others";

/**
 * A 200 x 200 frame: a face (an ellipse at (100, 100)) in a mop of hair (x 55-145, y 20-130),
 * the body below the chin, and whatever else `extra` puts on the person matte.
 */
function scene(extra: (x: number, y: number) => boolean) {
  const w = 200;
  const head: HeadGeometry = { cx: 100, top: 60, eyes: 85, brows: 78, chin: 140, fw: 70, fh: 80, oval: [] };
  const matte = Buffer.alloc(w * w);
  const hair = new Float32Array(w * w);
  const guard = new Uint8Array(w * w);
  for (let y = 0; y < w; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const face = ((x - 100) / 35) ** 2 + ((y - 100) / 42) ** 2 <= 1;
      const mop = x >= 55 && x <= 145 && y >= 20 && y <= 130;
      // A pocket inside the hair that the colour test missed (a shadowed under-layer).
      const pocket = x >= 62 && x < 67 && y >= 48 && y < 53;
      const body = y > 140 && x >= 40 && x <= 160;
      if (face || mop || body || extra(x, y)) matte[i] = 255;
      if (face) guard[i] = 1;
      else if (mop && !pocket) hair[i] = 1;
    }
  const none = new Uint8Array(w * w);
  return otherPeople(matte, hair, none, guard, none, head, w, w);
}

describe("someone else beside the head", () => {
  it("finds another head against the hair, and refuses it before charging with a translated reason", () => {
    // A second head (a disc) pressed against the right side of the hair, as a child's head
    // against its mother's (its face turned away: no face found).
    const other = (x: number, y: number) => (x - 165) ** 2 + (y - 80) ** 2 <= 900;
    const found = scene(other);
    expect(found.contact).toBeGreaterThan(MAX_CONTACT);
    // Every pixel of it that is not the hair is someone else's (never changed by the effects).
    let theirs = 0;
    let all = 0;
    for (let y = 0; y < 200; y++)
      for (let x = 146; x < 200; x++)
        if (other(x, y) && y < 136) {
          all++;
          if (found.mask[y * 200 + x]) theirs++;
        }
    expect(theirs / all).toBeGreaterThan(0.95);
    const err = (() => {
      try {
        requireHairApart(found);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe("hairTouchesOther");
    const en = JSON.parse(
      fs.readFileSync(path.resolve(__dirname, "../../../../messages/en/errors.json"), "utf8"),
    ) as { errors: { server: Record<string, string> } };
    expect(en.errors.server.task_hairTouchesOther).toMatch(
      /head or hair.*Your credits have been refunded\.$/,
    );
    expect(en.errors.server.input_hairTouchesOther).toMatch(/just you/);
  });

  it("keeps something beside the head that the hair does not touch, and renders", () => {
    const lump = (x: number, y: number) => (x - 182) ** 2 + (y - 60) ** 2 <= 144;
    const found = scene(lump);
    expect(found.contact).toBe(0);
    expect(found.mask[60 * 200 + 182]).toBe(1);
    expect(() => requireHairApart(found)).not.toThrow();
  });

  it("leaves a small pocket inside the hair to the hair (it is cut with it)", () => {
    const found = scene(() => false);
    expect(found.mask[50 * 200 + 64]).toBe(0);
    expect(found.contact).toBe(0);
  });
});
