import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, ledgerSum, spendCreditsTx } from "@/core/credits";
import { countLiveUploads } from "@/core/uploads";
import { fixture, signUp, startTestServer, submit, waitForTask, type TestServer, SCALE_OUT } from "./harness";

/** The whole generation flow over HTTP against the real Postgres of this machine. */
describe("generation flow (Postgres)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("signs up with the starting grant, uploads, submits, and returns the exact mirror", async () => {
    const user = await signUp(server);
    expect((await user.json("/api/credits")).body).toEqual({ balance: 10 });

    const input = fixture("pet-1-cat.png");
    const up = await user.upload(input, "cat.png", "image/png");
    expect(up.status).toBe(200);
    expect(up.body.url).toMatch(/^\/api\/uploads\/[A-Za-z0-9]+$/);

    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBeTruthy();
    const taskIds = res.body.data!.taskIds;
    expect(taskIds).toHaveLength(1);

    const done = await waitForTask(user, taskIds[0]!);
    expect(done.body).toMatchObject({ code: 1, status: 1, failedReason: null });
    const imageUrl = done.body.data.imageUrl!;
    expect(imageUrl).toMatch(/^\/api\/images\//);

    const imgRes = await user.fetch(imageUrl);
    expect(imgRes.status).toBe(200);
    // Served by us (nosniff) on local disk; S3 mode redirects to a presigned URL.
    if (!SCALE_OUT) expect(imgRes.headers.get("x-content-type-options")).toBe("nosniff");
    const out = await sharp(Buffer.from(await imgRes.arrayBuffer()))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const expected = await sharp(input).flop().ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(out.info.width).toBe(expected.info.width);
    expect(out.info.height).toBe(expected.info.height);
    expect(out.data.equals(expected.data)).toBe(true);

    // Charged once, settled; the cached balance equals the ledger.
    const db = server.services.db;
    expect((await user.json("/api/credits")).body).toEqual({ balance: 8 });
    expect(await ledgerSum(db, user.id)).toBe(8);

    // The original is gone from storage once its task ended.
    await expect.poll(async () => (await user.fetch(up.body.url!)).status).toBe(404);
    await expect.poll(() => countLiveUploads(db, user.id)).toBe(0);

    // The result lists url, prompt, createdAt, source upload urls and seed.
    const list = await user.json<{ images: Array<Record<string, unknown>> }>("/api/images");
    expect(list.body.images[0]).toMatchObject({ url: imageUrl, prompt: "", uploadedImages: [up.body.url] });
    expect(typeof list.body.images[0]!.seed).toBe("number");
    expect(Date.parse(String(list.body.images[0]!.createdAt))).not.toBeNaN();
  });

  it("answers 401 with the spec's message to a caller without a session", async () => {
    const res = await fetch(`${server.url}/api/img/nano-banana/submit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        prompt: "",
        image_urls: [],
        num_images: "1",
        turnstileToken: null,
        imageType: "nano-banana-lora-inverted-face-filter",
      }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ message: "Please sign in to continue" });
    const poll = await fetch(`${server.url}/api/img/nano-banana/taskResult`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ taskId: "x" }),
    });
    expect(poll.status).toBe(401);
    expect((await fetch(`${server.url}/api/credits`)).status).toBe(401);
  });

  it("answers 402 and creates nothing when the balance is too small", async () => {
    const user = await signUp(server);
    const db = server.services.db;
    await db.transaction((tx) =>
      spendCreditsTx(tx, { userId: user.id, amount: 9, key: `test-drain:${user.id}` }),
    );
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-pixel-illustration",
    });
    expect(res.status).toBe(402);
    expect(await getBalance(db, user.id)).toBe(1);
    expect(await ledgerSum(db, user.id)).toBe(1);
    const tasks = await db.query.task.findMany({ where: (t, { eq }) => eq(t.userId, user.id) });
    expect(tasks).toHaveLength(0);
  });

  it("refuses bad payloads with a clear 400 and charges nothing", async () => {
    const user = await signUp(server);
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [
        { image_urls: [], imageType: "nano-banana-lora-pixel-illustration" },
        /^Please upload at least one image$/,
      ],
      [{ image_urls: [up.body.url], imageType: "nano-banana-lora-nope" }, /Unknown imageType/],
      [
        { image_urls: [up.body.url], imageType: "nano-banana-lora-pixel-illustration", num_images: "4" },
        /num_images/,
      ],
      [{ image_urls: [up.body.url], imageType: "nano-banana-lora-watermark-remover" }, /right to edit/],
      [{ image_urls: [up.body.url], imageType: "nano-banana-lora-boob-boost-effect" }, /adult/],
      [{ image_urls: [up.body.url], imageType: "nano-banana-lora-hug-my-younger-self" }, /exactly 2 images/],
      [
        {
          image_urls: [up.body.url],
          imageType: "nano-banana-lora-image-outpainting",
          options: { edges: ["middle"] },
        },
        /./,
      ],
      [
        {
          image_urls: [up.body.url],
          imageType: "nano-banana-lora-pixel-illustration",
          prompt: "make it blue",
        },
        /does not take a prompt/,
      ],
    ];
    for (const [payload, message] of cases) {
      const res = await submit(user, payload);
      expect(res.status, JSON.stringify(payload)).toBe(400);
      expect(res.body.message, JSON.stringify(payload)).toMatch(message);
    }
    expect((await user.json("/api/credits")).body).toEqual({ balance: 10 });
  });

  it("names each refusal's message-catalogue entry so the client can show it in the user's language", async () => {
    const user = await signUp(server);
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const cases: Array<[Record<string, unknown>, string, Record<string, unknown>]> = [
      [{ image_urls: [], imageType: "nano-banana-lora-pixel-illustration" }, "noImages", {}],
      [
        { image_urls: [up.body.url], imageType: "nano-banana-lora-hug-my-younger-self" },
        "imageCountExact",
        { n: 2 },
      ],
      [
        { image_urls: [up.body.url], imageType: "nano-banana-lora-watermark-remover" },
        "option_rightsConfirmed",
        {},
      ],
      [
        { image_urls: [up.body.url], imageType: "nano-banana-lora-boob-boost-effect" },
        "option_adultConsent",
        {},
      ],
      [
        { image_urls: [up.body.url], imageType: "nano-banana-lora-pixel-illustration", turnstileToken: null },
        "verificationFailed",
        {},
      ],
    ];
    for (const [payload, key, values] of cases) {
      const res = await submit(user, payload);
      expect(res.status).toBe(400);
      expect(res.body, key).toMatchObject({ messageKey: key, messageValues: values });
    }
  });

  it("refuses an image_url that is not the caller's upload, and never fetches it", async () => {
    let hits = 0;
    const trap = http.createServer((_req, res) => {
      hits++;
      res.end("x");
    });
    await new Promise<void>((r) => trap.listen(0, "127.0.0.1", r));
    const trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}/api/uploads/abcdefghijklmnop`;
    try {
      const alice = await signUp(server);
      const bob = await signUp(server);
      const bobsUpload = await bob.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
      for (const url of [trapUrl, bobsUpload.body.url!, "/etc/passwd", "/api/uploads/doesnotexist123"]) {
        const res = await submit(alice, {
          image_urls: [url],
          imageType: "nano-banana-lora-inverted-face-filter",
        });
        expect(res.status, url).toBe(400);
        expect(res.body.message).toMatch(/upload/i);
      }
      expect(hits).toBe(0);
      expect((await alice.json("/api/credits")).body).toEqual({ balance: 10 });
      // Bob's file is not readable by Alice either.
      expect((await alice.fetch(bobsUpload.body.url!)).status).toBe(404);
    } finally {
      trap.close();
    }
  });

  it("answers 404 for another user's task and an unknown task", async () => {
    const alice = await signUp(server);
    const bob = await signUp(server);
    const up = await alice.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const res = await submit(alice, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    const taskId = res.body.data!.taskIds[0]!;
    const stolen = await bob.json("/api/img/nano-banana/taskResult", { taskId });
    expect(stolen.status).toBe(404);
    const unknown = await bob.json("/api/img/nano-banana/taskResult", { taskId: "nosuchtask" });
    expect(unknown.status).toBe(404);
    const done = await waitForTask(alice, taskId);
    expect(done.body.code).toBe(1);
    expect((await bob.fetch(done.body.data.imageUrl!)).status).toBe(404);
  });

  it("refuses, before charging anything, a photo that breaks a people effect's input rule", async () => {
    const user = await signUp(server);
    const up = await user.upload(fixture("landscape-1-meadow-cc0.jpg"), "meadow.jpg", "image/jpeg");
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-studio-portrait",
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      message: "No face was found in this photo. Please upload a clear portrait.",
      messageKey: "input_noFace",
    });
    // Nothing charged, no task written, and the upload stays for another effect.
    expect((await user.json("/api/credits")).body).toEqual({ balance: 10 });
    expect(await ledgerSum(server.services.db, user.id)).toBe(10);
    expect((await user.json<{ images: unknown[] }>("/api/images")).body.images).toHaveLength(0);
    expect(await countLiveUploads(server.services.db, user.id)).toBe(1);

    // A portrait passes the same check and is charged once.
    const portrait = await user.upload(fixture("portrait-male-2.jpg"), "me.jpg", "image/jpeg");
    const ok = await submit(user, {
      image_urls: [portrait.body.url],
      imageType: "nano-banana-lora-studio-portrait",
    });
    expect(ok.status).toBe(200);
    expect((await waitForTask(user, ok.body.data!.taskIds[0]!)).body.code).toBe(1);
    expect((await user.json("/api/credits")).body).toEqual({ balance: 8 });
  });

  it("refunds a render the engine refuses, with its reason", async () => {
    const user = await signUp(server);
    // A clean photo: the watermark remover finds nothing to remove (found only by rendering).
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-watermark-remover",
      options: { rightsConfirmed: true },
    });
    expect(res.status).toBe(200);
    const done = await waitForTask(user, res.body.data!.taskIds[0]!);
    expect(done.body).toMatchObject({
      code: 2,
      status: 2,
      data: { imageUrl: null },
      failedCode: "noWatermark",
    });
    expect(done.body.failedReason).toMatch(/No watermark.*refunded/);
    expect((await user.json("/api/credits")).body).toEqual({ balance: 10 });
    expect(await ledgerSum(server.services.db, user.id)).toBe(10);
    await expect.poll(() => countLiveUploads(server.services.db, user.id)).toBe(0);
  });

  it("makes one task per image for single-image effects, and charges each", async () => {
    const user = await signUp(server);
    const a = await user.upload(fixture("pet-1-cat.png"), "a.png", "image/png");
    const b = await user.upload(fixture("object-coffee.png"), "b.png", "image/png");
    const res = await submit(user, {
      image_urls: [a.body.url, b.body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    expect(res.status).toBe(200);
    expect(res.body.data!.taskIds).toHaveLength(2);
    for (const id of res.body.data!.taskIds) expect((await waitForTask(user, id)).body.code).toBe(1);
    expect((await user.json("/api/credits")).body).toEqual({ balance: 6 });
  });

  it("pushes the task's answer over server-sent events the moment it changes", async () => {
    const user = await signUp(server);
    const up = await user.upload(fixture("object-coffee.png"), "c.png", "image/png");
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-pixel-illustration",
    });
    const taskId = res.body.data!.taskIds[0]!;
    const stream = await user.fetch(`/api/img/nano-banana/taskEvents?taskId=${taskId}`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/text\/event-stream/);
    const text = await stream.text(); // the server closes the stream once the task ends
    const answers = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!));
    expect(answers.at(-1)).toMatchObject({ code: 1, status: 1 });
    expect(answers.at(-1).data.imageUrl).toMatch(/^\/api\/images\//);
    const other = await signUp(server);
    expect((await other.fetch(`/api/img/nano-banana/taskEvents?taskId=${taskId}`)).status).toBe(404);
  });

  it("serves health and readiness", async () => {
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    const ready = await fetch(`${server.url}/api/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: "ready",
      database: { kind: "postgres", status: "ok" },
      queue: { kind: SCALE_OUT ? "bullmq" : "in-process", status: "ok" },
      storage: { kind: SCALE_OUT ? "s3" : "local", status: "ok" },
    });
  });
});
