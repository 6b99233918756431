import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { and, eq, like, or, sql } from "drizzle-orm";
import { unzipSync } from "fflate";
import sharp from "sharp";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, ledgerSum } from "@/core/credits";
import type { RenderRequest, RenderResult } from "@/core/ports/renderer";
import {
  account,
  creditEntry,
  image,
  session,
  shareLink,
  subscription,
  task,
  taskInput,
  upload,
  user as userTable,
  userBalance,
} from "@/core/schema";
import { shareImagePath } from "@/core/share";
import { countLiveUploads } from "@/core/uploads";
import {
  SCALE_OUT,
  asUser,
  solveBotCheck,
  signUp,
  startTestServer,
  submit,
  waitForTask,
  type TestServer,
  type TestUser,
} from "./harness";

const PASSWORD = "correct-horse-battery";
const EFFECT = "nano-banana-lora-inverted-face-filter";

/**
 * A renderer that mirrors its input (like the local engine's inverted-face-filter) and, while
 * `held` is set, waits: a task that is still running when its account is deleted.
 */
function controllableRenderer() {
  let release: (() => void) | null = null;
  let gate: Promise<void> | null = null;
  let started = 0;
  return {
    hold() {
      gate = new Promise<void>((r) => (release = r));
    },
    release() {
      release?.();
      gate = null;
    },
    get started() {
      return started;
    },
    renderer: {
      id: "test",
      supports: () => true,
      async render(req: RenderRequest): Promise<RenderResult> {
        started++;
        const wait = gate;
        if (wait) await wait;
        const { data, info } = await sharp(Buffer.from(req.images[0]!.bytes))
          .flop()
          .png()
          .toBuffer({ resolveWithObject: true });
        return {
          bytes: data,
          mime: "image/png",
          width: info.width,
          height: info.height,
          provider: "test",
          model: `seed-${req.seed}`,
        };
      },
    },
  };
}

const photo = (i: number) =>
  sharp({ create: { width: 24, height: 16, channels: 3, background: { r: 30 * i, g: 90, b: 160 } } })
    .png()
    .toBuffer();

async function generate(u: TestUser, i = 1): Promise<{ taskId: string; imageUrl: string; imageId: string }> {
  const up = await u.upload(await photo(i), `${i}.png`, "image/png");
  expect(up.status).toBe(200);
  const res = await submit(u, { image_urls: [up.body.url], imageType: EFFECT });
  expect(res.status).toBe(200);
  const taskId = res.body.data!.taskIds[0]!;
  const done = await waitForTask(u, taskId);
  expect(done.body.code).toBe(1);
  const imageUrl = done.body.data.imageUrl!;
  return { taskId, imageUrl, imageId: imageUrl.split("/").pop()! };
}

async function signIn(server: TestServer, email: string, password = PASSWORD) {
  return fetch(`${server.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.services.env.appUrl },
    body: JSON.stringify({ email, password }),
  });
}

/** Every file under the local disk storage (empty in S3 mode). */
function storedFiles(server: TestServer): string[] {
  const root = path.join(server.dataDir, "objects");
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .flatMap((d) => (d.isFile() ? [path.relative(root, path.join(d.parentPath, d.name))] : []));
}

async function ledgerTotal(server: TestServer): Promise<number> {
  const [row] = await server.services.db
    .select({ sum: sql<string>`coalesce(sum(${creditEntry.amount}), 0)` })
    .from(creditEntry);
  return Number(row!.sum);
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("deleting an account (test checkout)", () => {
  const ctl = controllableRenderer();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ renderer: ctl.renderer, env: { NSFW_CHECK: "false" } });
  });
  afterAll(async () => {
    ctl.release();
    await server?.close();
  });

  it("asks for the e-mail, refuses another site, and deletes nothing when refused", async () => {
    const a = await signUp(server);
    const wrong = await a.json("/api/account/delete", { confirmation: "someone@example.com" });
    expect(wrong.status).toBe(400);
    const empty = await a.json("/api/account/delete", {});
    expect(empty.status).toBe(400);
    const crossSite = await a.json(
      "/api/account/delete",
      { confirmation: a.email },
      { headers: { origin: "https://evil.example" } },
    );
    expect(crossSite.status).toBe(403);
    const anonymous = await fetch(`${server.url}/api/account/delete`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.services.env.appUrl },
      body: JSON.stringify({ confirmation: a.email }),
    });
    expect(anonymous.status).toBe(401);
    expect((await a.json<{ user: unknown }>("/api/me")).body.user).not.toBeNull();
    expect((await signIn(server, a.email)).status).toBe(200);
  });

  it("cancels the plan and running tasks, deletes files, links, sessions and the person; keeps an anonymous ledger", async () => {
    const db = server.services.db;
    const a = await signUp(server);
    const b = await signUp(server);

    // A subscribes (test checkout) and makes a result with a public link.
    const checkout = await a.json<{ checkoutId: string }>("/api/checkout", { productId: "pro" });
    expect(checkout.status).toBe(200);
    expect((await a.json(`/api/checkout/test/${checkout.body.checkoutId}/complete`, {})).status).toBe(200);
    expect((await a.json<{ plan: { plan: string } }>("/api/me")).body.plan.plan).toBe("subscribed");
    const made = await generate(a, 1);
    const share = await a.json<{ token: string }>(`/api/history/${made.imageId}/share`, {});
    expect(share.status).toBe(200);
    const shareUrl = shareImagePath(share.body.token);
    expect((await fetch(`${server.url}${shareUrl}`)).status).toBe(200);
    const signedImage = server.services.signer.sign("images", made.imageId, 600);
    expect((await fetch(`${server.url}${signedImage}`)).status).toBe(200);

    // B, who must not be touched.
    const bMade = await generate(b, 2);
    const bFiles = await db.select({ key: image.storageKey }).from(image).where(eq(image.userId, b.id));

    // A second session of A (another browser).
    const second = await signIn(server, a.email);
    expect(second.status).toBe(200);
    const a2 = asUser(
      server,
      second.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; "),
      a.email,
      a.id,
    );
    expect((await a2.json<{ user: { id: string } | null }>("/api/me")).body.user?.id).toBe(a.id);

    // A task still rendering when the account goes.
    ctl.hold();
    const startedBefore = ctl.started;
    const up = await a.upload(await photo(3), "3.png", "image/png");
    const pending = await submit(a, { image_urls: [up.body.url], imageType: EFFECT });
    expect(pending.status).toBe(200);
    const pendingTask = pending.body.data!.taskIds[0]!;
    await waitFor(async () => ctl.started > startedBefore, "the render to start");
    const pendingUpload = up.body.url!.split("/").pop()!;
    const signedUpload = server.services.signer.sign("uploads", pendingUpload, 600);
    expect((await fetch(`${server.url}${signedUpload}`)).status).toBe(200);

    const aKeys = [
      ...(await db.select({ key: image.storageKey }).from(image).where(eq(image.userId, a.id))),
      ...(await db.select({ key: upload.storageKey }).from(upload).where(eq(upload.userId, a.id))),
    ].map((r) => r.key);
    const balanceBefore = await getBalance(db, a.id);
    expect(balanceBefore).toBe(10 + 300 - 2 - 2);
    const entriesBefore = await db.select().from(creditEntry).where(eq(creditEntry.userId, a.id));
    const totalBefore = await ledgerTotal(server);

    const res = await a.json<{ deleted: boolean; tasksCancelled: number; subscriptionCancelled: string }>(
      "/api/account/delete",
      { confirmation: ` ${a.email.toUpperCase()} ` },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ deleted: true, tasksCancelled: 1, subscriptionCancelled: "test" });

    // Signing in with the old credentials fails; both sessions are over at once.
    expect((await signIn(server, a.email)).status).not.toBe(200);
    expect((await a.json<{ user: unknown }>("/api/me")).body.user).toBeNull();
    expect((await a2.json<{ user: unknown }>("/api/me")).body.user).toBeNull();
    expect((await a2.json("/api/credits")).status).toBe(401);

    // Every file URL of A answers 404: the owner's, signed ones, the public link.
    expect((await a.fetch(made.imageUrl)).status).toBe(404);
    expect((await fetch(`${server.url}${signedImage}`)).status).toBe(404);
    expect((await fetch(`${server.url}${signedUpload}`)).status).toBe(404);
    expect((await fetch(`${server.url}${shareUrl}`)).status).toBe(404);
    for (const key of aKeys) expect(await server.services.storage.exists(key)).toBe(false);

    // The person is gone, and every row that was theirs.
    for (const [table, column] of [
      [userTable, userTable.id],
      [session, session.userId],
      [account, account.userId],
      [userBalance, userBalance.userId],
      [subscription, subscription.userId],
      [task, task.userId],
      [upload, upload.userId],
      [image, image.userId],
      [shareLink, shareLink.userId],
      [creditEntry, creditEntry.userId],
    ] as const) {
      const rows = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(table)
        .where(eq(column, a.id));
      expect(rows[0]!.n).toBe(0);
    }

    // The ledger keeps A's rows under a tombstone: same amounts, plus the cancelled task's
    // refund; nothing names the person.
    const tomb = await db.select().from(creditEntry).where(like(creditEntry.userId, "deleted\\_%"));
    const tombIds = new Set(tomb.map((e) => e.userId));
    expect(tombIds.size).toBe(1);
    const tombstone = [...tombIds][0]!;
    expect(tomb).toHaveLength(entriesBefore.length + 1);
    expect(tomb.find((e) => e.kind === "refund" && e.taskId === pendingTask)?.amount).toBe(2);
    expect(await ledgerSum(db, tombstone)).toBe(balanceBefore + 2);
    expect(await ledgerTotal(server)).toBe(totalBefore + 2);
    const dump = JSON.stringify(tomb);
    expect(dump).not.toContain(a.id);
    expect(dump.toLowerCase()).not.toContain(a.email.toLowerCase());
    expect(dump).not.toContain("Test User");
    expect(
      (
        await db
          .select()
          .from(creditEntry)
          .where(or(like(creditEntry.idempotencyKey, `%${a.id}%`), eq(creditEntry.userId, a.id)))
      ).length,
    ).toBe(0);

    // The render that was running finishes into nothing: its output is dropped.
    const before = storedFiles(server).length;
    ctl.release();
    await new Promise((r) => setTimeout(r, 300));
    if (!SCALE_OUT) expect(storedFiles(server).length).toBeLessThanOrEqual(before);
    expect(await db.select().from(image).where(eq(image.taskId, pendingTask))).toHaveLength(0);

    // B is untouched.
    expect((await b.fetch(bMade.imageUrl)).status).toBe(200);
    for (const { key } of bFiles) expect(await server.services.storage.exists(key)).toBe(true);
    expect(await getBalance(db, b.id)).toBe(8);
    expect(await ledgerSum(db, b.id)).toBe(8);
    expect((await signIn(server, b.email)).status).toBe(200);
    expect((await b.json<{ user: { id: string } }>("/api/me")).body.user.id).toBe(b.id);
  });
});

/** A local stand-in for Stripe's API (its real paths and shapes): checkouts and subscription cancels. */
function fakeStripe() {
  const requests: Array<{ method: string; path: string; body: URLSearchParams }> = [];
  const live = new Set<string>();
  let failNext = 0;
  let n = 0;
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      // Stripe's clients send a DELETE's parameters in the query string, others in the body.
      const parsed = new URL(req.url ?? "/", "http://stripe.test");
      const url = parsed.pathname;
      const params = new URLSearchParams(req.method === "DELETE" ? parsed.search : raw);
      requests.push({ method: req.method ?? "", path: url, body: params });
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json", "request-id": `req_${++n}` });
        res.end(JSON.stringify(body));
      };
      if (req.method === "POST" && url === "/v1/checkout/sessions") {
        const id = `cs_test_${n + 1}`;
        return send(200, { id, object: "checkout.session", url: `https://checkout.stripe.test/c/pay/${id}` });
      }
      const cancel = /^\/v1\/subscriptions\/([A-Za-z0-9_]+)$/.exec(url);
      if (req.method === "DELETE" && cancel) {
        if (failNext > 0) {
          failNext--;
          return send(500, { error: { type: "api_error", message: "Something went wrong" } });
        }
        const id = cancel[1]!;
        if (!live.delete(id)) {
          return send(404, {
            error: {
              type: "invalid_request_error",
              code: "resource_missing",
              param: "id",
              message: `No such subscription: '${id}'`,
            },
          });
        }
        const now = Math.floor(Date.now() / 1000);
        return send(200, {
          id,
          object: "subscription",
          status: "canceled",
          canceled_at: now,
          ended_at: now,
          cancel_at_period_end: false,
          cancellation_details: {
            comment: params.get("cancellation_details[comment]"),
            feedback: null,
            reason: "cancellation_requested",
          },
        });
      }
      send(404, { error: { type: "invalid_request_error", message: "Unrecognized request URL" } });
    });
  });
  return {
    server,
    requests,
    live,
    failNextCancels(k: number) {
      failNext = k;
    },
  };
}

describe("deleting an account with a Stripe subscription", () => {
  const WEBHOOK_SECRET = "whsec_test_secret_for_photofx";
  const fake = fakeStripe();
  const stripe = new Stripe("sk_test_x");
  let server: TestServer;
  beforeAll(async () => {
    await new Promise<void>((r) => fake.server.listen(0, "127.0.0.1", r));
    const port = (fake.server.address() as AddressInfo).port;
    server = await startTestServer({
      env: {
        STRIPE_SECRET_KEY: "sk_test_photofx",
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_URL: `http://127.0.0.1:${port}`,
        NSFW_CHECK: "false",
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    fake.server.close();
  });

  const deliver = (id: string, type: string, object: Record<string, unknown>) => {
    const payload = JSON.stringify({
      id,
      object: "event",
      type,
      api_version: "2025-01-01",
      created: Math.floor(Date.now() / 1000),
      data: { object },
    });
    return fetch(`${server.url}/api/webhooks/stripe`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "stripe-signature": stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
      },
      body: payload,
    });
  };

  async function subscribe(u: TestUser, subId: string) {
    const { body } = await u.json<{ checkoutId: string }>("/api/checkout", { productId: "pro" });
    const completed = await deliver(`evt_${subId}_c`, "checkout.session.completed", {
      id: `cs_${subId}`,
      object: "checkout.session",
      client_reference_id: body.checkoutId,
      payment_status: "paid",
      subscription: subId,
      customer: `cus_${subId}`,
      metadata: {},
    });
    expect(completed.status).toBe(200);
    fake.live.add(subId);
    const [row] = await server.services.db.select().from(subscription).where(eq(subscription.userId, u.id));
    expect(row).toMatchObject({ status: "active", provider: "stripe", providerSubscriptionId: subId });
  }

  it("cancels the subscription at Stripe at once, then deletes the account", async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    await subscribe(a, "sub_delete_a");
    await subscribe(b, "sub_keep_b");
    const res = await a.json("/api/account/delete", { confirmation: a.email });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subscriptionCancelled: "stripe" });
    const cancels = fake.requests.filter((r) => r.method === "DELETE");
    expect(cancels.map((r) => r.path)).toEqual(["/v1/subscriptions/sub_delete_a"]);
    expect(cancels[0]!.body.get("cancellation_details[comment]")).toBe("Account deleted by its owner");
    expect(fake.live.has("sub_delete_a")).toBe(false);
    expect(fake.live.has("sub_keep_b")).toBe(true);
    expect((await signIn(server, a.email)).status).not.toBe(200);
    // Stripe then reports the subscription deleted: nothing left to change, no error.
    const late = await deliver("evt_sub_deleted_a", "customer.subscription.deleted", {
      id: "sub_delete_a",
      object: "subscription",
      status: "canceled",
    });
    expect(late.status).toBe(200);
    const [bSub] = await server.services.db.select().from(subscription).where(eq(subscription.userId, b.id));
    expect(bSub?.status).toBe("active");
  });

  it("deletes nothing when Stripe cannot cancel, and goes ahead when Stripe no longer has the subscription", async () => {
    const a = await signUp(server);
    await subscribe(a, "sub_flaky");
    fake.failNextCancels(10);
    const refused = await a.json<{ reason: string }>("/api/account/delete", { confirmation: a.email });
    expect(refused.status).toBe(503);
    expect(refused.body.reason).toBe("subscriptionNotCancelled");
    expect((await a.json<{ user: { id: string } }>("/api/me")).body.user.id).toBe(a.id);
    expect((await signIn(server, a.email)).status).toBe(200);
    fake.failNextCancels(0);

    // Cancelled at Stripe meanwhile (the dashboard): Stripe answers 404, the deletion proceeds.
    fake.live.delete("sub_flaky");
    const res = await a.json("/api/account/delete", { confirmation: a.email });
    expect(res.status).toBe(200);
    expect((await signIn(server, a.email)).status).not.toBe(200);
  });
});

describe("exporting my data", () => {
  const ctl = controllableRenderer();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ renderer: ctl.renderer, env: { NSFW_CHECK: "false" } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("is a ZIP of the owner's data and images, and only theirs", async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    const one = await generate(a, 1);
    const two = await generate(a, 4);
    const share = await a.json<{ token: string }>(`/api/history/${one.imageId}/share`, {});
    expect(share.status).toBe(200);
    const bMade = await generate(b, 2);

    expect((await fetch(`${server.url}/api/account/export`)).status).toBe(401);
    const res = await a.fetch("/api/account/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="photofx-data-\d{4}-\d{2}-\d{2}\.zip"$/,
    );
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const names = Object.keys(files).sort();
    expect(names).toEqual(
      ["images/" + one.imageId + ".png", "images/" + two.imageId + ".png", "photofx-data.json"].sort(),
    );

    // The images are the stored results, byte for byte.
    for (const made of [one, two]) {
      const served = new Uint8Array(await (await a.fetch(made.imageUrl)).arrayBuffer());
      expect(Buffer.from(files[`images/${made.imageId}.png`]!).equals(Buffer.from(served))).toBe(true);
    }

    const doc = JSON.parse(Buffer.from(files["photofx-data.json"]!).toString("utf8"));
    expect(doc.format).toBe("photofx-data-export/1");
    expect(doc.profile).toMatchObject({ id: a.id, email: a.email, name: "Test User" });
    expect(doc.profile.signInMethods).toEqual([expect.objectContaining({ provider: "credential" })]);
    expect(doc.preferences).toEqual({ keepOriginals: false });
    expect(doc.plan.subscription).toBeNull();
    expect(doc.credits.balance).toBe(6);
    expect(doc.credits.ledger.map((e: { kind: string }) => e.kind)).toEqual(["grant", "charge", "charge"]);
    expect(doc.tasks).toHaveLength(2);
    expect(doc.tasks[0]).toMatchObject({
      id: one.taskId,
      effectId: "inverted-face-filter",
      state: "succeeded",
      options: expect.any(Object),
      seed: expect.any(Number),
    });
    expect(doc.images.map((i: { id: string; file: string }) => [i.id, i.file])).toEqual([
      [one.imageId, `images/${one.imageId}.png`],
      [two.imageId, `images/${two.imageId}.png`],
    ]);
    expect(doc.uploads).toHaveLength(2);
    expect(doc.uploads.every((u: { deletedAt: string | null }) => u.deletedAt !== null)).toBe(true);
    expect(doc.shareLinks).toEqual([
      expect.objectContaining({ imageId: one.imageId, url: `/s/${share.body.token}`, active: true }),
    ]);
    // Nothing of B, and no secrets.
    const text = Buffer.from(files["photofx-data.json"]!).toString("utf8");
    expect(text).not.toContain(b.email);
    expect(text).not.toContain(b.id);
    expect(text).not.toContain(bMade.imageId);
    expect(text).not.toMatch(/"(password|token|accessToken|refreshToken|idToken)"\s*:/);
  });
});

describe("keeping originals for 30 days", () => {
  const ctl = controllableRenderer();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ renderer: ctl.renderer, env: { NSFW_CHECK: "false" } });
  });
  afterAll(async () => {
    await server?.close();
  });

  const uploadIdOf = async (taskId: string) => {
    const [row] = await server.services.db
      .select({
        id: upload.id,
        key: upload.storageKey,
        keepUntil: upload.keepUntil,
        deletedAt: upload.deletedAt,
      })
      .from(upload)
      .innerJoin(taskInput, eq(taskInput.uploadId, upload.id))
      .where(eq(taskInput.taskId, taskId));
    return row!;
  };

  it("off (the default): originals go when the task ends, and nothing can be re-run", async () => {
    const a = await signUp(server);
    expect((await a.json("/api/account/preferences")).body).toEqual({ keepOriginals: false });
    const made = await generate(a, 1);
    expect(await countLiveUploads(server.services.db, a.id)).toBe(0);
    const orig = await a.json<{ kept: boolean; originals: unknown[] }>(
      `/api/results/${made.imageId}/originals`,
    );
    expect(orig.status).toBe(200);
    expect(orig.body).toMatchObject({ kept: false, originals: [] });
    const rerun = await a.json(`/api/results/${made.imageId}/rerun`, {
      turnstileToken: await solveBotCheck(server),
    });
    expect(rerun.status).toBe(409);
    expect(await getBalance(server.services.db, a.id)).toBe(8);
  });

  it("on: originals outlive the task, compare and re-run work, the 30-day sweep ends them", async () => {
    const db = server.services.db;
    const a = await signUp(server);
    const b = await signUp(server);
    const bad = await a.json("/api/account/preferences", { keepOriginals: "yes" }, { method: "PUT" });
    expect(bad.status).toBe(400);
    const on = await a.json("/api/account/preferences", { keepOriginals: true }, { method: "PUT" });
    expect(on.status).toBe(200);
    expect((await a.json("/api/account/preferences")).body).toEqual({ keepOriginals: true });

    const made = await generate(a, 1);
    const kept = await uploadIdOf(made.taskId);
    expect(kept.deletedAt).toBeNull();
    const days = (kept.keepUntil!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);

    // Compare: the original, served to its owner only.
    const orig = await a.json<{
      kept: boolean;
      keptUntil: string;
      originals: Array<{ id: string; url: string; width: number; height: number }>;
    }>(`/api/results/${made.imageId}/originals`);
    expect(orig.body).toMatchObject({ kept: true, originals: [{ id: kept.id, width: 24, height: 16 }] });
    const original = await a.fetch(orig.body.originals[0]!.url);
    expect(original.status).toBe(200);
    expect((await b.fetch(orig.body.originals[0]!.url)).status).toBe(404);
    expect((await b.json(`/api/results/${made.imageId}/originals`)).status).toBe(404);
    expect((await b.json(`/api/results/${made.imageId}/rerun`, {})).status).toBe(404);

    // The unused-upload sweep leaves it alone, even long past UPLOAD_TTL_MINUTES.
    await db
      .update(upload)
      .set({ createdAt: new Date(Date.now() - 3 * 3600_000) })
      .where(eq(upload.id, kept.id));
    await server.services.sweep();
    expect(await server.services.storage.exists(kept.key)).toBe(true);

    // Re-run: the normal submit path (bot-check for a free user, 2 credits), same settings.
    const noToken = await a.json(
      `/api/results/${made.imageId}/rerun`,
      {},
      { headers: { "idempotency-key": "rerun-0" } },
    );
    expect(noToken.status).toBe(400);
    expect(await getBalance(db, a.id)).toBe(8);
    const rerun = await a.json<{ data: { taskIds: string[] } }>(
      `/api/results/${made.imageId}/rerun`,
      { turnstileToken: await solveBotCheck(server) },
      { headers: { "idempotency-key": "rerun-1" } },
    );
    expect(rerun.status).toBe(200);
    const newTask = rerun.body.data.taskIds[0]!;
    expect(newTask).not.toBe(made.taskId);
    expect((await waitForTask(a, newTask)).body.code).toBe(1);
    const [first, again] = await Promise.all(
      [made.taskId, newTask].map(async (id) => (await db.select().from(task).where(eq(task.id, id)))[0]!),
    );
    expect(again).toMatchObject({
      effectId: first!.effectId,
      route: first!.route,
      prompt: first!.prompt,
      options: first!.options,
      seed: first!.seed,
    });
    expect(await getBalance(db, a.id)).toBe(6);
    expect(await ledgerSum(db, a.id)).toBe(6);
    // Still kept after the re-run's task ended.
    expect((await uploadIdOf(newTask)).deletedAt).toBeNull();

    // 30 days later the sweep deletes it; compare and re-run are over.
    await db
      .update(upload)
      .set({ keepUntil: new Date(Date.now() - 1000) })
      .where(eq(upload.id, kept.id));
    await server.services.sweep();
    expect(await server.services.storage.exists(kept.key)).toBe(false);
    expect((await uploadIdOf(made.taskId)).deletedAt).not.toBeNull();
    expect((await a.json(`/api/results/${made.imageId}/originals`)).body).toMatchObject({ kept: false });
    expect((await a.fetch(orig.body.originals[0]!.url)).status).toBe(404);
  });

  it("turning it off deletes the kept originals now, and later tasks keep nothing", async () => {
    const db = server.services.db;
    const a = await signUp(server);
    await a.json("/api/account/preferences", { keepOriginals: true }, { method: "PUT" });
    const one = await generate(a, 1);
    const two = await generate(a, 2);
    expect(await countLiveUploads(db, a.id)).toBe(2);
    const off = await a.json<{ keepOriginals: boolean; originalsDeleted: number }>(
      "/api/account/preferences",
      { keepOriginals: false },
      { method: "PUT" },
    );
    expect(off.body).toEqual({ keepOriginals: false, originalsDeleted: 2 });
    expect(await countLiveUploads(db, a.id)).toBe(0);
    for (const t of [one, two]) expect((await uploadIdOf(t.taskId)).keepUntil).toBeNull();
    await generate(a, 3);
    expect(await countLiveUploads(db, a.id)).toBe(0);
    const live = await db
      .select()
      .from(upload)
      .where(and(eq(upload.userId, a.id), sql`${upload.deletedAt} is null`));
    expect(live).toHaveLength(0);
  });
});
