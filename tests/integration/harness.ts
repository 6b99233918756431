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
import { parseEnv } from "@/config/env";
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

async function createDatabase(): Promise<string> {
  const name = `photofx_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
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
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...opts.env,
  });
  const services = await createServices(env, { noSweeperTimer: true, ...opts });
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
    await services.close(stopOpts.crash ? 0 : 30_000);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    services,
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

/** Polls taskResult until the task ends (code 1 or 2) or the time runs out. */
export async function waitForTask(user: TestUser, taskId: string, timeoutMs = 20_000) {
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
