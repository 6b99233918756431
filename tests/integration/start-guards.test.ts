import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * Holes from the security review (the hardening issue): a second server on one DATA_DIR, a
 * busy port. These start server.ts in production mode, so they need `next build`: the test
 * command runs this file right after the build with PHOTOFX_REQUIRE_BUILD=1 (there a missing
 * build is a failure); in the first vitest pass, before any build, they are skipped.
 */
const BUILT = fs.existsSync(path.resolve(__dirname, "../..", ".next", "BUILD_ID"));
if (process.env.PHOTOFX_REQUIRE_BUILD && !BUILT)
  throw new Error("these tests start server.ts in production mode: run `npx next build` first");

// ---------------------------------------------------------------------------------------
// Real server processes (server.ts in production mode, the embedded database under DATA_DIR).

const ROOT = path.resolve(__dirname, "../..");

interface Proc {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<number | null>;
}

function startServer(env: Record<string, string>): Proc {
  const base = { ...process.env };
  // Only the variables below configure it: embedded database, local disk, in-process queue.
  for (const k of ["DATABASE_URL", "REDIS_URL", "S3_BUCKET", "APP_URL", "TEST_CHECKOUT"]) delete base[k];
  const child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: ROOT,
    env: {
      ...base,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      AUTH_SECRET: "lock-test-secret-lock-test-secret-0123",
      LOG_LEVEL: "warn",
      ENGINE_THREADS: "1",
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, stderr: () => err, exited };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitHealthy(port: number, proc: Proc, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  for (;;) {
    if (exited) throw new Error(`server exited before it was ready:\n${proc.stderr()}`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > until) throw new Error(`server not ready after ${timeoutMs} ms:\n${proc.stderr()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.skipIf(!BUILT)("server start-up guards (real processes)", () => {
  const procs: Proc[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    // A clean stop (the embedded database shuts down with its server), SIGKILL if it hangs.
    const running = procs.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    for (const p of running) p.child.kill("SIGTERM");
    const killer = setTimeout(() => running.forEach((p) => p.child.kill("SIGKILL")), 20_000);
    await Promise.all(procs.map((p) => p.exited));
    clearTimeout(killer);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  const tempDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), "photofx-guard-"));
    dirs.push(d);
    return d;
  };

  it("a second server on the same DATA_DIR exits 1 with a clear message; the first keeps serving", async () => {
    const dataDir = tempDir();
    const [port1, port2] = [await freePort(), await freePort()];
    const first = startServer({ DATA_DIR: dataDir, PORT: String(port1) });
    procs.push(first);
    await waitHealthy(port1, first);

    const second = startServer({ DATA_DIR: dataDir, PORT: String(port2) });
    procs.push(second);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toContain(`DATA_DIR ${dataDir} is in use by another photofx process`);
    expect(second.stderr()).toContain(`pid ${first.child.pid}`);

    // The first is unharmed: it still answers, and its database still works (a sign-up).
    expect((await fetch(`http://127.0.0.1:${port1}/api/health`)).status).toBe(200);
    const signUp = await fetch(`http://127.0.0.1:${port1}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: `http://localhost:${port1}` },
      body: JSON.stringify({ email: "lock@example.com", password: "plum-Orbit-47-lantern", name: "Lock" }),
    });
    expect(signUp.status).toBe(200);

    // Killed without a chance to release its lock: the next start takes the stale lock over.
    first.child.kill("SIGKILL");
    await first.exited;
    const third = startServer({ DATA_DIR: dataDir, PORT: String(port1) });
    procs.push(third);
    await waitHealthy(port1, third);
    third.child.kill("SIGTERM");
    expect(await third.exited).toBe(0);
    expect(fs.existsSync(path.join(dataDir, "photofx.lock"))).toBe(false);
  }, 240_000);

  it("a server on a busy port exits 1 with a clear message instead of hanging", async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const proc = startServer({ DATA_DIR: tempDir(), PORT: String(port) });
      procs.push(proc);
      expect(await proc.exited).toBe(1);
      expect(proc.stderr()).toContain(`port ${port} is already in use`);
    } finally {
      busy.close();
    }
  }, 60_000);
});
