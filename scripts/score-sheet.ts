/**
 * npm run engine:score [-- effect-id ...]: renders every effect of the local engine on every
 * task of the frozen scoring set (scripts/scoring-set.ts), one render at a time, with the
 * operator's options, into one contact sheet per effect: screenshots/score/<effect>.png
 * (git-ignored), 400 px tiles labelled with the photo name; a refusal is shown as its
 * message. Full-size outputs go to screenshots/score/out/<effect>/ for zooming, and
 * screenshots/score/results.json records each task's outcome (size, time or refusal).
 */
import fs from "node:fs";
import path from "node:path";
import sharp, { type OverlayOptions } from "sharp";
import { EFFECTS, operatorOptions } from "@/core/catalogue";
import { LocalProvider } from "@/engine/providers/local/local-provider";
import { EngineError } from "@/core/ports/renderer";
import { scoringTasks, taskLabel } from "./scoring-set";

const ROOT = path.resolve(__dirname, "..");
const PHOTOS = path.join(ROOT, "tests/fixtures/photos");
const OUT = path.join(ROOT, "screenshots", "score");
const TILE = 400;
const LABEL = 44;
const COLS = 6;
const PAD = 8;

const escape = (s: string) =>
  s.replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c]!);

/** Greedy word wrap for the refusal tiles. */
function wrap(s: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of s.split(/\s+/)) {
    if (line && (line + " " + word).length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

const svgText = (w: number, h: number, lines: string[], opts: { size: number; fill: string; bg: string }) =>
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="${opts.bg}"/>` +
      lines
        .map(
          (l, i) =>
            `<text x="8" y="${opts.size + 4 + i * (opts.size + 5)}" font-family="DejaVu Sans, sans-serif" font-size="${opts.size}" fill="${opts.fill}">${escape(l)}</text>`,
        )
        .join("") +
      `</svg>`,
  );

interface Outcome {
  task: string[];
  ok: boolean;
  ms: number;
  width?: number;
  height?: number;
  refusal?: string;
  code?: string;
}

async function main() {
  const only = process.argv.slice(2);
  const provider = new LocalProvider();
  const effects = EFFECTS.filter((e) => provider.supports(e.id) && (!only.length || only.includes(e.id)));
  const resultsFile = path.join(OUT, "results.json");
  fs.mkdirSync(OUT, { recursive: true });
  const results: Record<string, Outcome[]> = fs.existsSync(resultsFile)
    ? JSON.parse(fs.readFileSync(resultsFile, "utf8"))
    : {};
  for (const effect of effects) {
    const tasks = scoringTasks(effect.id);
    const dir = path.join(OUT, "out", effect.id);
    fs.mkdirSync(dir, { recursive: true });
    const tiles: OverlayOptions[] = [];
    const outcomes: Outcome[] = [];
    for (const [i, names] of tasks.entries()) {
      const label = taskLabel(names);
      const images = names.map((n) => ({
        bytes: fs.readFileSync(path.join(PHOTOS, n)),
        mime: n.endsWith(".png") ? "image/png" : "image/jpeg",
      }));
      const t0 = performance.now();
      let tile: Buffer;
      let status: string;
      try {
        const out = await provider.render({
          effectId: effect.id,
          route: "v1",
          images,
          options: operatorOptions(effect),
          prompt: "",
          seed: 1,
        });
        const ms = Math.round(performance.now() - t0);
        fs.writeFileSync(path.join(dir, `${label}.png`), out.bytes);
        tile = await sharp(Buffer.from(out.bytes))
          .resize(TILE, TILE, { fit: "contain", background: "#d8d8d8" })
          .flatten({ background: "#d8d8d8" })
          .png()
          .toBuffer();
        status = `${out.width}x${out.height}, ${ms} ms`;
        outcomes.push({ task: names, ok: true, ms, width: out.width, height: out.height });
      } catch (err) {
        const ms = Math.round(performance.now() - t0);
        const reason = err instanceof EngineError ? err.reason : String(err);
        const code = err instanceof EngineError ? err.code : "crash";
        tile = await sharp(
          svgText(TILE, TILE, ["REFUSED / FAILED", `code: ${code}`, "", ...wrap(reason, 40)], {
            size: 17,
            fill: "#7a1010",
            bg: "#fff4f0",
          }),
        )
          .png()
          .toBuffer();
        status = `refused (${code}), ${ms} ms`;
        outcomes.push({ task: names, ok: false, ms, refusal: reason, code });
      }
      const x = PAD + (i % COLS) * (TILE + PAD);
      const y = PAD + Math.floor(i / COLS) * (TILE + LABEL + PAD);
      tiles.push({ input: tile, left: x, top: y });
      tiles.push({
        input: await sharp(
          svgText(TILE, LABEL, [label.slice(0, 46), status], { size: 15, fill: "#111", bg: "#fff" }),
        )
          .png()
          .toBuffer(),
        left: x,
        top: y + TILE,
      });
      console.log(`${effect.id} | ${label} | ${status}`);
    }
    const rows = Math.ceil(tasks.length / COLS);
    const file = path.join(OUT, `${effect.id}.png`);
    await sharp({
      create: {
        width: PAD + Math.min(COLS, tasks.length) * (TILE + PAD),
        height: PAD + rows * (TILE + LABEL + PAD),
        channels: 3,
        background: "#9a9a9a",
      },
    })
      .composite(tiles)
      .png()
      .toFile(file);
    results[effect.id] = outcomes;
    fs.writeFileSync(resultsFile, JSON.stringify(results, null, 1));
    console.log(`wrote ${file}`);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
