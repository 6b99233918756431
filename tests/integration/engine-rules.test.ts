import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, ledgerSum } from "@/core/credits";
import { startFalFake, type FalFake } from "./fakes/fal-fake";
import {
  fixture,
  signUp,
  startTestServer,
  submit,
  waitForTask,
  type TestServer,
  type TestUser,
} from "./harness";

/**
 * Rules belong to the engine that renders (ADR 008): with a hosted engine planned, a photo
 * only the local engine cannot work on is accepted, charged and sent to the hosted model;
 * the rules every engine obeys (consent, minors, a face) still refuse before charging; and
 * a hosted task that falls back to the local engine meets the local rules there, failing
 * with the rule's own code and a refund. fal's fake stands in for every hosted provider.
 */

const KEY = "fal-test-key";
const falEnv = (fal: FalFake, extra: Record<string, string> = {}): Record<string, string> => ({
  FAL_KEY: KEY,
  FAL_BASE_URL: fal.url,
  FAL_POLL_MS: "20",
  ENGINE_RETRY_ATTEMPTS: "1",
  ENGINE_BREAKER_THRESHOLD: "1000",
  ...extra,
});

/** A head turned away from the camera: the local pixie cut refuses it (notFrontal). */
const TURNED_AWAY = "person-1-cameraman-bw.jpg";

async function send(user: TestUser, effectId: string, photo: string, options?: Record<string, unknown>) {
  const up = await user.upload(fixture(photo), photo, photo.endsWith(".png") ? "image/png" : "image/jpeg");
  expect(up.status).toBe(200);
  return submit(user, {
    image_urls: [up.body.url],
    imageType: `nano-banana-lora-${effectId}`,
    ...(options ? { options } : {}),
  });
}

describe("input rules with a hosted engine planned", () => {
  let fal: FalFake;
  let server: TestServer;
  beforeAll(async () => {
    fal = await startFalFake({ key: KEY });
    server = await startTestServer({ env: falEnv(fal) });
  });
  afterAll(async () => {
    await server?.close();
    await fal?.close();
  });

  it("accepts, charges and renders on the hosted engine a photo only the local engine refuses", async () => {
    fal.mode = "ok";
    const user = await signUp(server);
    const before = await getBalance(server.services.db, user.id);
    const submits = fal.submits.length;
    const res = await send(user, "pixie-cut-filter", TURNED_AWAY);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const charged = before - (await getBalance(server.services.db, user.id));
    expect(charged).toBeGreaterThan(0);
    const done = await waitForTask(user, res.body.data!.taskIds[0]!, 60_000);
    expect(done.body).toMatchObject({ code: 1, failedReason: null });
    expect(fal.submits.length).toBe(submits + 1);
    expect(fal.submits.at(-1)!.input.prompt).toContain("pixie cut");
    const list = await user.json<{ images: Array<Record<string, unknown>> }>("/api/images");
    expect(list.body.images[0]).toMatchObject({ provider: "fal" });
    expect(await getBalance(server.services.db, user.id)).toBe(before - charged);
    expect(await ledgerSum(server.services.db, user.id)).toBe(before - charged);
  }, 120_000);

  it("sends the bust edit of a chest-up crop to the hosted model (locating the chest is the local warp's limit)", async () => {
    fal.mode = "ok";
    const user = await signUp(server);
    const before = await getBalance(server.services.db, user.id);
    // The local engine refuses this head-and-shoulders crop (noUpperBody); the adult alone passes the safety rules.
    const res = await send(user, "boob-boost-effect", "portrait-female-1.jpg", { adultConsent: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await waitForTask(user, res.body.data!.taskIds[0]!, 60_000);
    expect(done.body).toMatchObject({ code: 1, failedReason: null });
    expect(fal.submits.at(-1)!.input.prompt).toContain("consenting adult");
    expect(await getBalance(server.services.db, user.id)).toBeLessThan(before);
    expect(await getBalance(server.services.db, user.id)).toBe(await ledgerSum(server.services.db, user.id));
  }, 120_000);

  it("refuses the same photo before charging once the admin moves the effect to the local engine", async () => {
    const user = await signUp(server);
    const before = await getBalance(server.services.db, user.id);
    const submits = fal.submits.length;
    await server.services.settings.update(
      { effects: { "pixie-cut-filter": { enabled: true, engine: "local" } } },
      "admin",
    );
    try {
      const res = await send(user, "pixie-cut-filter", TURNED_AWAY);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ messageKey: "input_notFrontal" });
      expect(String(res.body.message)).toMatch(/turned away/);
    } finally {
      await server.services.settings.update(
        { effects: { "pixie-cut-filter": { enabled: true, engine: null } } },
        "admin",
      );
    }
    expect(await getBalance(server.services.db, user.id)).toBe(before);
    expect(await ledgerSum(server.services.db, user.id)).toBe(before);
    expect(fal.submits.length).toBe(submits);
  }, 120_000);

  it("still refuses before charging what no engine may be given: a possible minor, no face", async () => {
    fal.mode = "ok";
    const user = await signUp(server);
    const before = await getBalance(server.services.db, user.id);
    const submits = fal.submits.length;

    const minor = await send(user, "boob-boost-effect", "child-2-girl-1860s-crop.jpg", {
      adultConsent: true,
    });
    expect(minor.status).toBe(400);
    expect(minor.body).toMatchObject({ messageKey: "input_mayBeMinor" });
    expect(String(minor.body.message)).toMatch(/under 18/);

    const consent = await send(user, "boob-boost-effect", "portrait-female-3-nasa.png");
    expect(consent.status).toBe(400);

    const noFace = await send(user, "pixie-cut-filter", "landscape-1-meadow-cc0.jpg");
    expect(noFace.status).toBe(400);
    expect(noFace.body).toMatchObject({ messageKey: "input_noFace" });

    expect(await getBalance(server.services.db, user.id)).toBe(before);
    expect(await ledgerSum(server.services.db, user.id)).toBe(before);
    expect((await user.json<{ images: unknown[] }>("/api/images")).body.images).toHaveLength(0);
    expect(fal.submits.length).toBe(submits);
  }, 120_000);
});

describe("a hosted task that falls back to the local engine", () => {
  let fal: FalFake;
  let server: TestServer;
  beforeAll(async () => {
    fal = await startFalFake({ key: KEY });
    // No room in fal's daily cap: every render falls back to the local engine.
    server = await startTestServer({ env: falEnv(fal, { FAL_DAILY_CAP: "0" }) });
  });
  afterAll(async () => {
    await server?.close();
    await fal?.close();
  });

  it("meets the local rules there: fails with the rule's code and reason, and refunds", async () => {
    const user = await signUp(server);
    const before = await getBalance(server.services.db, user.id);
    const res = await send(user, "pixie-cut-filter", TURNED_AWAY);
    // fal is planned: the local-only rule does not refuse at submit.
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await getBalance(server.services.db, user.id)).toBeLessThan(before);

    const done = await waitForTask(user, res.body.data!.taskIds[0]!, 60_000);
    expect(done.body).toMatchObject({ code: 2, failedCode: "notFrontal" });
    expect(done.body.failedReason).toBe(
      "The face is turned away from the camera. Please upload a photo facing forward. Your credits have been refunded.",
    );
    expect(fal.submits).toHaveLength(0);
    expect(await getBalance(server.services.db, user.id)).toBe(before);
    expect(await ledgerSum(server.services.db, user.id)).toBe(before);
    const ledger = await user.json<{ entries: Array<{ kind: string }> }>("/api/credits/ledger");
    expect(ledger.body.entries.map((e) => e.kind)).toEqual(expect.arrayContaining(["charge", "refund"]));
  }, 120_000);
});
