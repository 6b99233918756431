/**
 * npm run bench:load: submits and polls at a fixed rate for a fixed time, then checks that
 * credits balance. Two runs: the embedded defaults (one process: PGlite, in-process queue)
 * and scale-out (two web processes and two workers on Postgres and Redis, local disk shared).
 * Prints throughput, p50/p99 latency of submit and poll, errors, and the credit check.
 *
 * Env: LOAD_RATE (submits per second, default 8), LOAD_SECONDS (default 20),
 * TEST_DATABASE_URL (admin URL of the Postgres server), TEST_REDIS_URL.
 */
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { solveChallenge, type Challenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import pg from "pg";
import sharp from "sharp";

const RATE = Number(process.env.LOAD_RATE ?? 8);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 20);
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const ROOT = path.resolve(__dirname, "..");

function start(script: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = fork(path.join(ROOT, script), [], {
    cwd: ROOT,
    execArgv: ["--import", "tsx"],
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}
const stop = (c: ChildProcess) =>
  new Promise<void>((resolve) => {
    c.once("exit", () => resolve());
    c.kill("SIGTERM");
  });

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * p))]! : 0;
};

interface Result {
  name: string;
  submitted: number;
  succeeded: number;
  failed: number;
  errors: number;
  submitMs: number[];
  pollMs: number[];
  endToEndMs: number[];
  seconds: number;
  creditsBalance: boolean;
}

async function drive(name: string, bases: string[], shared: Record<string, string>): Promise<Result> {
  // One user per web process, each with credits for the whole run.
  const users: Array<{ base: string; cookie: string; id: string }> = [];
  for (const [i, base] of bases.entries()) {
    const res = await fetch(`${base}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: shared.APP_URL! },
      body: JSON.stringify({
        email: `load${i}-${Date.now()}@example.com`,
        password: "load-password-1",
        name: "Load",
      }),
    });
    const body = (await res.json()) as { user: { id: string } };
    users.push({
      base,
      cookie: res.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; "),
      id: body.user.id,
    });
  }
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#3366aa" } })
    .png()
    .toBuffer();
  const result: Result = {
    name,
    submitted: 0,
    succeeded: 0,
    failed: 0,
    errors: 0,
    submitMs: [],
    pollMs: [],
    endToEndMs: [],
    seconds: SECONDS,
    creditsBalance: false,
  };
  const inflight: Promise<void>[] = [];
  const wins = new Map<string, number>();
  const started = Date.now();

  const one = async (n: number) => {
    const u = users[n % users.length]!;
    const headers = { cookie: u.cookie, origin: shared.APP_URL! };
    try {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(png)], { type: "image/png" }), "a.png");
      const up = (await (
        await fetch(`${u.base}/api/upload`, { method: "POST", headers, body: form })
      ).json()) as { url: string };
      const challenge = (await (await fetch(`${u.base}/api/botcheck/challenge`)).json()) as Challenge;
      const solution = await solveChallenge({ challenge, deriveKey });
      const token = Buffer.from(JSON.stringify({ challenge, solution })).toString("base64");
      const t0 = performance.now();
      const res = await fetch(`${u.base}/api/img/nano-banana/submit`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({
          prompt: "",
          image_urls: [up.url],
          num_images: "1",
          turnstileToken: token,
          imageType: "nano-banana-lora-inverted-face-filter",
        }),
      });
      result.submitMs.push(performance.now() - t0);
      if (!res.ok) {
        result.errors++;
        return;
      }
      result.submitted++;
      const taskId = ((await res.json()) as { data: { taskIds: string[] } }).data.taskIds[0]!;
      for (;;) {
        // Poll through another web process than the one that took the submit.
        const via = users[(n + 1) % users.length]!.base;
        const p0 = performance.now();
        const r = await fetch(`${via}/api/img/nano-banana/taskResult`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ taskId }),
        });
        result.pollMs.push(performance.now() - p0);
        const a = (await r.json()) as { code: number };
        if (a.code === 1) {
          result.succeeded++;
          wins.set(u.id, (wins.get(u.id) ?? 0) + 1);
        }
        if (a.code === 2) result.failed++;
        if (a.code === 1 || a.code === 2) break;
        await new Promise((s) => setTimeout(s, 250));
      }
      result.endToEndMs.push(performance.now() - t0);
    } catch {
      result.errors++;
    }
  };

  for (let n = 0; Date.now() - started < SECONDS * 1000; n++) {
    inflight.push(one(n));
    await new Promise((s) => setTimeout(s, 1000 / RATE));
  }
  await Promise.all(inflight);

  // Credits: every user's balance equals its ledger and the start minus 2 per success.
  const db = new pg.Client({ connectionString: shared.DATABASE_URL ?? ADMIN_URL });
  if (shared.DATABASE_URL) {
    await db.connect();
    let ok = true;
    for (const u of users) {
      const bal =
        (await db.query("select balance from user_balance where user_id = $1", [u.id])).rows[0]?.balance ?? 0;
      const sum = Number(
        (await db.query("select coalesce(sum(amount),0) s from credit_entry where user_id = $1", [u.id]))
          .rows[0].s,
      );
      const wins = Number(
        (await db.query("select count(*) c from task where user_id = $1 and state = 'succeeded'", [u.id]))
          .rows[0].c,
      );
      if (bal !== sum || bal !== Number(shared.SIGNUP_CREDITS) - 2 * wins) ok = false;
    }
    await db.end();
    result.creditsBalance = ok;
  } else {
    // Embedded: ask the API (the ledger lives in the server's PGlite): each balance must be
    // the start minus 2 credits per task that succeeded, every failure refunded.
    let ok = true;
    for (const u of users) {
      const res = await fetch(`${u.base}/api/credits`, { headers: { cookie: u.cookie } });
      const bal = ((await res.json()) as { balance: number }).balance;
      if (bal !== Number(shared.SIGNUP_CREDITS) - 2 * (wins.get(u.id) ?? 0)) ok = false;
    }
    result.creditsBalance = ok && result.succeeded + result.failed === result.submitted;
  }
  return result;
}

async function main() {
  const shared = {
    AUTH_SECRET: "load-secret-load-secret-load-secret-01234",
    SIGNUP_CREDITS: "100000",
    ALTCHA_COST: "1",
    ALTCHA_MAX_COUNTER: "20",
    RATE_LIMIT_UPLOADS_PER_MINUTE: "0",
    RATE_LIMIT_SUBMITS_PER_MINUTE: "0",
  };
  const results: Result[] = [];

  // 1. Embedded defaults: one process.
  {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "photofx-load-"));
    const env = { ...shared, DATA_DIR: dataDir, PORT: "3960", APP_URL: "http://127.0.0.1:3960" };
    const app = await start("bench/api-server.ts", env);
    try {
      results.push(await drive("embedded (1 process)", ["http://127.0.0.1:3960"], env));
    } finally {
      await stop(app);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }

  // 2. Scale-out: two web processes, two workers, Postgres and Redis.
  {
    const name = `photofx_load_${Date.now()}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "photofx-load-"));
    const env = {
      ...shared,
      DATA_DIR: dataDir,
      DATABASE_URL: url.toString(),
      REDIS_URL,
      QUEUE_NAME: `photofx-load-${Date.now()}`,
      APP_URL: "http://127.0.0.1:3961",
      ENGINE_THREADS: "1",
    };
    const procs: ChildProcess[] = [];
    try {
      procs.push(await start("bench/api-server.ts", { ...env, PORT: "3961" }));
      procs.push(await start("bench/api-server.ts", { ...env, PORT: "3962" }));
      procs.push(await start("src/worker/main.ts", env));
      procs.push(await start("src/worker/main.ts", env));
      results.push(
        await drive("scale-out (2 web + 2 workers)", ["http://127.0.0.1:3961", "http://127.0.0.1:3962"], env),
      );
    } finally {
      for (const p of procs) await stop(p);
      const a = new pg.Client({ connectionString: ADMIN_URL });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }

  console.log(
    `\nbench:load: ${RATE} submits/s for ${SECONDS} s on ${os.cpus().length} cores (mirror effect)\n`,
  );
  console.log(
    "| run | tasks done/s | submit p50 ms | submit p99 ms | poll p50 ms | poll p99 ms | end-to-end p50 ms | end-to-end p99 ms | succeeded | failed | errors | credits balance |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const r of results) {
    const f = (x: number) => x.toFixed(0);
    console.log(
      `| ${r.name} | ${((r.succeeded + r.failed) / r.seconds).toFixed(1)} | ${f(pct(r.submitMs, 0.5))} | ${f(pct(r.submitMs, 0.99))} | ${f(pct(r.pollMs, 0.5))} | ${f(pct(r.pollMs, 0.99))} | ${f(pct(r.endToEndMs, 0.5))} | ${f(pct(r.endToEndMs, 0.99))} | ${r.succeeded} | ${r.failed} | ${r.errors} | ${r.creditsBalance ? "yes" : "NO"} |`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
