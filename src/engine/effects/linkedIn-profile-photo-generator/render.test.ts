import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { detectFaces } from "../../vision/human";
import { photo, raw, request } from "../../shared/test-utils";
import { requireFrontal } from "../../shared/face-rules";
import { brightRunWidth, largestDarkBlob, lumaAt } from "../../shared/portrait/measure";
import { BACKGROUND, OUTPUT, render } from "./render";

const refusal = async (bytes: Buffer) => {
  const err = await render(request("linkedIn-profile-photo-generator", bytes)).catch((e) => e);
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
};

describe("linkedIn-profile-photo-generator", () => {
  // portrait-male-1 (the photo ends at the chest: was a dark bar) and portrait-female-1
  // (a V-neck: was a skin-coloured hole), 800 px inputs to keep the test quick.
  for (const name of ["portrait-male-1.jpg", "portrait-female-1.jpg"]) {
    it(`${name}: face ~60 %, clean backdrop, a blazer with a shirt V and no dark hole in the torso`, async () => {
      const out = await render(request("linkedIn-profile-photo-generator", await photo(name, 800)));
      expect([out.width, out.height]).toEqual([OUTPUT, OUTPUT]);
      const { faces } = await detectFaces(out.bytes);
      expect(faces).toHaveLength(1);
      const share = faces[0]!.box[3] / OUTPUT;
      expect(share).toBeGreaterThan(0.5);
      expect(share).toBeLessThan(0.72);
      const img = await raw(out.bytes);

      // Backdrop: the top corners are the neutral grey, and the strips down both sides
      // (above the shoulders, outside the edge band) are uniform.
      for (const x of [5, OUTPUT - 6]) {
        const i = (5 * OUTPUT + x) * 3;
        const d =
          Math.abs(img.data[i]! - BACKGROUND[0]) +
          Math.abs(img.data[i + 1]! - BACKGROUND[1]) +
          Math.abs(img.data[i + 2]! - BACKGROUND[2]);
        expect(d).toBeLessThan(40);
      }
      const strip: number[] = [];
      for (let y = 0; y < OUTPUT * 0.45; y += 2)
        for (const x of [2, 20, 40, OUTPUT - 41, OUTPUT - 21, OUTPUT - 3]) strip.push(lumaAt(img, x, y));
      expect(Math.max(...strip) - Math.min(...strip)).toBeLessThan(14);

      // Torso (below the chin, between the shoulders): no near-black hole or bar.
      const [fx, , fw] = faces[0]!.box;
      const cx = Math.round(fx + fw / 2);
      const chin = Math.round(Math.max(...faces[0]!.mesh.map((p) => p[1])));
      const torso = {
        x0: Math.round(OUTPUT * 0.12),
        y0: Math.min(OUTPUT - 40, chin + 20),
        x1: Math.round(OUTPUT * 0.88),
        y1: OUTPUT,
      };
      expect(largestDarkBlob(img, torso, 30)).toBeLessThan(0.01);

      // Attire: near the bottom, shirt-coloured pixels at the centre flanked by darker jacket,
      // and the shirt's run narrows downwards (a V between the lapels).
      const yLow = OUTPUT - 6;
      const yHigh = Math.min(OUTPUT - 30, chin + Math.round((OUTPUT - chin) * 0.55));
      const shirtLevel = 150;
      const low = brightRunWidth(img, cx, yLow, shirtLevel);
      expect(low).toBeGreaterThan(8);
      expect(lumaAt(img, cx - Math.round(fw * 0.6), yLow)).toBeLessThan(100);
      expect(lumaAt(img, cx + Math.round(fw * 0.6), yLow)).toBeLessThan(100);
      const high = brightRunWidth(img, cx, yHigh, shirtLevel);
      expect(high === 0 || high > low).toBe(true);
    }, 60_000);
  }

  it("refuses, before charging, a source under 50 px, no face, and several faces", async () => {
    const tiny = await sharp(await photo("portrait-female-1.jpg"))
      .resize(40, 40)
      .png()
      .toBuffer();
    expect((await refusal(tiny)).code).toBe("tooSmall");
    expect((await refusal(await photo("landscape-1-meadow-cc0.jpg", 600))).code).toBe("noFace");
    expect((await refusal(await photo("couple-1-daguerreotype-1850s.jpg"))).code).toBe("severalFaces");
  }, 60_000);

  it("refuses a face turned too far from frontal (yaw or pitch past about 20 degrees)", async () => {
    const { faces } = await detectFaces(await photo("portrait-male-2.jpg"));
    const frontal = faces[0]!;
    expect(requireFrontal(frontal)).toBe(frontal);
    for (const rotation of [
      { yaw: 0.6, pitch: 0, roll: 0 },
      { yaw: -0.5, pitch: 0, roll: 0 },
      { yaw: 0, pitch: 0.5, roll: 0 },
    ]) {
      let code: string | undefined;
      try {
        requireFrontal({ ...frontal, rotation });
      } catch (e) {
        code = (e as EngineError).code;
      }
      expect(code).toBe("notFrontal");
    }
  }, 60_000);
});
