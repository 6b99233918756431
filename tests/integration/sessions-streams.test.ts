import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCredits } from "@/core/credits";
import type { Renderer, RenderResult } from "@/core/ports/renderer";
import { asUser, signUp, startTestServer, submit, type TestServer, type TestUser } from "./harness";

/**
 * The hardening issue's session and stream holes: a revoked session is refused at once in
 * every process, whatever the encoding of its cookie; a tab follows all of its tasks over
 * one stream, and a user holds at most SSE_MAX_STREAMS_PER_USER streams.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const SESSION = "better-auth.session_token";

/** The user's session cookie as the browser sent it (percent-encoded) and decoded (raw). */
function encodings(user: TestUser): { encoded: string; raw: string } {
  const pair = user.cookie.split("; ").find((c) => c.startsWith(`${SESSION}=`));
  if (!pair) throw new Error(`no session cookie in ${user.cookie}`);
  const value = pair.slice(SESSION.length + 1);
  const raw = decodeURIComponent(value);
  // The signature is base64 (ends with "="): the two forms differ.
  expect(raw).not.toBe(value);
  return { encoded: `${SESSION}=${value}`, raw: `${SESSION}=${raw}` };
}

/** GET /api/credits with exactly this Cookie header: 200 signed in, 401 not. */
const credits = async (server: TestServer, cookie: string) =>
  (await fetch(`${server.url}/api/credits`, { headers: { cookie } })).status;

async function signIn(server: TestServer, user: TestUser): Promise<TestUser> {
  const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.services.env.appUrl },
    body: JSON.stringify({ email: user.email, password: "correct-horse-battery" }),
  });
  expect(res.status).toBe(200);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return asUser(server, cookie, user.email, user.id);
}

const post = (server: TestServer, cookie: string, pathname: string) =>
  fetch(`${server.url}${pathname}`, {
    method: "POST",
    headers: { cookie, origin: server.services.env.appUrl, "content-type": "application/json" },
    body: "{}",
  });

/**
 * Signs out through `via`, and separately revokes a first session from a second one,
 * checking that `check` refuses the ended sessions on the very next call in both encodings.
 */
async function revocationScenario(via: TestServer, check: TestServer) {
  // Sign-out.
  const user = await signUp(via);
  const { encoded, raw } = encodings(user);
  for (const server of [via, check]) {
    expect(await credits(server, encoded)).toBe(200);
    expect(await credits(server, raw)).toBe(200); // both encodings now cached
  }
  expect((await post(via, encoded, "/api/auth/sign-out")).status).toBe(200);
  expect(await credits(check, raw)).toBe(401);
  expect(await credits(check, encoded)).toBe(401);
  expect(await credits(via, raw)).toBe(401);

  // "Revoke other sessions", from a second session of the same user.
  const other = await signUp(via);
  const second = await signIn(via, other);
  const first = encodings(other);
  for (const server of [via, check]) {
    expect(await credits(server, first.encoded)).toBe(200);
    expect(await credits(server, first.raw)).toBe(200);
    expect(await credits(server, second.cookie)).toBe(200);
  }
  expect((await post(via, second.cookie, "/api/auth/revoke-other-sessions")).status).toBe(200);
  expect(await credits(check, first.encoded)).toBe(401);
  expect(await credits(check, first.raw)).toBe(401);
  expect(await credits(via, first.raw)).toBe(401);
  expect(await credits(check, second.cookie)).toBe(200); // the session that revoked stays
}

describe("session revocation, embedded (one process)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ database: "pglite", pgliteInMemory: true });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("a signed-out or revoked session answers 401 at once, in either cookie encoding", async () => {
    await revocationScenario(server, server);
  });

  it("a session revoked outside better-auth's routes (an account suspended) is dropped by user", async () => {
    const user = await signUp(server);
    const { encoded, raw } = encodings(user);
    expect(await credits(server, encoded)).toBe(200);
    expect(await credits(server, raw)).toBe(200);
    // What a suspension does: end the sessions in the database, then signal it.
    const { session } = await import("@/core/schema");
    const { eq } = await import("drizzle-orm");
    await server.services.db.delete(session).where(eq(session.userId, user.id));
    await server.services.revokeSessions({ userIds: [user.id] });
    expect(await credits(server, encoded)).toBe(401);
    expect(await credits(server, raw)).toBe(401);
  });
});

describe("session revocation across two web processes (Redis pub/sub)", () => {
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    const env = { REDIS_URL, QUEUE_NAME: `photofx-sessions-${process.pid}-${Date.now()}` };
    first = await startTestServer({ env, noWorker: true });
    second = await startTestServer({
      env,
      noWorker: true,
      reuse: { databaseUrl: first.databaseUrl, dataDir: first.dataDir },
    });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it("a session ended through one process is refused by the other on the very next call", async () => {
    await revocationScenario(first, second);
  });
});

/** A renderer that holds every render until `open()` (tasks stay pending meanwhile). */
function gatedRenderer() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const renderer: Renderer = {
    id: "local",
    supports: () => true,
    async render(): Promise<RenderResult> {
      await gate;
      const bytes = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#08f" } })
        .png()
        .toBuffer();
      return { bytes, mime: "image/png", width: 8, height: 8, provider: "local", model: "gated" };
    },
  };
  return { renderer, open };
}

describe("task event streams: one per tab, a cap per user", () => {
  let server: TestServer;
  const gated = gatedRenderer();
  beforeAll(async () => {
    server = await startTestServer({ renderer: gated.renderer });
  });
  afterAll(async () => {
    gated.open();
    await server?.close();
  });

  const tinyPng = (i: number) =>
    sharp({ create: { width: 16, height: 16, channels: 3, background: { r: i * 20, g: 90, b: 200 } } })
      .png()
      .toBuffer();

  async function tasks(user: TestUser, n: number): Promise<string[]> {
    await addCredits(server.services.db, {
      userId: user.id,
      amount: 2 * n,
      kind: "adjustment",
      key: `t:${user.id}`,
    });
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const up = await user.upload(await tinyPng(i), `${i}.png`, "image/png");
      expect(up.status).toBe(200);
      const res = await submit(user, {
        image_urls: [up.body.url],
        imageType: "nano-banana-lora-pixel-illustration",
      });
      expect(res.status).toBe(200);
      ids.push(res.body.data!.taskIds[0]!);
    }
    return ids;
  }

  /** Reads SSE `data:` lines from a response until `enough` says stop (or the stream ends). */
  async function readEvents(res: Response, enough: (events: Array<Record<string, unknown>>) => boolean) {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const events: Array<Record<string, unknown>> = [];
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { events, ended: true };
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.startsWith("data: ")) events.push(JSON.parse(line.slice(6)) as Record<string, unknown>);
      }
      if (enough(events)) {
        reader.releaseLock();
        return { events, ended: false };
      }
    }
  }

  let user: TestUser;
  let ids: string[];

  // Ten uploads and submits, each screened on device: on a loaded CI machine this takes longer
  // than one test's 30 s, so it is set up once with its own time limit.
  beforeAll(async () => {
    user = await signUp(server);
    ids = await tasks(user, 10);
  }, 180_000);

  it("refuses bad, foreign and too many task ids in the multi-task form", async () => {
    const base = "/api/img/nano-banana/taskEvents";
    expect((await user.fetch(`${base}?taskIds=${ids[0]},bad%00id`)).status).toBe(400);
    expect((await user.fetch(`${base}?taskIds=`)).status).toBe(400);
    expect((await user.fetch(`${base}?taskIds=${[...ids, "x"].join(",")}`)).status).toBe(400); // over the upload cap
    expect((await user.fetch(`${base}?taskId=${ids[0]}&taskIds=${ids[1]}`)).status).toBe(400);
    const stranger = await signUp(server);
    expect((await stranger.fetch(`${base}?taskIds=${ids.slice(0, 3).join(",")}`)).status).toBe(404);
    // Refusals hold no stream slot.
    expect(server.services.streamSlots.count(user.id)).toBe(0);
    expect(server.services.streamSlots.count(stranger.id)).toBe(0);
  });

  it("past SSE_MAX_STREAMS_PER_USER a stream is refused with a translated 429, and accepted again once one closes", async () => {
    const max = server.services.streamSlots.max;
    expect(max).toBe(4);
    const open: AbortController[] = [];
    for (let i = 0; i < max; i++) {
      const ctl = new AbortController();
      const res = await user.fetch(`/api/img/nano-banana/taskEvents?taskId=${ids[i]}`, {
        signal: ctl.signal,
      });
      expect(res.status).toBe(200);
      open.push(ctl);
    }
    const refused = await user.fetch(`/api/img/nano-banana/taskEvents?taskIds=${ids.join(",")}`);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ messageKey: "tooManyStreams", messageValues: { max } });
    // Another user is not affected.
    const other = await signUp(server);
    const [otherTask] = await tasks(other, 1);
    const ctl = new AbortController();
    expect(
      (await other.fetch(`/api/img/nano-banana/taskEvents?taskId=${otherTask}`, { signal: ctl.signal }))
        .status,
    ).toBe(200);
    ctl.abort();

    open.pop()!.abort(); // a tab closes
    await expect.poll(() => server.services.streamSlots.count(user.id)).toBe(max - 1);
    const again = new AbortController();
    const accepted = await user.fetch(`/api/img/nano-banana/taskEvents?taskId=${ids[0]}`, {
      signal: again.signal,
    });
    expect(accepted.status).toBe(200);
    again.abort();
    for (const c of open) c.abort();
    await expect.poll(() => server.services.streamSlots.count(user.id)).toBe(0);
  });

  it("follows ten tasks over one stream until each reaches its final state", async () => {
    const res = await user.fetch(`/api/img/nano-banana/taskEvents?taskIds=${ids.join(",")}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    // Every task's current (pending) answer first, each naming its task.
    const first = await readEvents(res, (e) => e.length >= ids.length);
    expect(first.ended).toBe(false);
    expect(new Set(first.events.map((e) => e.taskId))).toEqual(new Set(ids));
    expect(first.events.every((e) => e.code === 0)).toBe(true);
    expect(server.services.streamSlots.count(user.id)).toBe(1);

    gated.open(); // the renders finish; the stream pushes each end and closes after the last
    const rest = await readEvents(res, () => false);
    expect(rest.ended).toBe(true);
    const last = new Map<unknown, Record<string, unknown>>();
    for (const e of [...first.events, ...rest.events]) last.set(e.taskId, e);
    expect([...last.keys()].sort()).toEqual([...ids].sort());
    for (const e of last.values()) {
      expect(e).toMatchObject({ code: 1, status: 1 });
      expect((e.data as { imageUrl: string }).imageUrl).toMatch(/^\/api\/images\//);
    }
    await expect.poll(() => server.services.streamSlots.count(user.id)).toBe(0);

    // The spec's single-task form answers as before: the spec's answer, no taskId added.
    const single = await user.fetch(`/api/img/nano-banana/taskEvents?taskId=${ids[0]}`);
    const { events, ended } = await readEvents(single, () => false);
    expect(ended).toBe(true);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ code: 1, status: 1 });
    expect(events[0]).not.toHaveProperty("taskId");
  });
});
