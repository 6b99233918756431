/**
 * npm run bench:engine: for each effect the local engine renders, the median wall time over
 * BENCH_RUNS runs (default 5) on a 1 MP, a 2 MP and a 4 MP photo, and the peak RSS. Each
 * effect runs in its own child process, so peaks do not mix. Effect ids as arguments limit
 * the run to those effects.
 */
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { EFFECTS, operatorOptions } from "@/core/catalogue";
import { LocalProvider } from "@/engine/local/local-provider";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const ROOT = path.resolve(__dirname, "..");
const SIZES = [
  { label: "1 MP", w: 1333, h: 750 },
  { label: "2 MP", w: 1920, h: 1080 },
  { label: "4 MP", w: 2667, h: 1500 },
];

/** The photo each effect starts from: the meadow, or one it accepts (a watermark to remove). */
const BASE: Record<string, string> = {
  default: "landscape-1-meadow-cc0.jpg",
  "watermark-remover": "watermark-1-landscape-tiled.jpg", // the same meadow, watermarked
};

async function child(effectId: string) {
  const provider = new LocalProvider();
  const effect = EFFECTS.find((e) => e.id === effectId)!;
  const base = fs.readFileSync(path.join(ROOT, "tests/fixtures/photos", BASE[effectId] ?? BASE.default!));
  const result: Record<string, number> = {};
  for (const size of SIZES) {
    const bytes = await sharp(base).resize(size.w, size.h, { fit: "fill" }).jpeg({ quality: 90 }).toBuffer();
    const images = effect.input.mode === "together" ? [bytes, bytes].slice(0, effect.input.max) : [bytes];
    const options = operatorOptions(effect);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await provider.render({
        effectId,
        route: "v1",
        images: images.map((b) => ({ bytes: b, mime: "image/jpeg" })),
        options,
        prompt: "",
        seed: i,
      });
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    result[size.label] = times[Math.floor(times.length / 2)]!;
  }
  process.send!({ result, maxRssMb: process.resourceUsage().maxRSS / 1024 });
}

async function main() {
  if (process.argv[2] === "--child") return child(process.argv[3]!);
  const provider = new LocalProvider();
  const only = process.argv.slice(2);
  const ids = EFFECTS.filter((e) => provider.supports(e.id) && (!only.length || only.includes(e.id))).map(
    (e) => e.id,
  );
  console.log(`bench:engine on ${os.cpus().length} cores, ${RUNS} runs per size, one process per effect`);
  console.log(
    "\n| effect | 1 MP median ms | 2 MP median ms | 4 MP median ms | peak RSS MB |\n|---|---:|---:|---:|---:|",
  );
  for (const id of ids) {
    const out = await new Promise<{ result: Record<string, number>; maxRssMb: number }>((resolve, reject) => {
      const p = fork(__filename, ["--child", id], { execArgv: ["--import", "tsx"] });
      p.once("message", (m) => resolve(m as never));
      p.once("exit", (code) => code && reject(new Error(`${id} exited with ${code}`)));
    });
    const r = out.result;
    console.log(
      `| ${id} | ${r["1 MP"]!.toFixed(0)} | ${r["2 MP"]!.toFixed(0)} | ${r["4 MP"]!.toFixed(0)} | ${out.maxRssMb.toFixed(0)} |`,
    );
  }
  const missing = EFFECTS.filter((e) => !provider.supports(e.id)).map((e) => e.id);
  if (missing.length) console.log(`\nnot in the local engine yet: ${missing.join(", ")}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
