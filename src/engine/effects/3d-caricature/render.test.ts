import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { detectFaces, type Face } from "../../vision/human";
import { photo, raw, request, type Raw } from "../../shared/test-utils";
import { render } from "./render";
import { boxDetail } from "../../shared/box-measures";

const faceOf = async (bytes: Uint8Array) => {
  const { faces, width } = await detectFaces(bytes);
  expect(faces.length).toBeGreaterThan(0);
  return { face: faces[0]!, width };
};
const dist = (f: Face, a: number, b: number) =>
  Math.hypot(f.mesh[a]![0] - f.mesh[b]![0], f.mesh[a]![1] - f.mesh[b]![1]);
/**
 * Eye size relative to the face, from the mesh: eye width (corner to corner) times opening
 * (lid to lid), over the face's width (cheek to cheek) squared. The mesh model keeps eye
 * proportions close to an average face, so it under-reports the enlargement; this product
 * still moves clearly.
 */
const eyeShare = (f: Face) =>
  ((dist(f, 33, 133) + dist(f, 362, 263)) * (dist(f, 159, 145) + dist(f, 386, 374))) /
  4 /
  dist(f, 234, 454) ** 2;

const blackPixels = (img: Raw) => {
  let n = 0;
  for (let i = 0; i < img.data.length; i += img.channels)
    if (img.data[i]! + img.data[i + 1]! + img.data[i + 2]! < 4) n++;
  return n;
};

describe("3d-caricature", () => {
  it("enlarges the head and the eyes, smooths the face, and leaves no holes", async () => {
    for (const name of ["portrait-female-3-nasa.png", "portrait-male-1.jpg"]) {
      const input = await photo(name, 600);
      const result = await render(request("3d-caricature", input));
      const before = await faceOf(input);
      const after = await faceOf(result.bytes);
      // Big head: the face takes a larger share of the frame.
      expect(after.face.box[2] / after.width).toBeGreaterThan((before.face.box[2] / before.width) * 1.15);
      // Big eyes: relative to the (already larger) face, the eyes are wider still.
      expect(eyeShare(after.face)).toBeGreaterThan(eyeShare(before.face) * 1.1);
      // Clay: much less fine detail (pores, noise, hair strands) inside the face.
      expect(await boxDetail(result.bytes, after.face.box)).toBeLessThan(
        (await boxDetail(input, before.face.box)) * 0.7,
      );
      // Continuous warp: an opaque image, no new black (empty) pixels.
      const out = await raw(result.bytes, 4);
      expect(out.data.every((v, i) => i % 4 !== 3 || v === 255)).toBe(true);
      expect(blackPixels(out)).toBeLessThanOrEqual(blackPixels(await raw(input, 4)) + 50);
    }
  }, 60_000);

  it("is reproducible: same photo and seed, same bytes", async () => {
    const input = await photo("portrait-female-3-nasa.png", 400);
    const a = await render(request("3d-caricature", input));
    const b = await render(request("3d-caricature", input));
    expect(Buffer.compare(Buffer.from(a.bytes), Buffer.from(b.bytes))).toBe(0);
  }, 60_000);

  it("refuses a photo without a face, or with several people", async () => {
    const none = await render(request("3d-caricature", await photo("landscape-1-meadow-cc0.jpg", 500))).catch(
      (e) => e,
    );
    expect(none).toBeInstanceOf(EngineError);
    expect((none as EngineError).code).toBe("noFace");
    expect((none as EngineError).reason).toMatch(/No face/);
    const couple = await render(
      request("3d-caricature", await photo("couple-1-daguerreotype-1850s.jpg", 600)),
    ).catch((e) => e);
    expect(couple).toBeInstanceOf(EngineError);
    expect((couple as EngineError).code).toBe("severalFaces");
    // A face turned away (a cameraman at his camera, three-quarter view) has no features to
    // exaggerate: refused before charging rather than returned unchanged.
    const turned = await render(
      request("3d-caricature", await photo("person-1-cameraman-bw.jpg", 512)),
    ).catch((e) => e);
    expect(turned).toBeInstanceOf(EngineError);
    expect((turned as EngineError).code).toBe("notFrontal");
  }, 60_000);
});
