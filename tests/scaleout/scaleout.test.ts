import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { image } from "@/core/schema";
import { getBalance, ledgerSum } from "@/core/credits";
import { countLiveUploads } from "@/core/uploads";
import {
  asUser,
  fixture,
  signUp,
  startTestServer,
  submit,
  waitForTask,
  type TestServer,
} from "../integration/harness";

/**
 * The platform in scale-out mode: this machine's Postgres and Redis, an S3-compatible test
 * server (s3rver), two web processes (role "web": they render nothing) and two workers
 * (role "worker"), each with its own services as separate processes would have.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const BUCKET = "photofx-test";

describe("scale-out mode (Postgres, Redis + BullMQ, S3)", () => {
  let s3: S3rver;
  let s3Dir: string;
  let s3Url: string;
  const processes: TestServer[] = [];
  let web1: TestServer;
  let web2: TestServer;

  beforeAll(async () => {
    s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), "photofx-s3-"));
    s3 = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory: s3Dir,
      configureBuckets: [{ name: BUCKET, configs: [] }],
    });
    const info = (await s3.run()) as AddressInfo;
    s3Url = `http://127.0.0.1:${info.port}`;
    const env = {
      REDIS_URL,
      // A queue of its own, so parallel runs and leftovers never mix.
      QUEUE_NAME: `photofx-test-${process.pid}-${Date.now()}`,
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: s3Url,
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      RATE_LIMIT_SUBMITS_PER_MINUTE: "0",
    };
    web1 = await startTestServer({ role: "web", env });
    const reuse = { databaseUrl: web1.databaseUrl, dataDir: web1.dataDir };
    web2 = await startTestServer({ role: "web", env, reuse });
    const worker1 = await startTestServer({ role: "worker", env, reuse });
    const worker2 = await startTestServer({ role: "worker", env, reuse });
    processes.push(worker2, worker1, web2);
  });

  afterAll(async () => {
    for (const p of processes) await p.stop();
    await web1?.close();
    await s3?.close();
    fs.rmSync(s3Dir, { recursive: true, force: true });
  });

  it("runs the whole flow across processes: web enqueues, a worker renders into S3, the other web answers", async () => {
    expect(web1.services.queue.kind).toBe("bullmq");
    expect(web1.services.storage.kind).toBe("s3");
    const user = await signUp(web1);
    const input = fixture("pet-1-cat.png");
    const up = await user.upload(input, "cat.png", "image/png");
    expect(up.status).toBe(200);
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    expect(res.status).toBe(200);
    const onWeb2 = asUser(web2, user.cookie, user.email, user.id);
    const done = await waitForTask(onWeb2, res.body.data!.taskIds[0]!);
    expect(done.body.code).toBe(1);

    // Served through a short presigned S3 URL; the bytes are the exact mirror.
    const redirect = await onWeb2.fetch(done.body.data.imageUrl!, { redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toContain(s3Url);
    const bytes = Buffer.from(await (await fetch(redirect.headers.get("location")!)).arrayBuffer());
    const got = await sharp(bytes).ensureAlpha().raw().toBuffer();
    const want = await sharp(input).flop().ensureAlpha().raw().toBuffer();
    expect(got.equals(want)).toBe(true);

    await expect.poll(() => countLiveUploads(web1.services.db, user.id)).toBe(0);
    const key = `uploads/${up.body.url!.split("/").pop()}`;
    expect(await web1.services.storage.exists(key)).toBe(false);
    expect(await getBalance(web1.services.db, user.id)).toBe(8);
  });

  it("pushes a worker's result to a server-sent-events stream on another web process", async () => {
    const user = await signUp(web1);
    const up = await user.upload(fixture("object-coffee.png"), "c.png", "image/png");
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-pixel-illustration",
    });
    const onWeb2 = asUser(web2, user.cookie, user.email, user.id);
    const stream = await onWeb2.fetch(`/api/img/nano-banana/taskEvents?taskId=${res.body.data!.taskIds[0]}`);
    const text = await stream.text();
    const last = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!)).at(-1);
    expect(last).toMatchObject({ code: 1 });
  });

  it("two web processes and two workers: every task completes exactly once and credits balance", async () => {
    const user = await signUp(web1);
    const { addCredits } = await import("@/core/credits");
    await addCredits(web1.services.db, {
      userId: user.id,
      amount: 30,
      kind: "adjustment",
      key: `topup:${user.id}`,
    });
    const onWeb2 = asUser(web2, user.cookie, user.email, user.id);
    const png = (i: number) =>
      sharp({ create: { width: 24, height: 16, channels: 3, background: { r: i * 12, g: 30, b: 90 } } })
        .png()
        .toBuffer();
    const submits = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const via = i % 2 ? onWeb2 : user;
        const up = await via.upload(await png(i), `${i}.png`, "image/png");
        expect(up.status, JSON.stringify(up.body)).toBe(200);
        return submit(via, { image_urls: [up.body.url], imageType: "nano-banana-lora-inverted-face-filter" });
      }),
    );
    for (const s of submits) expect(s.status, JSON.stringify(s.body)).toBe(200);
    const taskIds = submits.map((s) => s.body.data!.taskIds[0]!);
    for (const id of taskIds) expect((await waitForTask(user, id)).body.code).toBe(1);
    const images = await web1.services.db.select({ taskId: image.taskId }).from(image);
    const mine = images.filter((r) => taskIds.includes(r.taskId));
    expect(mine).toHaveLength(16);
    expect(new Set(mine.map((r) => r.taskId)).size).toBe(16);
    expect(await getBalance(web1.services.db, user.id)).toBe(40 - 32);
    expect(await ledgerSum(web1.services.db, user.id)).toBe(8);
  });

  it("reports readiness of database, queue and storage, and Prometheus metrics", async () => {
    const ready = await fetch(`${web1.url}/api/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      database: { kind: "postgres", status: "ok" },
      queue: { kind: "bullmq", status: "ok" },
      storage: { kind: "s3", status: "ok" },
    });
    const metrics = await (await fetch(`${web1.url}/api/metrics`)).text();
    expect(metrics).toMatch(/^photofx_queue_depth \d+/m);
    expect(metrics).toMatch(/^photofx_credits_charged_total [1-9]/m);
  });
});

describe("rate limits shared through Redis", () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers.reverse()) await s.close();
  });

  it("answers 429 with a clear message past the per-user submit limit, across web processes", async () => {
    const env = {
      REDIS_URL,
      QUEUE_NAME: `photofx-rl-${process.pid}-${Date.now()}`,
      RATE_LIMIT_SUBMITS_PER_MINUTE: "2",
    };
    const a = await startTestServer({ env });
    servers.push(a);
    const b = await startTestServer({
      env,
      role: "web",
      reuse: { databaseUrl: a.databaseUrl, dataDir: a.dataDir },
    });
    servers.push(b);
    const user = await signUp(a);
    const onB = asUser(b, user.cookie, user.email, user.id);
    const up = async (via: typeof user) =>
      (await via.upload(fixture("pet-1-cat.png"), "c.png", "image/png")).body.url;
    const payload = async (via: typeof user) => ({
      image_urls: [await up(via)],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    expect((await submit(user, await payload(user))).status).toBe(200);
    expect((await submit(onB, await payload(onB))).status).toBe(200);
    const third = await submit(user, await payload(user));
    expect(third.status).toBe(429);
    expect(third.body.message).toMatch(/Too many requests\. Please wait \d+ seconds and try again\./);
    expect(third.body).toMatchObject({ messageKey: "rateLimited" });
  });
});
