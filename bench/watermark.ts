/**
 * Watermark removal quality: PSNR against the clean originals inside and outside the
 * watermark regions of the fixtures, plus render time, and whether clean photos are refused
 * (no false removal). Run: npm run bench:watermark
 */
import fs from "node:fs";
import path from "node:path";
import { scoreWatermarkRemoval, WATERMARK_FIXTURES } from "../src/engine/effects/watermark-remover/measure";
import { render } from "../src/engine/effects/watermark-remover/render";
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
