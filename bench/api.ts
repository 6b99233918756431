/**
 * npm run bench:api: requests per second and p99 latency of taskResult polling and of
 * submit on the embedded defaults (a PostgreSQL child, local disk, in-process queue), with a bare Node
 * http server measured in the same run for comparison. The server runs in its own process;
 * autocannon drives it from this one, both on this machine's cores.
 *
 * Options (env): BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 20), BENCH_SUBMITS (default 600).
 */
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { solveChallenge, type Challenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import autocannon from "autocannon";
import sharp from "sharp";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const SUBMITS = Number(process.env.BENCH_SUBMITS ?? 600);

function start(script: string, port: number, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = fork(path.join(__dirname, script), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, PORT: String(port), LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

interface Row {
  name: string;
  /** Answers with a 2xx status: for submits, the tasks actually made. */
  ok: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

const row = (name: string, r: autocannon.Result): Row => ({
  name,
  ok: r["2xx"],
  // Successful answers per second: a refused request (429, 4xx) is not throughput.
  rps: Math.round(r["2xx"] / Math.max(r.duration, 1e-3)),
  p50: r.latency.p50,
  p99: r.latency.p99,
  errors: r.errors + r.timeouts,
  non2xx: r.non2xx,
});

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "photofx-bench-"));
  const port = 3900;
  const base = `http://127.0.0.1:${port}`;
  const rows: Row[] = [];
  console.log(`bench:api on ${os.cpus().length} cores, ${CONNECTIONS} connections, ${SECONDS} s per run`);

  const app = await start("api-server.ts", port, {
    DATA_DIR: dataDir,
    APP_URL: base,
    SIGNUP_CREDITS: String(SUBMITS * 2 + 100),
    AUTH_SECRET: "bench-secret-bench-secret-bench-secret-01",
    // The bench user is on the free plan, so each submit carries a solved ALTCHA token; a
    // light proof of work keeps solving 600 of them quick (the server's check costs the same).
    ALTCHA_COST: "1",
    ALTCHA_MAX_COUNTER: "20",
    // One user makes every request here: the per-user limits (60 uploads, 30 submits a
    // minute) would refuse most of them and the bench would time 429s, not submits.
    RATE_LIMIT_UPLOADS_PER_MINUTE: "0",
    RATE_LIMIT_SUBMITS_PER_MINUTE: "0",
  });
  try {
    const signup = await fetch(`${base}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify({ email: "bench@example.com", password: "bench-password-1", name: "Bench" }),
    });
    const cookie = signup.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const headers = { cookie, origin: base, "content-type": "application/json" };

    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: "#3366aa" } })
      .png()
      .toBuffer();
    const upload = async () => {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(png)], { type: "image/png" }), "b.png");
      const r = await fetch(`${base}/api/upload`, {
        method: "POST",
        headers: { cookie, origin: base },
        body: form,
      });
      if (!r.ok) throw new Error(`upload answered ${r.status}: ${await r.text()}`);
      return ((await r.json()) as { url: string }).url;
    };

    const botToken = async () => {
      const challenge = (await (await fetch(`${base}/api/botcheck/challenge`)).json()) as Challenge;
      const solution = await solveChallenge({ challenge, deriveKey });
      return Buffer.from(JSON.stringify({ challenge, solution })).toString("base64");
    };

    // One finished task to poll.
    const first = await fetch(`${base}/api/img/nano-banana/submit`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        prompt: "",
        image_urls: [await upload()],
        num_images: "1",
        turnstileToken: await botToken(),
        imageType: "nano-banana-lora-inverted-face-filter",
      }),
    });
    const taskId = ((await first.json()) as { data: { taskIds: string[] } }).data.taskIds[0]!;
    for (;;) {
      const r = await fetch(`${base}/api/img/nano-banana/taskResult`, {
        method: "POST",
        headers,
        body: JSON.stringify({ taskId }),
      });
      if (((await r.json()) as { code: number }).code !== 0) break;
      await new Promise((res) => setTimeout(res, 50));
    }

    const pollBody = JSON.stringify({ taskId });
    rows.push(
      row(
        "taskResult (embedded)",
        await autocannon({
          url: `${base}/api/img/nano-banana/taskResult`,
          method: "POST",
          headers,
          body: pollBody,
          connections: CONNECTIONS,
          duration: SECONDS,
        }),
      ),
    );

    const urls: string[] = [];
    const tokens: string[] = [];
    for (let i = 0; i < SUBMITS; i++) {
      urls.push(await upload());
      tokens.push(await botToken());
    }
    let n = 0;
    rows.push(
      row(
        `submit (embedded, ${SUBMITS} requests)`,
        await autocannon({
          url: `${base}/api/img/nano-banana/submit`,
          method: "POST",
          headers,
          connections: CONNECTIONS,
          amount: SUBMITS,
          requests: [
            {
              setupRequest: (req) => {
                const i = n++;
                return {
                  ...req,
                  headers: { ...headers, "idempotency-key": `bench-${i}` },
                  body: JSON.stringify({
                    prompt: "",
                    image_urls: [urls[i % urls.length]],
                    num_images: "1",
                    turnstileToken: tokens[i % tokens.length],
                    imageType: "nano-banana-lora-inverted-face-filter",
                  }),
                };
              },
            },
          ],
        }),
      ),
    );
  } finally {
    await stop(app);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  const bare = await start("bare-server.ts", port + 1);
  try {
    rows.push(
      row(
        "bare Node http (same machine, same run)",
        await autocannon({
          url: `http://127.0.0.1:${port + 1}/`,
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ taskId: "x" }),
          connections: CONNECTIONS,
          duration: SECONDS,
        }),
      ),
    );
  } finally {
    await stop(bare);
  }

  console.log(
    "\n| run | 2xx answers | 2xx/s | p50 ms | p99 ms | errors | non-2xx |\n|---|---:|---:|---:|---:|---:|---:|",
  );
  for (const r of rows)
    console.log(`| ${r.name} | ${r.ok} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} |`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
