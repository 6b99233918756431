import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { detectFaces } from "../../vision/human";
import { photo, raw, request, type Raw } from "../../shared/test-utils";
import { render } from "./render";

const luma = (img: Raw, x: number, y: number) => {
  const i = (y * img.width + x) * 3;
  return 0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!;
};
const meanLuma = (img: Raw, x0: number, y0: number, x1: number, y1: number) => {
  let t = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) t += luma(img, x, y);
  return t / ((x1 - x0) * (y1 - y0));
};

describe("studio-portrait", () => {
  it("puts the person on black, darkens the clothing, and lights the face from one side", async () => {
    const input = await photo("portrait-female-1.jpg", 700);
    const out = await raw((await render(request("studio-portrait", input))).bytes);
    const src = await raw(await sharp(input).png().toBuffer());
    // Black background: the top corners.
    expect(meanLuma(out, 0, 0, 40, 40)).toBeLessThan(12);
    expect(meanLuma(out, out.width - 40, 0, out.width, 40)).toBeLessThan(12);
    expect(meanLuma(src, 0, 0, 40, 40)).toBeGreaterThan(60);

    const { faces } = await detectFaces(input);
    const [x, y, w, h] = faces[0]!.box.map(Math.round) as [number, number, number, number];
    // Side light: the face's left half is brighter than its right, more than in the input.
    const ratio = (img: Raw) =>
      meanLuma(img, x, y, x + (w >> 1), y + h) / meanLuma(img, x + (w >> 1), y, x + w, y + h);
    expect(ratio(out)).toBeGreaterThan(ratio(src) * 1.3);
    // Black t-shirt: the clothing at the bottom centre of the frame is near black.
    // (the shoulders, left and right of centre: the middle may be skin at a V-neck).
    const band = (img: Raw) =>
      (meanLuma(
        img,
        Math.round(img.width * 0.12),
        img.height - 30,
        Math.round(img.width * 0.3),
        img.height - 5,
      ) +
        meanLuma(
          img,
          Math.round(img.width * 0.7),
          img.height - 30,
          Math.round(img.width * 0.88),
          img.height - 5,
        )) /
      2;
    expect(band(out)).toBeLessThan(30);
    expect(band(src)).toBeGreaterThan(band(out) + 15);
  }, 60_000);

  it("refuses a photo without a face, clearly", async () => {
    const err = await render(
      request("studio-portrait", await photo("landscape-1-meadow-cc0.jpg", 500)),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).reason).toMatch(/No face/);
    expect((err as EngineError).code).toBe("noFace");
  }, 60_000);
});
