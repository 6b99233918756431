import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerSum } from "@/core/credits";
import { countLiveUploads } from "@/core/uploads";
import { fixture, signUp, startTestServer, submit, waitForTask, type TestServer } from "./harness";

/** The embedded path: the same flow on PGlite stored on disk under DATA_DIR. */
describe("embedded defaults smoke run (PGlite)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ database: "pglite" });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("signs up, uploads, generates the mirror and settles credits", async () => {
    expect(server.services.database.kind).toBe("pglite");
    const user = await signUp(server);
    const input = fixture("object-coffee.png");
    const up = await user.upload(input, "coffee.png", "image/png");
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await waitForTask(user, res.body.data!.taskIds[0]!);
    expect(done.body.code).toBe(1);
    const out = await sharp(Buffer.from(await (await user.fetch(done.body.data.imageUrl!)).arrayBuffer()))
      .raw()
      .toBuffer();
    const expected = await sharp(input).flop().raw().toBuffer();
    expect(out.equals(expected)).toBe(true);
    expect((await user.json("/api/credits")).body).toEqual({ balance: 8 });
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
    await expect.poll(() => countLiveUploads(server.services.db, user.id)).toBe(0);
  });
});
