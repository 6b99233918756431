/**
 * Watermark removal quality: PSNR against the clean originals inside and outside the
 * watermark regions of the fixtures, plus render time, and whether clean photos are refused
 * (no false removal). Run: npm run bench:watermark
 */
import fs from "node:fs";
import path from "node:path";
import { scoreWatermarkRemoval, WATERMARK_FIXTURES } from "../src/engine/effects/watermark-remover/measure";
import { render } from "../src/engine/effects/watermark-remover/render";
import { applyMark, syntheticMark } from "../src/engine/effects/watermark-remover/synthetic";
import sharp from "sharp";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";

const PHOTOS = path.resolve(__dirname, "../tests/fixtures/photos");
const read = (name: string) => fs.readFileSync(path.join(PHOTOS, name));
const request = (bytes: Uint8Array): RenderRequest => ({
  effectId: "watermark-remover",
  route: "v1",
  images: [{ bytes, mime: "image/jpeg" }],
  options: {},
  prompt: "",
  seed: 1,
});
const db = (v: number) => v.toFixed(2);

async function main() {
  await render(request(read(WATERMARK_FIXTURES[0].watermarked))); // warm-up: model load
  console.log(
    "| fixture | region | inside before | inside after | gain | outside before | outside after | worsened px | ms |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const { watermarked, clean } of WATERMARK_FIXTURES) {
    const input = read(watermarked);
    const t = performance.now();
    const out = await render(request(input));
    const ms = Math.round(performance.now() - t);
    const s = await scoreWatermarkRemoval(input, out.bytes, read(clean));
    console.log(
      `| ${watermarked} | ${(s.regionShare * 100).toFixed(1)} % | ${db(s.insideBefore)} dB | ${db(s.insideAfter)} dB | ` +
        `${s.insideAfter - s.insideBefore >= 0 ? "+" : ""}${db(s.insideAfter - s.insideBefore)} dB | ${db(s.outsideBefore)} dB | ${db(s.outsideAfter)} dB | ${(s.worsened * 100).toFixed(2)} % | ${ms} |`,
    );
  }
  // Marks it was never tuned on (seeded: font, size, angle, colour, opacity, position).
  console.log("\n| seed | mark | photo | gain | worsened px |\n|---|---|---|---|---|");
  const photos = [
    "portrait-female-1.jpg",
    "landscape-1-meadow-cc0.jpg",
    "pet-1-cat.png",
    "object-coffee.png",
  ];
  let found = 0;
  for (let seed = 1; seed <= 16; seed++) {
    const cleanPhoto = await sharp(read(photos[seed % photos.length]!))
      .resize(900, 900, { fit: "inside" })
      .png()
      .toBuffer();
    const mark = syntheticMark(seed);
    const input = await applyMark(cleanPhoto, mark);
    const label = `"${mark.text}" ${mark.font}${mark.bold ? " bold" : ""}${mark.italic ? " italic" : ""} ${mark.colour} ${Math.round(mark.opacity * 100)} % ${mark.angle}°`;
    try {
      const out = await render(request(input));
      const s = await scoreWatermarkRemoval(input, out.bytes, cleanPhoto);
      found++;
      console.log(
        `| ${seed} | ${label} | ${photos[seed % photos.length]} | ${s.insideAfter - s.insideBefore >= 0 ? "+" : ""}${db(s.insideAfter - s.insideBefore)} dB | ${(s.worsened * 100).toFixed(2)} % |`,
      );
    } catch (err) {
      if (!(err instanceof EngineError)) throw err;
      console.log(`| ${seed} | ${label} | ${photos[seed % photos.length]} | not found (${err.code}) | - |`);
    }
  }
  console.log(`found ${found}/16`);
  const clean = fs
    .readdirSync(PHOTOS)
    .filter((f) => /\.(jpe?g|png)$/i.test(f) && !f.startsWith("watermark-"));
  let refused = 0;
  const changed: string[] = [];
  for (const f of clean) {
    try {
      await render(request(read(f)));
      changed.push(f);
    } catch (err) {
      if (!(err instanceof EngineError) || err.code !== "noWatermark") throw err;
      refused++;
    }
  }
  console.log(
    `\nclean photos refused as "no watermark": ${refused}/${clean.length}${changed.length ? `; processed: ${changed.join(", ")}` : ""}`,
  );
}

void main();
