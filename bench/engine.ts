/**
 * npm run bench:engine: for each effect the local engine renders, the median wall time over
 * BENCH_RUNS runs (default 5) on a 1 MP, a 2 MP and a 4 MP photo, the first render apart
 * (it loads the models: once per worker in production), and the peak RSS. Each
 * effect runs in its own child process, so peaks do not mix. Effect ids as arguments limit
 * the run to those effects. BENCH_PHOTO (a fixture's file name, e.g. portrait-female-1.jpg)
 * starts every effect from that photo, fitted: the face path of effects that also take
 * landscapes (GTA, stickers, the pixel styles), which the meadow does not exercise.
 */
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { EFFECTS, operatorOptions } from "@/core/catalogue";
import { LOCAL_INPUT_CHECKS } from "@/engine/effects/local";
import { LocalProvider } from "@/engine/providers/local/local-provider";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PHOTO = process.env.BENCH_PHOTO;
const ROOT = path.resolve(__dirname, "..");
const SIZES = [
  { label: "1 MP", w: 1333, h: 750 },
  { label: "2 MP", w: 1920, h: 1080 },
  { label: "4 MP", w: 2667, h: 1500 },
];

/**
 * The photos each effect starts from (one task's inputs): the meadow, or what the effect
 * accepts: a watermark to remove, a portrait for the people effects (pairs for the
 * two-photo ones), an adult upper body for the bust effect.
 */
const BASE: Record<string, string[]> = {
  default: ["landscape-1-meadow-cc0.jpg"],
  "watermark-remover": ["watermark-1-landscape-tiled.jpg"], // the same meadow, watermarked
  "boob-boost-effect": ["portrait-female-4-hopper-navy.jpg"],
  "baby-face-generator": ["portrait-female-1.jpg", "portrait-male-1.jpg"],
  "hug-my-younger-self": ["portrait-male-1.jpg", "child-2-girl-1860s-crop.jpg"],
};
/** Effects that need a face: their photo is fitted into the frame, not stretched. */
const PORTRAIT = ["portrait-female-1.jpg"];

async function child(effectId: string) {
  const provider = new LocalProvider();
  const effect = EFFECTS.find((e) => e.id === effectId)!;
  const names = PHOTO
    ? [PHOTO]
    : (BASE[effectId] ?? (LOCAL_INPUT_CHECKS[effectId] ? PORTRAIT : BASE.default!));
  const fitted = Boolean(PHOTO) || Boolean(LOCAL_INPUT_CHECKS[effectId]);
  const photos = names.map((n) => fs.readFileSync(path.join(ROOT, "tests/fixtures/photos", n)));
  const options = operatorOptions(effect);
  const result: Record<string, number> = {};
  const render = (images: Buffer[], seed: number) =>
    provider.render({
      effectId,
      route: "v1",
      images: images.map((b) => ({ bytes: b, mime: "image/jpeg" })),
      options,
      prompt: "",
      seed,
    });
  for (const size of SIZES) {
    // Faces keep their shape (fitted on a grey ground); other photos fill the frame.
    const images = await Promise.all(
      photos.map((p) =>
        sharp(p)
          .resize(size.w, size.h, {
            fit: fitted ? "contain" : "fill",
            background: "#808080",
          })
          .jpeg({ quality: 90 })
          .toBuffer(),
      ),
    );
    if (size === SIZES[0]) {
      // The first render loads the models this process needs: reported apart.
      const t = performance.now();
      try {
        await render(images, 0);
      } catch (err) {
        // The effect refuses its bench photo (its rules changed): say so instead of a time.
        const code = (err as { code?: string }).code;
        if (!code) throw err;
        process.send!({ refused: code, maxRssMb: process.resourceUsage().maxRSS / 1024 });
        return;
      }
      result.first = performance.now() - t;
    }
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await render(images, i);
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
  console.log(
    `bench:engine on ${os.cpus().length} cores, ${RUNS} runs per size, one process per effect${PHOTO ? `, every effect from ${PHOTO}` : ""}`,
  );
  console.log(
    "\n| effect | first render ms (model load) | 1 MP median ms | 2 MP median ms | 4 MP median ms | peak RSS MB |\n|---|---:|---:|---:|---:|---:|",
  );
  for (const id of ids) {
    const out = await new Promise<{ result?: Record<string, number>; refused?: string; maxRssMb: number }>(
      (resolve, reject) => {
        const p = fork(__filename, ["--child", id], { execArgv: ["--import", "tsx"] });
        p.once("message", (m) => resolve(m as never));
        p.once("exit", (code) => code && reject(new Error(`${id} exited with ${code}`)));
      },
    );
    if (!out.result) {
      console.log(
        `| ${id} | refused its bench photo (${out.refused}): not timed | | | | ${out.maxRssMb.toFixed(0)} |`,
      );
      continue;
    }
    const r = out.result;
    console.log(
      `| ${id} | ${r.first!.toFixed(0)} | ${r["1 MP"]!.toFixed(0)} | ${r["2 MP"]!.toFixed(0)} | ${r["4 MP"]!.toFixed(0)} | ${out.maxRssMb.toFixed(0)} |`,
    );
  }
  const missing = EFFECTS.filter((e) => !provider.supports(e.id)).map((e) => e.id);
  if (missing.length) console.log(`\nnot in the local engine yet: ${missing.join(", ")}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
