/**
 * npm run examples: renders each effect's three example pairs with the local engine from
 * the fixture photos, as optimized WebP under public/examples/<id>/, and records in
 * src/generated/examples.json how many pairs each effect has. Effects the local engine
 * cannot render yet get none (the gallery shows a marked placeholder).
 */
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { EFFECTS } from "@/core/catalogue";
import { LOCAL_MODEL, LOCAL_PROVIDER_ID, LocalProvider } from "@/engine/providers/local/local-provider";
import { EngineError } from "@/core/ports/renderer";
import { effectInputs, renderFixtures } from "./effect-inputs";

const ROOT = path.resolve(__dirname, "..");
const OUT = path.join(ROOT, "public/examples");
const MANIFEST = path.join(ROOT, "src/generated/examples.json");
const SIZE = 640;

async function webp(bytes: Uint8Array, file: string) {
  await sharp(bytes)
    .resize(SIZE, SIZE, { fit: "cover", position: "attention" })
    .webp({ quality: 78, effort: 6 })
    .toFile(file);
}

async function main() {
  const only = process.argv.slice(2);
  const provider = new LocalProvider();
  const manifest: Record<string, { pairs: number; engine: string; model: string }> = fs.existsSync(MANIFEST)
    ? JSON.parse(fs.readFileSync(MANIFEST, "utf8"))
    : {};
  for (const effect of EFFECTS) {
    if (only.length && !only.includes(effect.id)) continue;
    const dir = path.join(OUT, effect.id);
    const inputs = effectInputs(effect.id);
    let made = 0;
    fs.rmSync(dir, { recursive: true, force: true });
    if (!provider.supports(effect.id)) {
      delete manifest[effect.id];
      console.log(`${effect.id}: not available in the local engine yet, placeholder`);
      continue;
    }
    fs.mkdirSync(dir, { recursive: true });
    for (const [i, names] of inputs.entries()) {
      const started = Date.now();
      const { images, output } = renderFixtures(provider, effect, names, 1000 + i);
      try {
        const out = await output;
        await webp(images[0]!.bytes, path.join(dir, `${i + 1}-before.webp`));
        await webp(out.bytes, path.join(dir, `${i + 1}-after.webp`));
        made++;
        console.log(`${effect.id} #${i + 1}: ${Date.now() - started} ms`);
      } catch (err) {
        if (!(err instanceof EngineError)) throw err;
        console.log(`${effect.id} #${i + 1}: refused (${err.reason})`);
      }
    }
    // Slots are filled in order; a refusal leaves the pair out.
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith("-after.webp"))
      .sort();
    files.forEach((f, k) => {
      const n = Number(f.split("-")[0]);
      if (n !== k + 1) {
        fs.renameSync(path.join(dir, f), path.join(dir, `${k + 1}-after.webp`));
        fs.renameSync(path.join(dir, `${n}-before.webp`), path.join(dir, `${k + 1}-before.webp`));
      }
    });
    // Which engine made the pairs: the gallery says so (these are the local engine's).
    if (made) manifest[effect.id] = { pairs: made, engine: LOCAL_PROVIDER_ID, model: LOCAL_MODEL };
    else delete manifest[effect.id];
  }
  fs.writeFileSync(
    MANIFEST,
    JSON.stringify(Object.fromEntries(Object.entries(manifest).sort()), null, 2) + "\n",
  );
  console.log(`wrote ${MANIFEST}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
