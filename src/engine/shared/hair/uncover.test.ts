import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import type { HairRegion } from "./hair-region";
import { faceCover, faceHidden, MAX_FACE_HIDDEN, requireFaceUncovered } from "./uncover";

/** A 100 x 100 head: the face oval a disc of radius 30 at (50, 50), eyes at row 40, a lock over `cover` columns. */
function head(cover: (x: number, y: number) => boolean): HairRegion {
  const w = 100;
  const oval = new Uint8Array(w * w);
  const lock = new Uint8Array(w * w);
  for (let y = 0; y < w; y++)
    for (let x = 0; x < w; x++)
      if (Math.hypot(x - 50, y - 50) < 30) {
        oval[y * w + x] = 1;
        if (cover(x, y)) lock[y * w + x] = 1;
      }
  const none = new Uint8Array(w * w);
  return {
    alpha: new Float32Array(w * w),
    oval,
    skin: none,
    guard: none,
    half: new Float32Array(w),
    head: {
      cx: 50,
      top: 20,
      eyes: 40,
      brows: 35,
      chin: 80,
      fw: 60,
      fh: 60,
      oval: [],
      mid: [
        [50, 20],
        [50, 80],
      ],
      // Eyes at (38, 40) and (62, 40), 5 px half-widths.
      eyeSpots: [
        [38, 40, 5],
        [62, 40, 5],
      ],
    },
    lock,
    features: none,
    others: { mask: none, contact: 0 },
  };
}

describe("hair over the face", () => {
  it("measures the share of the face below the eyes a lock hides", () => {
    expect(faceHidden(head(() => false))).toBe(0);
    // A strand over the outer edge of one cheek: a small share, rendered.
    const side = faceHidden(head((x) => x > 74));
    expect(side).toBeGreaterThan(0.03);
    expect(side).toBeLessThan(MAX_FACE_HIDDEN);
    expect(() => requireFaceUncovered(head((x) => x > 74))).not.toThrow();
    // A lock above the eyes (a fringe) does not count: the cheeks are bare.
    expect(faceHidden(head((_, y) => y < 40))).toBe(0);
  });

  it("refuses, with a translated reason, hair over most of the face", () => {
    const err = (() => {
      try {
        requireFaceUncovered(head((x) => x > 40));
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe("hairOverFace");
    const en = JSON.parse(
      fs.readFileSync(path.resolve(__dirname, "../../../../messages/en/errors.json"), "utf8"),
    ) as { errors: { server: Record<string, string> } };
    expect(en.errors.server.task_hairOverFace).toMatch(/face.*Your credits have been refunded\.$/);
    expect(en.errors.server.input_hairOverFace).toMatch(/face/);
  });

  it("renders hair over one cheek, refuses it across an eye, the middle of the face or both cheeks", () => {
    // A lock down the outer side of one cheek, beside the eye (its outer side): the most
    // common portrait (before, refused past a tenth of the face: this hides about a fifth).
    const cheek = (x: number, y: number) => x > 66 && y > 32;
    const side = faceCover(head(cheek));
    expect(side.share).toBeGreaterThan(0.1);
    expect(side.sides).toBe(1);
    expect(() => requireFaceUncovered(head(cheek))).not.toThrow();
    // Across the eye (the lock all round it, as it never takes the eye itself).
    const eye = (x: number, y: number) => x > 54 && y > 32 && Math.hypot(x - 62, (y - 40) * 1.6) > 5.5;
    expect(faceCover(head(eye)).eye).toBeGreaterThan(0.75);
    expect(() => requireFaceUncovered(head(eye))).toThrow(EngineError);
    // Over the nose and mouth, even as a narrow strand.
    expect(() => requireFaceUncovered(head((x, y) => Math.abs(x - 50) < 3 && y > 45))).toThrow(EngineError);
    // Over both cheeks: no uncovered side to rebuild either from.
    expect(() => requireFaceUncovered(head((x, y) => (x > 70 || x < 30) && y > 40))).toThrow(EngineError);
  });
});
