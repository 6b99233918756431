import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { getRequestListener } from "@hono/node-server";
import { solveChallenge, type Challenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import pg from "pg";
import { createApi } from "@/api/app";
import { parseEnv, type Env } from "@/config/env";
import { createServices, type ServiceOverrides, type Services } from "@/platform/services";

/**
 * Starts the real API (Hono + services) on a free port against a real database: a fresh
 * database on this machine's Postgres by default (TEST_DATABASE_URL names the server),
 * or embedded PGlite when `database: "pglite"`. Remote calls are plain HTTP, as a client's.
 */

export const FIXTURES = path.resolve(__dirname, "../fixtures/photos");
export const fixture = (name: string): Buffer => fs.readFileSync(path.join(FIXTURES, name));

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestServer {
  url: string;
  services: Services;
  /** The services that render: the worker's in scale-out mode, else the server's own. */
  renderer: Services;
  dataDir: string;
  databaseUrl?: string;
  /** Stops the HTTP server and the services (database kept, for restart tests); `crash` gives running jobs no grace. */
  stop(opts?: { crash?: boolean }): Promise<void>;
  /** stop() and drop the database and data folder. */
  close(): Promise<void>;
}

export interface StartOptions extends ServiceOverrides {
  database?: "postgres" | "pglite";
  env?: Record<string, string>;
  /** Reuse a database and data folder (restart tests). */
  reuse?: { databaseUrl?: string; dataDir: string };
}

/** Whether a process of this machine still runs (a test file's worker that made a database). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function createDatabase(): Promise<string> {
  const name = `photofx_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    // A run killed mid-way (a timeout, Ctrl-C) cannot drop its databases: whoever comes next
    // drops those whose process is gone, so the server does not fill up with them.
    const { rows } = await admin.query<{ datname: string }>(
      "select datname from pg_database where datname like 'photofx\\_t\\_%'",
    );
    for (const { datname } of rows) {
      const pid = Number(/^photofx_t_(\d+)_[a-z0-9]+$/.exec(datname)?.[1]);
      if (pid && !alive(pid))
        await admin.query(`drop database if exists ${datname} with (force)`).catch(() => {});
    }
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end();
  }
}

/** PHOTOFX_TEST_MODE=scaleout runs the suite on Redis + BullMQ and S3 (s3rver), with workers. */
export const SCALE_OUT = process.env.PHOTOFX_TEST_MODE === "scaleout";
const reusedQueue = new Map<string, { QUEUE_NAME: string }>();
let s3: Promise<string> | undefined;

/** One s3rver per test file (started on first use, stopped when the file's process exits). */
function s3Endpoint(): Promise<string> {
  s3 ??= (async () => {
    const { default: S3rver } = await import("s3rver");
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "photofx-s3-"));
    const server = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory,
      configureBuckets: [{ name: "photofx-test", configs: [] }],
    });
    const info = await server.run();
    process.once(
      "beforeExit",
      () => void server.close().finally(() => fs.rmSync(directory, { recursive: true, force: true })),
    );
    return `http://127.0.0.1:${info.port}`;
  })();
  return s3;
}

async function scaleOutEnv(queue?: string): Promise<Record<string, string>> {
  return {
    REDIS_URL: process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379",
    ...(queue ? { QUEUE_NAME: `photofx-${process.pid}-${queue}`.replace(/[^A-Za-z0-9_-]/g, "-") } : {}),
    S3_BUCKET: "photofx-test",
    S3_ENDPOINT: await s3Endpoint(),
    S3_ACCESS_KEY_ID: "S3RVER",
    S3_SECRET_ACCESS_KEY: "S3RVER",
  };
}

/** The raw variables a parsed env came from (to re-parse it with more set). */
function rawEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (/^[A-Z0-9_]+$/.test(k) && v !== undefined && typeof v !== "object") out[k] = String(v);
  }
  return out;
}

export async function startTestServer(opts: StartOptions = {}): Promise<TestServer> {
  const kind = opts.database ?? "postgres";
  const dataDir = opts.reuse?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "photofx-test-"));
  const databaseUrl = opts.reuse
    ? opts.reuse.databaseUrl
    : kind === "postgres"
      ? await createDatabase()
      : undefined;
  const env = parseEnv({
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    AUTH_SECRET: "test-secret-test-secret-test-secret-0123",
    LOG_LEVEL: "silent",
    ENGINE_THREADS: "1",
    // A proof of work the tests solve in milliseconds.
    ALTCHA_COST: "1",
    ALTCHA_MAX_COUNTER: "20",
    // Tests submit hundreds of times a minute from one address; the limits have their own test.
    RATE_LIMIT_UPLOADS_PER_MINUTE: "0",
    RATE_LIMIT_SUBMITS_PER_MINUTE: "0",
    // Tests buy through the built-in test checkout (off by default; its refusal has its own test).
    TEST_CHECKOUT: "true",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...opts.env,
  });
  // Scale-out mode (PHOTOFX_TEST_MODE=scaleout): this web process renders nothing; a worker
  // process's services (same database, Redis queue, S3) take the jobs.
  const scaleOut = SCALE_OUT && kind === "postgres" && !opts.role && !opts.env?.REDIS_URL;
  const modeEnv = scaleOut ? await scaleOutEnv(opts.reuse ? undefined : `q-${path.basename(dataDir)}`) : {};
  const fullEnv = scaleOut
    ? parseEnv({ ...rawEnv(env), ...modeEnv, ...(opts.reuse ? reusedQueue.get(dataDir) : {}) })
    : env;
  if (scaleOut && !opts.reuse) reusedQueue.set(dataDir, { QUEUE_NAME: fullEnv.QUEUE_NAME });
  const services = await createServices(fullEnv, {
    noSweeperTimer: true,
    ...opts,
    ...(scaleOut ? { role: "web" as const, renderer: undefined, noWorker: true } : {}),
  });
  const worker = scaleOut
    ? await createServices(fullEnv, {
        noSweeperTimer: true,
        renderer: opts.renderer,
        noWorker: opts.noWorker,
        role: "worker",
      })
    : null;
  const listener = getRequestListener(createApi(services).fetch);
  const server = http.createServer((req, res) => void listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  let stopped = false;
  const stop = async (stopOpts: { crash?: boolean } = {}) => {
    if (stopped) return;
    stopped = true;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await worker?.close(stopOpts.crash ? 0 : 30_000);
    await services.close(stopOpts.crash ? 0 : 30_000);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    renderer: worker ?? services,
    dataDir,
    databaseUrl,
    stop,
    async close() {
      await stop();
      if (databaseUrl && !opts.reuse) await dropDatabase(databaseUrl);
      if (!opts.reuse) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A signed-in test user: a cookie jar of one session. */
export interface TestUser {
  server: TestServer;
  cookie: string;
  email: string;
  id: string;
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
  json<T = Record<string, unknown>>(
    pathname: string,
    body?: unknown,
    init?: RequestInit,
  ): Promise<{ status: number; body: T }>;
  upload(
    bytes: Uint8Array,
    name?: string,
    type?: string,
  ): Promise<{ status: number; body: { url?: string; message?: string; reason?: string } }>;
}

let userCounter = 0;

export async function signUp(
  server: TestServer,
  email = `user${++userCounter}-${Date.now()}@example.com`,
): Promise<TestUser> {
  const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.services.env.appUrl },
    body: JSON.stringify({ email, password: "correct-horse-battery", name: "Test User" }),
  });
  if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const body = (await res.json()) as { user: { id: string } };
  return asUser(server, cookie, email, body.user.id);
}

export function asUser(server: TestServer, cookie: string, email: string, id: string): TestUser {
  const doFetch = (pathname: string, init: RequestInit = {}) =>
    fetch(`${server.url}${pathname}`, {
      ...init,
      headers: { cookie, origin: server.services.env.appUrl, ...(init.headers as Record<string, string>) },
    });
  return {
    server,
    cookie,
    email,
    id,
    fetch: doFetch,
    async json(pathname, body, init = {}) {
      const res = await doFetch(pathname, {
        method: body === undefined ? "GET" : "POST",
        ...init,
        headers: { "content-type": "application/json", ...(init.headers as Record<string, string>) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : {} };
    },
    async upload(bytes, name = "photo.jpg", type = "image/jpeg") {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(bytes)], { type }), name);
      const res = await doFetch("/api/upload", { method: "POST", body: form });
      return { status: res.status, body: (await res.json()) as { url?: string; message?: string } };
    },
  };
}

/** Solves an ALTCHA challenge from the server, as the browser widget does. */
export async function solveBotCheck(server: TestServer): Promise<string> {
  const challenge = (await (await fetch(`${server.url}/api/botcheck/challenge`)).json()) as Challenge;
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error("could not solve the ALTCHA challenge");
  return Buffer.from(JSON.stringify({ challenge, solution })).toString("base64");
}

/**
 * Submits an effect and returns the raw answer. A free user's bot-check token is solved
 * for the call unless the payload sets `turnstileToken` itself.
 */
export async function submit(
  user: TestUser,
  payload: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const token = "turnstileToken" in payload ? payload.turnstileToken : await solveBotCheck(user.server);
  return user.json<{ message?: string; code?: string; data?: { taskIds: string[] } }>(
    "/api/img/nano-banana/submit",
    { prompt: "", num_images: "1", ...payload, turnstileToken: token },
    { headers },
  );
}

/** Uploads one fixture photo and submits it to an effect; returns the task id (the submit must succeed). */
export async function submitEffect(
  user: TestUser,
  effectId: string,
  photo = "portrait-female-1.jpg",
): Promise<string> {
  const up = await user.upload(fixture(photo), photo, photo.endsWith(".png") ? "image/png" : "image/jpeg");
  if (up.status !== 200) throw new Error(`upload of ${photo} answered ${up.status}`);
  const res = await submit(user, { image_urls: [up.body.url!], imageType: `nano-banana-lora-${effectId}` });
  if (res.status !== 200)
    throw new Error(`submit of ${effectId} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data!.taskIds[0]!;
}

/** Polls taskResult until the task ends (code 1 or 2) or the time runs out. */
export async function waitForTask(user: TestUser, taskId: string, timeoutMs = 45_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await user.json<{
      code: number;
      status: number;
      data: { imageUrl: string | null };
      failedReason: string | null;
    }>("/api/img/nano-banana/taskResult", { taskId });
    if (r.status !== 200) return r;
    if (r.body.code === 1 || r.body.code === 2) return r;
    if (Date.now() > until) throw new Error(`task ${taskId} still pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
