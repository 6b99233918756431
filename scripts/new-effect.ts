/**
 * npm run effects:new -- <effect-id> "<English title>": adds an effect from the template in
 * scripts/templates/effect: its folder src/engine/effects/<id>/ (effect.ts, render.ts and
 * its test, prompt.ts, RECIPE.md) and its English copy src/i18n/effect-copy/en/<id>.json,
 * then rewrites the generated effect indexes. No other file is touched: the catalogue, the
 * effect page, submit, the local engine and the prompt table pick the effect up from there.
 * Other locales fall back to the English copy until their file is written (the messages
 * test lists the locales still missing it).
 */
import fs from "node:fs";
import path from "node:path";
import { effectFolders, renderIndexes } from "./effects-index";

const ROOT = path.resolve(__dirname, "..");
const TEMPLATE = path.join(__dirname, "templates/effect");
const EFFECTS = path.join(ROOT, "src/engine/effects");

/** The spec's ids: lowercase words (letters may be capitalised inside, as in linkedIn) joined by "-". */
const ID = /^[a-z0-9][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$/;

export function addEffect(id: string, title: string): string[] {
  if (!ID.test(id) || id.length > 64) throw new Error(`"${id}" is not an effect id (e.g. "soft-print")`);
  if (!title.trim() || /["\\\n]/.test(title)) throw new Error("give an English title without quotes");
  const folder = path.join(EFFECTS, id);
  if (fs.existsSync(folder)) throw new Error(`src/engine/effects/${id} exists already`);
  const orders = effectFolders(EFFECTS).map((f) => {
    const m = /\border:\s*(\d+)/.exec(fs.readFileSync(path.join(EFFECTS, f, "effect.ts"), "utf8"));
    return m ? Number(m[1]) : 0;
  });
  const fill = (text: string) =>
    text
      .replaceAll("__ID__", id)
      .replaceAll("__TITLE__", title.trim())
      .replaceAll("__ORDER__", String(Math.max(0, ...orders) + 1));
  const written: string[] = [];
  fs.mkdirSync(folder);
  for (const name of fs.readdirSync(TEMPLATE)) {
    if (!name.endsWith(".tmpl") || name.startsWith("copy.")) continue;
    const target = path.join(folder, name.replace(/\.tmpl$/, ""));
    fs.writeFileSync(target, fill(fs.readFileSync(path.join(TEMPLATE, name), "utf8")));
    written.push(path.relative(ROOT, target));
  }
  const copy = path.join(ROOT, "src/i18n/effect-copy/en", `${id}.json`);
  fs.writeFileSync(copy, fill(fs.readFileSync(path.join(TEMPLATE, "copy.en.json.tmpl"), "utf8")));
  written.push(path.relative(ROOT, copy));
  for (const [file, text] of Object.entries(renderIndexes(EFFECTS))) {
    fs.writeFileSync(path.join(EFFECTS, file), text);
    written.push(path.relative(ROOT, path.join(EFFECTS, file)));
  }
  return written;
}

if (require.main === module) {
  const [id, ...title] = process.argv.slice(2);
  if (!id || !title.length) {
    console.error('usage: npm run effects:new -- <effect-id> "<English title>"');
    process.exit(2);
  }
  try {
    for (const f of addEffect(id, title.join(" "))) console.log(`wrote ${f}`);
  } catch (err) {
    console.error(String(err instanceof Error ? err.message : err));
    process.exit(1);
  }
}
