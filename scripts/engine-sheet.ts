/**
 * npm run engine:sheet: every effect the local engine renders, on three fixture photos, in
 * one contact sheet (screenshots/engine-sheet.png, git-ignored) for review.
 */
import fs from "node:fs";
import path from "node:path";
import sharp, { type OverlayOptions } from "sharp";
import { EFFECTS } from "@/core/catalogue";
import { LocalProvider } from "@/engine/providers/local/local-provider";
import { EngineError } from "@/core/ports/renderer";
import { effectInputs, renderFixtures } from "./effect-inputs";

const ROOT = path.resolve(__dirname, "..");
const CELL = 260;
const LABEL = 220;
const escape = (s: string) => s.replace(/[<>&]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;" })[c]!);
const text = (s: string, w: number, h: number, size = 16) =>
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="#fff"/><text x="8" y="${h / 2}" font-family="sans-serif" font-size="${size}" fill="#222">${escape(s)}</text></svg>`,
  );

async function main() {
  const provider = new LocalProvider();
  const effects = EFFECTS.filter((e) => provider.supports(e.id));
  const skipped = EFFECTS.filter((e) => !provider.supports(e.id)).map((e) => e.id);
  const tiles: OverlayOptions[] = [];
  for (const [row, effect] of effects.entries()) {
    tiles.push({ input: text(effect.id, LABEL, CELL), left: 0, top: row * CELL });
    for (const [col, names] of effectInputs(effect.id).entries()) {
      let tile: Buffer;
      try {
        const out = await renderFixtures(provider, effect, names, 1).output;
        tile = await sharp(Buffer.from(out.bytes))
          .resize(CELL - 10, CELL - 10, { fit: "contain", background: "#eee" })
          .png()
          .toBuffer();
      } catch (err) {
        const reason = err instanceof EngineError ? err.reason : String(err);
        tile = await sharp(text(reason.slice(0, 40), CELL - 10, CELL - 10, 12))
          .png()
          .toBuffer();
      }
      tiles.push({ input: tile, left: LABEL + col * CELL + 5, top: row * CELL + 5 });
    }
  }
  const out = path.join(ROOT, "screenshots", "engine-sheet.png");
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await sharp({
    create: {
      width: LABEL + 3 * CELL,
      height: Math.max(1, effects.length) * CELL,
      channels: 3,
      background: "#ffffff",
    },
  })
    .composite(tiles)
    .png()
    .toFile(out);
  console.log(`wrote ${out}: ${effects.length} effects x 3 tasks`);
  if (skipped.length) console.log(`not in the local engine yet: ${skipped.join(", ")}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
