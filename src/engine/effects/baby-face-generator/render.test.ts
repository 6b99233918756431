import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { detectFaces, type Face } from "../../vision/human";
import { photo, raw, request } from "../../shared/test-utils";
import { LEFT_EYE, MARKS, RIGHT_EYE } from "./baby-shape";
import { render, OUTPUT } from "./render";

/** Eye size (square root of the eye outline's area), nose and mouth width, over face width. */
function proportions(face: Face) {
  const m = face.mesh;
  const d = ([a, b]: readonly [number, number]) => Math.hypot(m[a]![0] - m[b]![0], m[a]![1] - m[b]![1]);
  const area = (idx: readonly number[]) => {
    let s = 0;
    for (let k = 0; k < idx.length; k++) {
      const p = m[idx[k]!]!;
      const q = m[idx[(k + 1) % idx.length]!]!;
      s += p[0] * q[1] - q[0] * p[1];
    }
    return Math.abs(s) / 2;
  };
  const w = d(MARKS.face);
  return {
    eye: Math.sqrt((area(RIGHT_EYE) + area(LEFT_EYE)) / 2) / w,
    nose: d(MARKS.nose) / w,
    mouth: d(MARKS.mouth) / w,
  };
}

async function expectBabyProportions(out: Uint8Array, parents: Face[]) {
  const { faces } = await detectFaces(out);
  expect(faces.length).toBe(1);
  const baby = proportions(faces[0]!);
  const ps = parents.map(proportions);
  const avg = (k: "eye" | "nose" | "mouth") => (ps[0]![k] + ps[1]![k]) / 2;
  expect(baby.eye).toBeGreaterThan(avg("eye") * 1.03);
  expect(baby.nose).toBeLessThan(avg("nose") * 0.9);
  expect(baby.mouth).toBeLessThan(avg("mouth") * 0.9);
}

const images = (...bytes: Uint8Array[]) => ({ images: bytes.map((b) => ({ bytes: b, mime: "image/png" })) });

describe("baby-face-generator", () => {
  it("morphs two parent photos into one baby face with bigger eyes and a smaller nose and mouth", async () => {
    const mum = await photo("portrait-female-1.jpg", 600);
    const dad = await photo("portrait-male-1.jpg", 600);
    const out = await render(request("baby-face-generator", mum, images(mum, dad)));
    expect([out.width, out.height]).toEqual([OUTPUT, OUTPUT]);
    const parents = [(await detectFaces(mum)).faces[0]!, (await detectFaces(dad)).faces[0]!];
    await expectBabyProportions(out.bytes, parents);
    // A portrait on a soft, light background (corners), not the parents' photos.
    const img = await raw(out.bytes);
    const corner = img.data.subarray(0, 3);
    expect(Math.min(...corner)).toBeGreaterThan(180);
  }, 60_000);

  it("takes one couple photo with exactly two faces, reproducibly", async () => {
    const couple = await photo("couple-1-daguerreotype-1850s.jpg", 700);
    const out = await render(request("baby-face-generator", couple));
    await expectBabyProportions(out.bytes, (await detectFaces(couple)).faces);
    const again = await render(request("baby-face-generator", couple));
    expect(Buffer.from(again.bytes).equals(Buffer.from(out.bytes))).toBe(true);
  }, 60_000);

  it("refuses photos that do not show the two parents, clearly", async () => {
    const meadow = await photo("landscape-1-meadow-cc0.jpg", 400);
    const three = await photo("child-1-three-children-1860s.jpg", 500);
    const mum = await photo("portrait-female-1.jpg", 400);
    const refusal = (req: ReturnType<typeof request>): Promise<EngineError> =>
      render(req).then(
        () => {
          throw new Error("rendered instead of refusing");
        },
        (e: unknown) => e as EngineError,
      );

    const none = await refusal(request("baby-face-generator", meadow));
    expect(none).toBeInstanceOf(EngineError);
    expect(none.code).toBe("noFace");
    const crowd = await refusal(request("baby-face-generator", three));
    expect(crowd.code).toBe("needTwoFaces");
    expect(crowd.reason).toMatch(/exactly two faces/);
    const second = await refusal(request("baby-face-generator", mum, images(mum, meadow)));
    expect(second.code).toBe("noFace");
    expect(second.reason).toMatch(/second photo/);
    const several = await refusal(request("baby-face-generator", mum, images(three, mum)));
    expect(several.code).toBe("severalFaces");
  }, 60_000);
});
