import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerSum } from "@/core/credits";
import { countLiveUploads } from "@/core/uploads";
import { fixture, signUp, startTestServer, submit, type TestServer } from "./harness";

/**
 * Content safety on the submit path. No explicit photo is kept in the repository: a
 * threshold every photo reaches stands in for one, which exercises the whole path (the
 * screen in an engine thread, the refusal before charging, its translated message).
 * The classifier itself is tested in src/engine/vision/nsfw.test.ts.
 */
describe("content safety", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { NSFW_THRESHOLD: "0.000001" } });
  });
  afterAll(() => server?.close());

  it("refuses a flagged photo before charging, with a translated reason, and keeps the upload", async () => {
    const user = await signUp(server);
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    expect(up.status).toBe(200);
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      message:
        "This photo appears to contain nudity or sexual content, which this service does not edit. Please choose another photo.",
      messageKey: "input_nsfw",
    });
    expect((await user.json("/api/credits")).body).toEqual({ balance: 10 });
    expect(await ledgerSum(server.services.db, user.id)).toBe(10);
    expect((await user.json<{ images: unknown[] }>("/api/images")).body.images).toHaveLength(0);
    expect(await countLiveUploads(server.services.db, user.id)).toBe(1);
  });
});
