import path from "node:path";
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxFiles, readOutboxFile } from "@/adapters/mail/outbox-reader";
import { getBalance, ledgerSum } from "@/core/credits";
import { adminAudit, creditEntry, task, user } from "@/core/schema";
import { startFalFake, type FalFake } from "./fakes/fal-fake";
import { deliverStripeEvent, stripeFake } from "./fakes/stripe-fake";
import {
  asUser,
  fixture,
  SCALE_OUT,
  signUp,
  startTestServer,
  submit,
  waitForTask,
  type TestServer,
  type TestUser,
} from "./harness";

/**
 * The operator's console (issue 20): who may use it, credits by hand, effects switched off,
 * suspension, refunds by hand, the audit log. Runs in both modes (PHOTOFX_TEST_MODE=scaleout:
 * a web process and a worker over Redis, BullMQ and S3).
 */

const BOSS = `boss-${Date.now()}@example.com`;
const effectId = "inverted-face-filter";
const imageType = `nano-banana-lora-${effectId}`;

/** Every console route, with a body for the writes. */
const ROUTES: Array<[method: "GET" | "POST", path: string, body?: unknown]> = [
  ["GET", "/api/admin/me"],
  ["GET", "/api/admin/admins"],
  ["GET", "/api/admin/users?q=a"],
  ["GET", "/api/admin/users/USERID"],
  ["POST", "/api/admin/users/USERID/credits", { amount: 5, reason: "nope", idempotencyKey: "abcdefgh1" }],
  ["POST", "/api/admin/users/USERID/suspend", { suspended: true, reason: "nope" }],
  ["POST", "/api/admin/users/USERID/role", { role: "admin" }],
  ["GET", "/api/admin/tasks"],
  ["GET", "/api/admin/tasks/TASKID"],
  ["POST", "/api/admin/tasks/TASKID/refund", { reason: "nope" }],
  ["GET", "/api/admin/effects"],
  ["POST", `/api/admin/effects/${effectId}`, { enabled: false }],
  ["GET", "/api/admin/engines"],
  ["GET", "/api/admin/overview"],
  ["GET", "/api/admin/audit"],
  ["GET", "/api/admin/no-such-route"],
];

interface EngineStats {
  id: string;
  lastHour: {
    finished: number;
    failed: number;
    refused: number;
    judged: number;
    errorRate: number | null;
    medianSeconds: number | null;
  };
}
interface Revenue {
  provider: "test" | "stripe";
  currency: string;
  amount: number;
  payments: number;
}
interface Overview {
  currencies: string[];
  days: Array<{ day: string; revenue: Revenue[]; failed: number; refused: number }>;
  revenue: Revenue[];
  unrecordedPayments: number;
  effects: Array<{
    effectId: string;
    total: number;
    failed: number;
    refused: number;
    judged: number;
    failureRate: number | null;
  }>;
}

const auditCount = async (server: TestServer) =>
  (await server.services.db.select({ n: count() }).from(adminAudit))[0]!.n;

/** Follows the verification link of the outbox, as an operator without SMTP does. */
async function verifyThroughOutbox(server: TestServer, email: string): Promise<void> {
  const res = await fetch(`${server.url}/api/auth/send-verification-email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.services.env.appUrl },
    body: JSON.stringify({ email }),
  });
  expect(res.status).toBe(200);
  const dir = path.join(server.dataDir, "mail");
  let token: string | null = null;
  for (let i = 0; i < 100 && !token; i++) {
    for (const f of await outboxFiles(dir).catch(() => [] as string[])) {
      const mail = await readOutboxFile(dir, f);
      if (mail.to !== email) continue;
      token = /verify-email\?token=([^\s&"]+)/.exec(mail.text)?.[1] ?? null;
    }
    if (!token) await new Promise((r) => setTimeout(r, 50));
  }
  expect(token).toBeTruthy();
  const verified = await fetch(`${server.url}/api/auth/verify-email?token=${token}`, { redirect: "manual" });
  expect(verified.status).toBeLessThan(400);
}

async function submitOne(u: TestUser) {
  const up = await u.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
  expect(up.status).toBe(200);
  return submit(u, { image_urls: [up.body.url], imageType });
}

describe("admin console", () => {
  let server: TestServer;
  let boss: TestUser;
  let alice: TestUser;

  beforeAll(async () => {
    server = await startTestServer({ env: { ADMIN_EMAILS: `other@example.com, ${BOSS.toUpperCase()}` } });
    boss = await signUp(server, BOSS);
    alice = await signUp(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("ADMIN_EMAILS makes an admin only once the address is verified (verification off: the outbox link)", async () => {
    expect(server.services.env.emailVerification).toBe("off");
    // Registered and signed in, but unverified: whoever signs up first with the address gets nothing.
    expect((await boss.json("/api/admin/me")).status).toBe(404);
    expect((await boss.json("/api/me")).body).not.toHaveProperty("isAdmin");
    await verifyThroughOutbox(server, BOSS);
    const me = await boss.json<{ admin: { email: string } }>("/api/admin/me");
    expect(me.status).toBe(200);
    expect(me.body.admin.email).toBe(BOSS);
    expect((await boss.json("/api/me")).body).toMatchObject({ isAdmin: true });
    const [row] = await server.services.db.select({ role: user.role }).from(user).where(eq(user.id, boss.id));
    expect(row!.role).toBe("admin");
  });

  it("a non-admin (and a signed-out caller) gets 404 on every admin route, and nothing changes", async () => {
    const before = await auditCount(server);
    const balance = await getBalance(server.services.db, alice.id);
    for (const [method, p, body] of ROUTES) {
      const url = p.replace("USERID", alice.id).replace("TASKID", "sometask");
      const asAlice = await alice.json(url, body, { method });
      expect(asAlice.status, `${method} ${url}`).toBe(404);
      expect(asAlice.body).toEqual({ message: "Not found" });
      const anon = await fetch(`${server.url}${url}`, {
        method,
        headers: { "content-type": "application/json", origin: server.services.env.appUrl },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      expect(anon.status, `signed out ${method} ${url}`).toBe(404);
    }
    expect(await auditCount(server)).toBe(before);
    expect(await getBalance(server.services.db, alice.id)).toBe(balance);
    expect(server.services.settings.current().effects[effectId]?.enabled ?? true).toBe(true);
    // The admin reaches the same reads.
    for (const [method, p] of ROUTES.filter(
      ([m, p]) => m === "GET" && !p.includes("TASKID") && !p.includes("no-such"),
    ))
      expect((await boss.json(p.replace("USERID", alice.id), undefined, { method })).status, p).toBe(200);
  });

  it("finds a user by e-mail; a grant is idempotent, has its reason in the user's ledger and one audit row", async () => {
    const found = await boss.json<{ users: Array<{ id: string; email: string }> }>(
      `/api/admin/users?q=${encodeURIComponent(alice.email.slice(0, 12).toUpperCase())}`,
    );
    expect(found.body.users.map((u) => u.id)).toContain(alice.id);
    const audits = await auditCount(server);
    const grant = {
      amount: 10,
      reason: "Sorry for the failed restoration",
      idempotencyKey: "grant-key-0001",
    };
    const first = await boss.json<{ applied: boolean; balance: number }>(
      `/api/admin/users/${alice.id}/credits`,
      grant,
    );
    expect(first).toMatchObject({ status: 200, body: { applied: true, balance: 20 } });
    const again = await boss.json(`/api/admin/users/${alice.id}/credits`, grant);
    expect(again).toMatchObject({ status: 200, body: { applied: false, balance: 20 } });
    expect(await getBalance(server.services.db, alice.id)).toBe(20);
    expect(await ledgerSum(server.services.db, alice.id)).toBe(20);
    const ledger = await alice.json<{ entries: Array<{ amount: number; kind: string; note: string }> }>(
      "/api/credits/ledger",
    );
    const adjustments = ledger.body.entries.filter((e) => e.kind === "adjustment");
    expect(adjustments).toEqual([expect.objectContaining({ amount: 10, note: grant.reason })]);
    expect(await auditCount(server)).toBe(audits + 1);
    const [audit] = await server.services.db
      .select()
      .from(adminAudit)
      .where(and(eq(adminAudit.action, "credits.grant"), eq(adminAudit.targetId, alice.id)));
    expect(audit).toMatchObject({
      actorId: boss.id,
      actorEmail: BOSS,
      reason: grant.reason,
      before: { balance: 10 },
      after: { balance: 20, amount: 10 },
    });

    // A removal past the balance is refused, with nothing written; a reason is required.
    const tooMuch = await boss.json(`/api/admin/users/${alice.id}/credits`, {
      amount: -21,
      reason: "typo",
      idempotencyKey: "remove-key-01",
    });
    expect(tooMuch).toMatchObject({ status: 409, body: { reason: "balanceTooLow" } });
    const noReason = await boss.json(`/api/admin/users/${alice.id}/credits`, {
      amount: 5,
      reason: "",
      idempotencyKey: "grant-key-0002",
    });
    expect(noReason.status).toBe(400);
    const removed = await boss.json(`/api/admin/users/${alice.id}/credits`, {
      amount: -5,
      reason: "Duplicate grant",
      idempotencyKey: "remove-key-02",
    });
    expect(removed).toMatchObject({ status: 200, body: { applied: true, balance: 15 } });
    expect(await ledgerSum(server.services.db, alice.id)).toBe(15);
    expect(await auditCount(server)).toBe(audits + 2);

    const detail = await boss.json<{ user: { balance: number; ledger: unknown[]; uploads: number } }>(
      `/api/admin/users/${alice.id}`,
    );
    expect(detail.body.user.balance).toBe(15);
    expect(detail.body.user.ledger).toHaveLength(3);
  });

  it("an effect switched off refuses submits with no charge (this mode), on again renders; audited", async () => {
    const db = server.services.db;
    const audits = await auditCount(server);
    const off = await boss.json(`/api/admin/effects/${effectId}`, { enabled: false });
    expect(off).toMatchObject({ status: 200, body: { effect: { id: effectId, enabled: false } } });
    if (SCALE_OUT) {
      // The worker process hears the change too (Redis), no restart.
      expect(server.renderer).not.toBe(server.services);
      await expect
        .poll(() => server.renderer.settings.current().effects[effectId]?.enabled, { timeout: 5_000 })
        .toBe(false);
    }
    const balance = await getBalance(db, alice.id);
    const refused = await submitOne(alice);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: "EFFECT_DISABLED", messageKey: "effectDisabled" });
    expect(await getBalance(db, alice.id)).toBe(balance);
    expect(await db.select().from(task).where(eq(task.userId, alice.id))).toEqual([]);

    const badEngine = await boss.json(`/api/admin/effects/${effectId}`, { engine: "fal" });
    expect(badEngine).toMatchObject({ status: 400, body: { reason: "engineNotConfigured" } });
    const on = await boss.json(`/api/admin/effects/${effectId}`, { enabled: true, engine: "local" });
    expect(on).toMatchObject({ status: 200, body: { effect: { enabled: true, engine: "local" } } });
    expect(await auditCount(server)).toBe(audits + 2);
    const accepted = await submitOne(alice);
    expect(accepted.status).toBe(200);
    const done = await waitForTask(alice, accepted.body.data!.taskIds[0]!, 60_000);
    expect(done.body.code).toBe(1);
    expect(await getBalance(db, alice.id)).toBe(balance - 2);
  });

  it("a task's story, a refund by hand once (the automatic refund's key), engines and overview from the database", async () => {
    const db = server.services.db;
    const [done] = await db
      .select()
      .from(task)
      .where(and(eq(task.userId, alice.id), eq(task.state, "succeeded")));
    expect(done).toBeDefined();
    expect(done!.provider).toBe("local");
    const story = await boss.json<{
      task: { provider: string; renderSeconds: number; email: string };
      events: Array<{ kind: string }>;
      refundable: boolean;
    }>(`/api/admin/tasks/${done!.id}`);
    expect(story.status).toBe(200);
    expect(story.body.task).toMatchObject({ provider: "local", email: alice.email });
    expect(story.body.task.renderSeconds).toBeGreaterThanOrEqual(0);
    expect(story.body.events.map((e) => e.kind)).toEqual(
      expect.arrayContaining(["submitted", "charged", "claimed", "rendered"]),
    );
    expect(story.body.refundable).toBe(true);

    const list = await boss.json<{ rows: Array<{ id: string }> }>(
      `/api/admin/tasks?status=succeeded&effect=${effectId}&provider=local&user=${encodeURIComponent(alice.email)}`,
    );
    expect(list.body.rows.map((r) => r.id)).toEqual([done!.id]);
    expect((await boss.json<{ rows: unknown[] }>("/api/admin/tasks?status=failed")).body.rows).toEqual([]);

    const balance = await getBalance(db, alice.id);
    const audits = await auditCount(server);
    const [a, b] = await Promise.all([
      boss.json(`/api/admin/tasks/${done!.id}/refund`, { reason: "Blurry result" }),
      boss.json(`/api/admin/tasks/${done!.id}/refund`, { reason: "Blurry result" }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect(await getBalance(db, alice.id)).toBe(balance + done!.credits);
    const refunds = await db
      .select()
      .from(creditEntry)
      .where(eq(creditEntry.idempotencyKey, `refund:${done!.id}`));
    expect(refunds).toHaveLength(1);
    expect(await auditCount(server)).toBe(audits + 1);

    const engines = await boss.json<{
      engines: Array<{ id: string; lastHour: { finished: number; medianSeconds: number | null } }>;
    }>("/api/admin/engines");
    const local = engines.body.engines.find((e) => e.id === "local");
    expect(local?.lastHour.finished).toBeGreaterThanOrEqual(1);
    expect(local?.lastHour.medianSeconds).not.toBeNull();
    const over = await boss.json<{
      days: Array<{ signups: number; generations: number; creditsGranted: number; creditsSpent: number }>;
      effects: Array<{ effectId: string; total: number }>;
    }>("/api/admin/overview?days=7");
    expect(over.body.days).toHaveLength(7);
    const today = over.body.days[6]!;
    expect(today.signups).toBeGreaterThanOrEqual(2);
    expect(today.generations).toBeGreaterThanOrEqual(1);
    expect(today.creditsSpent).toBeGreaterThanOrEqual(2);
    expect(over.body.effects.find((e) => e.effectId === effectId)?.total).toBeGreaterThanOrEqual(1);
  });

  it("a failed task records the engine that failed it; its story shows the automatic refund, a second one is refused", async () => {
    const db = server.services.db;
    const up = await alice.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    // A clean photo: the watermark remover finds nothing to remove; the task fails, refunded.
    const res = await submit(alice, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-watermark-remover",
      options: { rightsConfirmed: true },
    });
    expect(res.status).toBe(200);
    const id = res.body.data!.taskIds[0]!;
    expect((await waitForTask(alice, id, 60_000)).body.code).toBe(2);
    const [failed] = await db.select().from(task).where(eq(task.id, id));
    expect(failed).toMatchObject({ state: "failed", failedCode: "noWatermark", provider: "local" });
    const story = await boss.json<{
      events: Array<{ kind: string }>;
      refunded: boolean;
      refundable: boolean;
    }>(`/api/admin/tasks/${id}`);
    expect(story.body.events.map((e) => e.kind)).toEqual([
      "submitted",
      "charged",
      "claimed",
      "failed",
      "refunded",
    ]);
    expect(story.body).toMatchObject({ refunded: true, refundable: false });
    const balance = await getBalance(db, alice.id);
    const audits = await auditCount(server);
    const again = await boss.json(`/api/admin/tasks/${id}/refund`, { reason: "Customer asked" });
    expect(again).toMatchObject({ status: 409, body: { reason: "alreadyRefunded" } });
    expect(await getBalance(db, alice.id)).toBe(balance);
    expect(await auditCount(server)).toBe(audits);
    const failedList = await boss.json<{ rows: Array<{ id: string; provider: string }> }>(
      "/api/admin/tasks?status=failed&provider=local",
    );
    expect(failedList.body.rows).toEqual([expect.objectContaining({ id, provider: "local" })]);
    // The photo was refused by the effect's rules: a refused input, not an engine error.
    const engines = await boss.json<{ engines: EngineStats[] }>("/api/admin/engines");
    const local = engines.body.engines.find((e) => e.id === "local")!.lastHour;
    expect(local.refused).toBeGreaterThanOrEqual(1);
    expect(local).toMatchObject({ failed: 0, errorRate: 0, judged: local.finished - local.refused });
    const over = await boss.json<Overview>("/api/admin/overview?days=1");
    expect(over.body.effects.find((e) => e.effectId === "watermark-remover")).toMatchObject({
      total: 1,
      failed: 0,
      refused: 1,
      judged: 0,
      failureRate: null,
    });
  });

  it("role changes are audited; an admin cannot demote itself or an ADMIN_EMAILS account", async () => {
    const carol = await signUp(server);
    const audits = await auditCount(server);
    expect((await boss.json(`/api/admin/users/${carol.id}/role`, { role: "admin" })).status).toBe(200);
    expect((await carol.json("/api/admin/me")).status).toBe(200);
    expect((await carol.json(`/api/admin/users/${boss.id}/role`, { role: "user" })).body).toMatchObject({
      reason: "envAdmin",
    });
    expect((await carol.json(`/api/admin/users/${carol.id}/role`, { role: "user" })).body).toMatchObject({
      reason: "selfDemote",
    });
    expect((await boss.json(`/api/admin/users/${carol.id}/role`, { role: "user" })).status).toBe(200);
    // Demoted: 404 at once (the role is read on every request).
    expect((await carol.json("/api/admin/me")).status).toBe(404);
    expect(await auditCount(server)).toBe(audits + 2);
  });

  it("the audit log is append-only and is listed in the console", async () => {
    const log = await boss.json<{ rows: Array<{ action: string }> }>("/api/admin/audit?limit=100");
    expect(log.body.rows.map((r) => r.action)).toEqual(
      expect.arrayContaining([
        "credits.grant",
        "credits.remove",
        "effect.update",
        "task.refund",
        "user.role",
      ]),
    );
    await expect(server.services.db.delete(adminAudit)).rejects.toThrow();
  });
});

describe("admin console: suspension", () => {
  let server: TestServer;
  let boss: TestUser;
  beforeAll(async () => {
    // No worker: the submitted task stays queued until the suspension.
    server = await startTestServer({ noWorker: true, env: { ADMIN_EMAILS: "root@example.com" } });
    boss = await signUp(server, "root@example.com");
    await server.services.db.update(user).set({ emailVerified: true }).where(eq(user.id, boss.id));
  });
  afterAll(async () => {
    await server?.close();
  });

  it("kills the sessions at once, refuses sign-in with a clear code, refunds queued tasks; audited", async () => {
    const db = server.services.db;
    const email = `suspect-${Date.now()}@example.com`;
    const bob = await signUp(server, email);
    const queued = await submitOne(bob);
    expect(queued.status).toBe(200);
    const taskId = queued.body.data!.taskIds[0]!;
    expect(await getBalance(db, bob.id)).toBe(8);
    // The session is in the cache now (the hot path would keep it 30 s without the broadcast).
    expect((await bob.json("/api/credits")).status).toBe(200);
    expect(server.services.sessions.size).toBeGreaterThan(0);

    const audits = await auditCount(server);
    const res = await boss.json(`/api/admin/users/${bob.id}/suspend`, {
      suspended: true,
      reason: "Chargeback fraud",
    });
    expect(res).toMatchObject({ status: 200, body: { suspended: true, tasksRefunded: 1 } });
    expect((await bob.json("/api/credits")).status).toBe(401);
    expect((await bob.json("/api/img/nano-banana/taskResult", { taskId })).status).toBe(401);
    const [t] = await db.select().from(task).where(eq(task.id, taskId));
    expect(t).toMatchObject({ state: "failed", failedCode: "accountSuspended" });
    expect(await getBalance(db, bob.id)).toBe(10);
    expect(await ledgerSum(db, bob.id)).toBe(10);
    expect(await auditCount(server)).toBe(audits + 1);

    const signIn = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.services.env.appUrl },
      body: JSON.stringify({ email, password: "correct-horse-battery" }),
    });
    expect(signIn.status).toBe(403);
    expect(await signIn.json()).toMatchObject({ code: "ACCOUNT_SUSPENDED" });
    expect(signIn.headers.getSetCookie().join("")).not.toContain("session_token=");

    // The failed task was refunded when suspended: a refund by hand is refused.
    const again = await boss.json(`/api/admin/tasks/${taskId}/refund`, { reason: "Try twice" });
    expect(again).toMatchObject({ status: 409, body: { reason: "alreadyRefunded" } });
    expect(await getBalance(db, bob.id)).toBe(10);

    expect(
      (await boss.json(`/api/admin/users/${bob.id}/suspend`, { suspended: false, reason: "Resolved" }))
        .status,
    ).toBe(200);
    expect(await auditCount(server)).toBe(audits + 2);
    const back = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.services.env.appUrl },
      body: JSON.stringify({ email, password: "correct-horse-battery" }),
    });
    expect(back.status).toBe(200);
    const cookie = back.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    expect((await asUser(server, cookie, email, bob.id).json("/api/credits")).status).toBe(200);
  });

  it("deleting an account anonymises its audit rows (as target and as actor)", async () => {
    const db = server.services.db;
    const email = `leaver-${Date.now()}@example.com`;
    const leaver = await signUp(server, email);
    await db.update(user).set({ role: "admin" }).where(eq(user.id, leaver.id));
    expect(
      (
        await boss.json(`/api/admin/users/${leaver.id}/credits`, {
          amount: 3,
          reason: "Goodwill",
          idempotencyKey: "leaver-key-1",
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await leaver.json(`/api/admin/users/${boss.id}/credits`, {
          amount: 1,
          reason: "Thanks",
          idempotencyKey: "leaver-key-2",
        })
      ).status,
    ).toBe(200);
    const del = await leaver.json("/api/account/delete", { confirmation: email });
    expect(del.status).toBe(200);
    const rows = await db.select().from(adminAudit);
    const text = JSON.stringify(rows);
    expect(text).not.toContain(leaver.id);
    expect(text).not.toContain(email);
    expect(
      rows.filter((r) => r.targetId.startsWith("deleted_") || r.actorId.startsWith("deleted_")),
    ).toHaveLength(2);
  });
});

describe("admin console: engine error rate (a hosted provider, faked)", () => {
  const KEY = "fal-admin-key";
  let fal: FalFake;
  let server: TestServer;
  let boss: TestUser;
  beforeAll(async () => {
    fal = await startFalFake({ key: KEY });
    server = await startTestServer({
      env: {
        ADMIN_EMAILS: "ops@example.com",
        FAL_KEY: KEY,
        FAL_BASE_URL: fal.url,
        FAL_POLL_MS: "20",
        ENGINE_RETRY_ATTEMPTS: "2",
        ENGINE_RETRY_BASE_MS: "20",
        ENGINE_RETRY_MAX_MS: "200",
        ENGINE_BREAKER_THRESHOLD: "1000",
      },
    });
    boss = await signUp(server, "ops@example.com");
    await server.services.db.update(user).set({ emailVerified: true }).where(eq(user.id, boss.id));
  });
  afterAll(async () => {
    await server?.close();
    await fal?.close();
  });

  async function render(u: TestUser, mode: FalFake["mode"]) {
    fal.mode = mode;
    const up = await u.upload(fixture("portrait-female-1.jpg"), "me.jpg", "image/jpeg");
    expect(up.status).toBe(200);
    const res = await submit(u, { image_urls: [up.body.url], imageType: "nano-banana-lora-3d-finger" });
    expect(res.status).toBe(200);
    return waitForTask(u, res.body.data!.taskIds[0]!, 60_000);
  }

  it("counts the provider's errors, not the inputs its safety filter refused (shown apart)", async () => {
    const u = await signUp(server);
    expect((await render(u, "ok")).body.code).toBe(1);
    for (let i = 0; i < 2; i++)
      expect((await render(u, "safety")).body).toMatchObject({
        code: 2,
        failedCode: "providerSafetyBlocked",
      });
    expect((await render(u, "submit-5xx")).body).toMatchObject({ code: 2, failedCode: "providerBusy" });

    // 4 finished: 1 succeeded, 2 refused inputs, 1 engine error -> 1 / (4 - 2).
    const engines = await boss.json<{ engines: EngineStats[] }>("/api/admin/engines");
    expect(engines.body.engines.find((e) => e.id === "fal")?.lastHour).toMatchObject({
      finished: 4,
      failed: 1,
      refused: 2,
      judged: 2,
      errorRate: 0.5,
    });
    const over = await boss.json<Overview>("/api/admin/overview?days=1");
    expect(over.body.effects.find((e) => e.effectId === "3d-finger")).toEqual({
      effectId: "3d-finger",
      total: 4,
      failed: 1,
      refused: 2,
      judged: 2,
      failureRate: 0.5,
    });
    expect(over.body.days[0]).toMatchObject({ failed: 1, refused: 2 });
  });
});

describe("admin console: revenue as recorded at payment time (test checkout)", () => {
  const pricing = (currency: string, starter: number) =>
    JSON.stringify({
      currency,
      packs: [{ id: "starter", name: "Starter", credits: 40, priceCents: starter }],
      plans: [{ id: "pro", name: "Pro", monthlyCredits: 300, priceCents: 1299 }],
    });
  let server: TestServer;
  let boss: TestUser;
  beforeAll(async () => {
    server = await startTestServer({
      env: { ADMIN_EMAILS: "till@example.com", PRICING_JSON: pricing("usd", 499) },
    });
    boss = await signUp(server, "till@example.com");
    await server.services.db.update(user).set({ emailVerified: true }).where(eq(user.id, boss.id));
  });
  afterAll(async () => {
    await server?.close();
  });

  async function buy(u: TestUser, productId: string) {
    const start = await u.json<{ checkoutId: string }>("/api/checkout", { productId });
    expect(start.status).toBe(200);
    expect((await u.json(`/api/checkout/test/${start.body.checkoutId}/complete`, {})).status).toBe(200);
  }

  it("keeps each payment's amount and currency when the price table changes; older purchases are counted as unrecorded", async () => {
    const u = await signUp(server);
    await buy(u, "starter");
    await buy(u, "pro");
    // A purchase fulfilled before amounts were recorded: its ledger entry, no payment row.
    await server.services.db.insert(creditEntry).values({
      userId: u.id,
      amount: 40,
      kind: "purchase",
      idempotencyKey: `purchase:legacy-${u.id}`,
      note: "Starter pack",
    });
    const before = await boss.json<Overview>("/api/admin/overview?days=1");
    expect(before.body).toMatchObject({
      currencies: ["usd"],
      revenue: [{ provider: "test", currency: "usd", amount: 17.98, payments: 2 }],
      unrecordedPayments: 1,
    });
    expect(before.body.days[0]!.revenue).toEqual(before.body.revenue);

    // The operator changes PRICING_JSON (another price, another currency) and restarts.
    const { databaseUrl, dataDir } = server;
    await server.stop();
    server = await startTestServer({
      env: { ADMIN_EMAILS: "till@example.com", PRICING_JSON: pricing("eur", 999) },
      reuse: { databaseUrl, dataDir },
    });
    boss = asUser(server, boss.cookie, boss.email, boss.id);
    const after = await boss.json<Overview>("/api/admin/overview?days=1");
    expect(after.body.revenue).toEqual(before.body.revenue);
    expect(after.body.unrecordedPayments).toBe(1);

    await buy(asUser(server, u.cookie, u.email, u.id), "starter");
    const both = await boss.json<Overview>("/api/admin/overview?days=1");
    expect(both.body).toMatchObject({
      currencies: ["eur", "usd"],
      revenue: [
        { provider: "test", currency: "eur", amount: 9.99, payments: 1 },
        { provider: "test", currency: "usd", amount: 17.98, payments: 2 },
      ],
      unrecordedPayments: 1,
    });
  });
});

describe("admin console: revenue as recorded at payment time (Stripe)", () => {
  const SECRET = "whsec_admin_revenue_secret";
  const fake = stripeFake();
  let server: TestServer;
  let boss: TestUser;
  beforeAll(async () => {
    const api = await fake.listen();
    server = await startTestServer({
      env: {
        ADMIN_EMAILS: "cfo@example.com",
        STRIPE_SECRET_KEY: "sk_test_photofx",
        STRIPE_WEBHOOK_SECRET: SECRET,
        STRIPE_API_URL: api,
        TEST_CHECKOUT: "false",
      },
    });
    boss = await signUp(server, "cfo@example.com");
    await server.services.db.update(user).set({ emailVerified: true }).where(eq(user.id, boss.id));
  });
  afterAll(async () => {
    await server?.close();
    await fake.close();
  });

  const deliver = async (event: object) =>
    expect((await deliverStripeEvent(server.url, SECRET, event)).status).toBe(200);
  async function pay(u: TestUser, productId: string) {
    const start = await u.json<{ url: string }>("/api/checkout", { productId });
    expect(start.status).toBe(200);
    return fake.pay(/\/c\/pay\/(cs_[A-Za-z0-9_]+)$/.exec(start.body.url)![1]!);
  }

  it("sums what Stripe charged (a discounted pack, a plan's invoice once), not the price table", async () => {
    const u = await signUp(server);
    // The pack was paid with a promotion code: Stripe charged 3.00, not the list price 4.99.
    const pack = await pay(u, "starter");
    const completed = pack.completed as { data: { object: Record<string, unknown> } };
    completed.data.object.amount_total = 300;
    await deliver(completed);
    await deliver(completed);
    // A plan: the checkout says 12.99 and so does its first invoice; the money came once.
    const plan = await pay(u, "pro");
    await deliver(plan.completed);
    await deliver(plan.invoicePaid!);
    const over = await boss.json<Overview>("/api/admin/overview?days=1");
    expect(over.body).toMatchObject({
      currencies: ["usd"],
      revenue: [{ provider: "stripe", currency: "usd", amount: 15.99, payments: 2 }],
      unrecordedPayments: 0,
    });
  });
});
