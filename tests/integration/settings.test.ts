import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, ledgerSum } from "@/core/credits";
import { task } from "@/core/schema";
import { fixture, SCALE_OUT, signUp, startTestServer, submit, waitForTask, type TestServer } from "./harness";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const effectId = "inverted-face-filter";
const imageType = `nano-banana-lora-${effectId}`;

describe("runtime settings: an effect switched off", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("refuses the submit with a translated message and charges nothing; on again, it renders", async () => {
    const user = await signUp(server);
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    expect(up.status).toBe(200);

    await server.services.settings.update({ effects: { [effectId]: { enabled: false } } }, "test-admin");
    const refused = await submit(user, { image_urls: [up.body.url], imageType });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: "EFFECT_DISABLED",
      message: "This effect is switched off on this server right now.",
      messageKey: "effectDisabled",
    });
    const db = server.services.db;
    expect(await getBalance(db, user.id)).toBe(10);
    expect(await ledgerSum(db, user.id)).toBe(10);
    expect(await db.select().from(task).where(eq(task.userId, user.id))).toEqual([]);

    // Other effects are untouched; switched on again, the same request goes through.
    await server.services.settings.update({ effects: { [effectId]: { enabled: true } } }, "test-admin");
    const accepted = await submit(user, { image_urls: [up.body.url], imageType });
    expect(accepted.status).toBe(200);
    const done = await waitForTask(user, accepted.body.data!.taskIds[0]!);
    expect(done.body.code).toBe(1);
    expect(await getBalance(db, user.id)).toBe(await ledgerSum(db, user.id));
  });

  it.runIf(SCALE_OUT)("a change made through the web process reaches the worker process", async () => {
    expect(server.renderer).not.toBe(server.services);
    await server.services.settings.update(
      { effects: { "3d-finger": { enabled: false, engine: "local" } } },
      "a",
    );
    await expect
      .poll(() => server.renderer.settings.current().effects["3d-finger"], { timeout: 5_000 })
      .toEqual({ enabled: false, engine: "local" });
    await server.services.settings.update({ effects: { "3d-finger": { enabled: true, engine: null } } }, "a");
    await expect
      .poll(() => server.renderer.settings.current().effects["3d-finger"], { timeout: 5_000 })
      .toEqual({ enabled: true });
  });
});

describe("runtime settings across processes (Redis pub/sub)", () => {
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    const env = { REDIS_URL, QUEUE_NAME: `photofx-settings-${process.pid}-${Date.now()}` };
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

  it("a change made through one process is seen by the other, and its submits refuse the effect", async () => {
    const seen: boolean[] = [];
    second.services.settings.subscribe((s) => seen.push(s.effects[effectId]!.enabled));
    await first.services.settings.update({ effects: { [effectId]: { enabled: false } } }, "test-admin");
    await expect.poll(() => second.services.settings.current().effects[effectId]?.enabled).toBe(false);
    expect(seen).toEqual([false]);

    const user = await signUp(second);
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const refused = await submit(user, { image_urls: [up.body.url], imageType });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("EFFECT_DISABLED");
    expect(await getBalance(second.services.db, user.id)).toBe(await ledgerSum(second.services.db, user.id));
  });
});
