/**
 * npm run bench:memory: the engine's share of the server's memory. The render pool (worker
 * threads inside the server process, ENGINE_THREADS of them, 2 here) renders every effect
 * once on its first example photo, plus the content-safety screen, then the process's
 * resident memory is read (VmRSS now, VmHWM its peak) from /proc. The web half (Next.js,
 * the database driver) adds its own: the hardening issue budgets the whole process.
 */
import fs from "node:fs";
import path from "node:path";
import { EFFECTS, operatorOptions } from "@/core/catalogue";
import { createEnginePool } from "@/engine/providers/local/pool";

const PHOTOS = path.resolve(__dirname, "../tests/fixtures/photos");
const THREADS = Number(process.env.ENGINE_THREADS ?? 2);

function memory(): { rss: number; peak: number } {
  const status = fs.readFileSync("/proc/self/status", "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

async function main() {
  const before = memory();
  const pool = createEnginePool({ threads: THREADS });
  const rows: string[] = [];
  for (const effect of EFFECTS) {
    if (!pool.supports(effect.id)) continue;
    const names = effect.exampleInputs[0] ?? [];
    const images = names.map((n) => ({
      bytes: fs.readFileSync(path.join(PHOTOS, n)),
      mime: n.endsWith(".png") ? "image/png" : "image/jpeg",
    }));
    const t = performance.now();
    let outcome = "ok";
    try {
      await pool.screen({ images, threshold: 0.7, kind: "input" });
      await pool.render({
        effectId: effect.id,
        route: "v1",
        images,
        options: operatorOptions(effect),
        prompt: "",
        seed: 1,
      });
    } catch (err) {
      outcome = `refused: ${(err as Error).message.slice(0, 40)}`;
    }
    const m = memory();
    rows.push(`| ${effect.id} | ${Math.round(performance.now() - t)} | ${m.rss.toFixed(0)} | ${outcome} |`);
  }
  const after = memory();
  console.log(`bench:memory, ${THREADS} engine threads\n`);
  console.log("| effect (in order) | ms | process RSS after, MB | outcome |\n|---|---:|---:|---|");
  for (const r of rows) console.log(r);
  console.log(
    `\nprocess RSS: ${before.rss.toFixed(0)} MB before the pool, ${after.rss.toFixed(0)} MB after every effect once; peak ${after.peak.toFixed(0)} MB`,
  );
  await pool.close();
}

void main();
