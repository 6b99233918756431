/**
 * npm run bench:memory: the whole server's memory, as an operator's `ps` sees it. For each
 * database mode (the embedded default, then PostgreSQL at TEST_DATABASE_URL), the real
 * server (`server.ts`, production mode: Hono API + Next.js, engine threads, and on the
 * embedded default its Postgres child) starts on a fresh DATA_DIR; its resident memory is
 * read from /proc summed over the server and every descendant process (the postgres
 * children too): once idle after start, then after one signed-in user has rendered every
 * effect once through the API (upload, bot-check, submit, poll). Summed RSS counts pages
 * shared between processes (Postgres's shared buffers, libraries) once per process; PSS
 * (proportional set size) splits them, so it is printed beside it.
 *
 * Needs a production build (`next build`). Env: BENCH_MODES (default "embedded,postgres"),
 * ENGINE_THREADS (default 2), TEST_DATABASE_URL (admin URL of the PostgreSQL server),
 * BENCH_IDLE_SECONDS (settle time before the idle reading, default 10), BENCH_RENDER=0 (idle
 * reading only).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { solveChallenge, type Challenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import pg from "pg";
import { EFFECTS, operatorOptions } from "@/core/catalogue";

const ROOT = path.resolve(__dirname, "..");
const PHOTOS = path.join(ROOT, "tests/fixtures/photos");
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const MODES = (process.env.BENCH_MODES ?? "embedded,postgres").split(",").map((m) => m.trim());
const THREADS = process.env.ENGINE_THREADS ?? "2";
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);

interface Usage {
  rss: number;
  pss: number;
  processes: number;
  postgres: number;
}

/** The process and all its descendants (from /proc/<pid>/stat's parent ids). */
function tree(root: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const c of parents.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

function usage(root: number): Usage {
  const u: Usage = { rss: 0, pss: 0, processes: 0, postgres: 0 };
  for (const pid of tree(root)) {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      u.rss += rss;
      u.pss += Number(/Pss:\s+(\d+)/.exec(rollup)?.[1] ?? 0) / 1024;
      u.processes++;
      if (fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("postgres")) u.postgres += rss;
    } catch {
      // exited meanwhile
    }
  }
  return u;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

async function waitReady(base: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/api/ready`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the server did not become ready in 120 s");
}

async function renderEveryEffect(base: string, origin: string, child: ChildProcess): Promise<string[]> {
  const res = await fetch(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({
      email: `mem-${Date.now()}@example.com`,
      password: "memory-bench-1",
      name: "Bench",
    }),
  });
  if (!res.ok) throw new Error(`sign-up answered ${res.status}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const headers = { cookie, origin };
  const rows: string[] = [];
  for (const effect of EFFECTS) {
    const t = performance.now();
    const urls: string[] = [];
    for (const name of effect.exampleInputs[0] ?? []) {
      const form = new FormData();
      const type = name.endsWith(".png") ? "image/png" : "image/jpeg";
      form.append("file", new Blob([fs.readFileSync(path.join(PHOTOS, name))], { type }), name);
      const up = (await (
        await fetch(`${base}/api/upload`, { method: "POST", headers, body: form })
      ).json()) as {
        url: string;
      };
      urls.push(up.url);
    }
    const challenge = (await (await fetch(`${base}/api/botcheck/challenge`)).json()) as Challenge;
    const solution = await solveChallenge({ challenge, deriveKey });
    const submit = await fetch(`${base}/api/img/nano-banana/submit`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({
        prompt: "",
        image_urls: urls,
        num_images: "1",
        turnstileToken: Buffer.from(JSON.stringify({ challenge, solution })).toString("base64"),
        imageType: effect.imageType,
        options: operatorOptions(effect),
      }),
    });
    const body = (await submit.json()) as { message?: string; data?: { taskIds: string[] } };
    let outcome = `refused: ${String(body.message).slice(0, 50)}`;
    const taskId = body.data?.taskIds[0];
    const until = Date.now() + 360_000;
    while (taskId) {
      if (child.exitCode !== null || Date.now() > until) {
        outcome = "no answer (server exited or task still pending after 6 minutes)";
        break;
      }
      const r = (await (
        await fetch(`${base}/api/img/nano-banana/taskResult`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ taskId }),
        })
      ).json()) as { code: number; failedReason: string | null };
      if (r.code === 1 || r.code === 2) {
        outcome = r.code === 1 ? "ok" : `failed: ${String(r.failedReason).slice(0, 50)}`;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    rows.push(`${effect.id}: ${Math.round(performance.now() - t)} ms, ${outcome}`);
  }
  return rows;
}

async function run(mode: string): Promise<{ mode: string; idle: Usage; after: Usage; orphans: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "photofx-mem-"));
  const port = await freePort();
  let databaseUrl: string | undefined;
  if (mode === "postgres") {
    const name = `photofx_mem_${process.pid}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  } else if (mode !== "embedded") {
    throw new Error(`unknown mode ${mode} (embedded or postgres)`);
  }
  const base = `http://127.0.0.1:${port}`;
  // As `npm start` runs it (package.json): two malloc arenas, a 4 MB young generation.
  const child = spawn(process.execPath, ["--max-semi-space-size=4", "--import", "tsx", "server.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2",
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: base,
      DATA_DIR: dataDir,
      ENGINE_THREADS: THREADS,
      LOG_LEVEL: "warn",
      SIGNUP_CREDITS: "200",
      AUTH_RATE_LIMIT: "false",
      RATE_LIMIT_UPLOADS_PER_MINUTE: "0",
      RATE_LIMIT_SUBMITS_PER_MINUTE: "0",
      ALTCHA_COST: "1",
      ALTCHA_MAX_COUNTER: "20",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: "" }),
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  child.once("exit", (code, signal) => {
    if (!stopping) console.error(`[${mode}] the server exited (code ${code}, signal ${signal})`);
  });
  let stopping = false;
  try {
    const t0 = performance.now();
    await waitReady(base, child);
    console.log(`[${mode}] ready in ${Math.round(performance.now() - t0)} ms`);
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const idle = usage(child.pid!);
    const rows = process.env.BENCH_RENDER === "0" ? [] : await renderEveryEffect(base, base, child);
    for (const r of rows) console.log(`[${mode}] ${r}`);
    const after = usage(child.pid!);
    const descendants = tree(child.pid!).slice(1);
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      stopping = true;
      child.kill("SIGTERM");
    });
    await new Promise((r) => setTimeout(r, 2000));
    // Zombies (state Z) are gone already; only an init that does not reap keeps them listed.
    const left = descendants.filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
      } catch {
        return false;
      }
    });
    for (const pid of left) {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").slice(0, 100);
      console.log(`[${mode}] still running after the server exited: ${pid} ${cmd}`);
    }
    const orphans = left.length;
    return { mode, idle, after, orphans };
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (databaseUrl) {
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query(`drop database if exists ${new URL(databaseUrl).pathname.slice(1)} with (force)`);
      await admin.end();
    }
  }
}

async function main() {
  const results = [];
  for (const mode of MODES) results.push(await run(mode));
  const mb = (n: number) => n.toFixed(0);
  console.log(
    `\nbench:memory, ${THREADS} engine threads, ${os.cpus().length} cores, Node ${process.version}\n`,
  );
  console.log(
    "| database | idle RSS, MB (server + children) | of which postgres | idle PSS | RSS after every effect once | PSS after | processes | left running after SIGTERM |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of results) {
    console.log(
      `| ${r.mode} | ${mb(r.idle.rss)} | ${mb(r.idle.postgres)} | ${mb(r.idle.pss)} | ${mb(r.after.rss)} | ${mb(r.after.pss)} | ${r.after.processes} | ${r.orphans} |`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
