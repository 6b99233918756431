import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { detectFaces } from "../../vision/human";
import { photo, raw, request } from "../../shared/test-utils";
import { requireFrontal } from "../../shared/face-rules";
import { BACKGROUND, OUTPUT, render } from "./render";

const refusal = async (bytes: Buffer) => {
  const err = await render(request("linkedIn-profile-photo-generator", bytes)).catch((e) => e);
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
};

describe("linkedIn-profile-photo-generator", () => {
  it("crops a square headshot with the face at about 60 % of the frame height on a solid background", async () => {
    const out = await render(request("linkedIn-profile-photo-generator", await photo("portrait-male-2.jpg")));
    expect([out.width, out.height]).toEqual([OUTPUT, OUTPUT]);
    const { faces } = await detectFaces(out.bytes);
    expect(faces).toHaveLength(1);
    const share = faces[0]!.box[3] / OUTPUT;
    expect(share).toBeGreaterThan(0.5);
    expect(share).toBeLessThan(0.7);
    // Solid neutral background in the top corners.
    const img = await raw(out.bytes);
    for (const x of [5, OUTPUT - 6]) {
      const i = (5 * OUTPUT + x) * 3;
      const d =
        Math.abs(img.data[i]! - BACKGROUND[0]) +
        Math.abs(img.data[i + 1]! - BACKGROUND[1]) +
        Math.abs(img.data[i + 2]! - BACKGROUND[2]);
      expect(d).toBeLessThan(40);
    }
  }, 60_000);

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
