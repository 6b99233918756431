import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, ledgerSum } from "@/core/credits";
import { signUp, startTestServer, submit, waitForTask, type TestServer } from "./harness";

/** Credits are never lost or charged twice under concurrent submits (real Postgres). */
describe("concurrent submits", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const tinyPng = (i: number) =>
    sharp({ create: { width: 16, height: 16, channels: 3, background: { r: i * 5, g: 100, b: 200 } } })
      .png()
      .toBuffer();

  it("50 parallel submits from a user whose credits pay for 10 give exactly 10 tasks", async () => {
    const user = await signUp(server); // 10 credits = 5 generations
    const db = server.services.db;
    const { addCredits } = await import("@/core/credits");
    await addCredits(db, { userId: user.id, amount: 10, kind: "adjustment", key: `topup:${user.id}` });
    expect(await getBalance(db, user.id)).toBe(20); // pays for 10

    const urls: string[] = [];
    for (let i = 0; i < 50; i++) {
      const up = await user.upload(await tinyPng(i), `${i}.png`, "image/png");
      expect(up.status).toBe(200);
      urls.push(up.body.url!);
    }
    const results = await Promise.all(
      urls.map((url) =>
        submit(user, { image_urls: [url], imageType: "nano-banana-lora-inverted-face-filter" }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(40);
    const tasks = await db.query.task.findMany({ where: (t, { eq }) => eq(t.userId, user.id) });
    expect(tasks).toHaveLength(10);
    expect(await getBalance(db, user.id)).toBe(0);
    expect(await ledgerSum(db, user.id)).toBe(0);
    for (const r of ok) expect((await waitForTask(user, r.body.data!.taskIds[0]!)).body.code).toBe(1);
    expect(await getBalance(db, user.id)).toBe(0);
    expect(await ledgerSum(db, user.id)).toBe(0);
    // Each of the 50 submits is screened on device before any charge: minutes on a loaded CI.
  }, 120_000);

  it("a double click (the same payload twice at once) creates one task and charges once", async () => {
    const user = await signUp(server);
    const up = await user.upload(await tinyPng(1), "a.png", "image/png");
    const payload = { image_urls: [up.body.url], imageType: "nano-banana-lora-pixel-illustration" };
    const [a, b] = await Promise.all([submit(user, payload), submit(user, payload)]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.data!.taskIds).toEqual(b.body.data!.taskIds);
    expect(await getBalance(server.services.db, user.id)).toBe(8);
    await waitForTask(user, a.body.data!.taskIds[0]!);
  });

  it("the same Idempotency-Key charges once, even after the task has finished", async () => {
    const user = await signUp(server);
    const up = await user.upload(await tinyPng(2), "a.png", "image/png");
    const payload = { image_urls: [up.body.url], imageType: "nano-banana-lora-inverted-face-filter" };
    const first = await submit(user, payload, { "idempotency-key": "click-42" });
    expect(first.status).toBe(200);
    await waitForTask(user, first.body.data!.taskIds[0]!);
    const again = await submit(user, payload, { "idempotency-key": "click-42" });
    expect(again.status).toBe(200);
    expect(again.body.data!.taskIds).toEqual(first.body.data!.taskIds);
    expect(await getBalance(server.services.db, user.id)).toBe(8);
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
  });

  it("refuses the same Idempotency-Key with a different request (422), charging nothing", async () => {
    const user = await signUp(server);
    const a = await user.upload(await tinyPng(3), "a.png", "image/png");
    const b = await user.upload(await tinyPng(4), "b.png", "image/png");
    const first = await submit(
      user,
      { image_urls: [a.body.url], imageType: "nano-banana-lora-inverted-face-filter" },
      { "idempotency-key": "click-7" },
    );
    expect(first.status).toBe(200);
    const other = await submit(
      user,
      { image_urls: [b.body.url], imageType: "nano-banana-lora-inverted-face-filter" },
      { "idempotency-key": "click-7" },
    );
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ messageKey: "idempotencyMismatch" });
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
  });
});
