import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Messages } from "@/core/errors";
import { heicDeclaring, heicFixture } from "../fixtures/heic/declare";
import {
  fixture,
  signUp,
  startTestServer,
  submit,
  waitForTask,
  type TestServer,
  type TestUser,
} from "./harness";

/** Files on local disk and upload rows: what a refused upload must not leave. */
async function stored(server: TestServer): Promise<number> {
  const dir = path.join(server.dataDir, "objects", "uploads");
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).length : 0;
  const { upload } = await import("@/core/schema");
  const rows = await server.services.db.select({ id: upload.id }).from(upload);
  return files + rows.length;
}

/** Mean absolute difference per channel, both images scaled to width x height. */
async function difference(a: Buffer, b: Buffer, width: number, height: number): Promise<number> {
  const raw = (x: Buffer) => sharp(x).resize(width, height, { fit: "fill" }).removeAlpha().raw().toBuffer();
  const [pa, pb] = await Promise.all([raw(a), raw(b)]);
  let sum = 0;
  for (let i = 0; i < pa.length; i++) sum += Math.abs(pa[i]! - pb[i]!);
  return sum / pa.length;
}

/** iPhone photos (HEIC, tiled, rotated by the container) through the real upload and submit. */
describe("HEIC uploads", () => {
  let server: TestServer;
  let user: TestUser;
  beforeAll(async () => {
    server = await startTestServer();
    user = await signUp(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("stores an iPhone-style tiled HEIC as an upright JPEG without metadata, renders it", async () => {
    const res = await user.upload(heicFixture("portrait-grid-rotated"), "IMG_0042.HEIC", "image/heic");
    expect(res.status).toBe(200);
    const body = res.body as { url: string; mime: string; width: number; height: number };
    // The answer describes the converted image, and its URL is one a browser can show.
    expect(body).toMatchObject({ mime: "image/jpeg", width: 750, height: 1000 });
    expect(body.url).toMatch(/^\/api\/uploads\/[A-Za-z0-9]+$/);
    const file = await user.fetch(body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/jpeg");
    const jpeg = Buffer.from(await file.arrayBuffer());
    const meta = await sharp(jpeg).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 750, 1000]);
    expect(meta.exif).toBeUndefined(); // the HEIC's EXIF (GPS included) is gone
    const upright = await sharp(fixture("portrait-male-1.jpg"))
      .extract({ left: 125, top: 0, width: 750, height: 1000 })
      .toBuffer();
    expect(await difference(jpeg, upright, 150, 200)).toBeLessThan(6);

    // A submit on it renders on the local engine (the mirror effect: the exact flop of the input).
    const sub = await submit(user, {
      image_urls: [body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    expect(sub.status).toBe(200);
    const done = await waitForTask(user, sub.body.data!.taskIds[0]!, 60_000);
    expect(done.body).toMatchObject({ code: 1, status: 1, failedReason: null });
    const out = Buffer.from(await (await user.fetch(done.body.data.imageUrl!)).arrayBuffer());
    const outMeta = await sharp(out).metadata();
    expect([outMeta.width, outMeta.height]).toEqual([750, 1000]);
    expect(await difference(out, await sharp(jpeg).flop().toBuffer(), 150, 200)).toBeLessThan(2);
    expect(await difference(out, jpeg, 150, 200)).toBeGreaterThan(10); // really mirrored
  });

  it("refuses a HEIC declaring more than MAX_IMAGE_PIXELS before decoding it, storing nothing", async () => {
    const before = await stored(server);
    const t0 = performance.now();
    const res = await user.upload(heicDeclaring(20_000, 20_000), "huge.heic", "image/heic");
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(Messages.uploadRejected);
    expect(res.body.reason).toBe(
      `The image is too large: 400000000 pixels (limit ${server.services.env.MAX_IMAGE_PIXELS})`,
    );
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(await stored(server)).toBe(before);
  });

  it("refuses a fake .heic (a HEIC header over garbage, or plain text) with the spec's message", async () => {
    const before = await stored(server);
    const fake = Buffer.concat([heicFixture("portrait-plain").subarray(0, 32), Buffer.alloc(50_000, 0x5a)]);
    const garbage = await user.upload(fake, "IMG_0001.heic", "image/heic");
    expect(garbage.status).toBe(400);
    expect(garbage.body.message).toBe(Messages.uploadRejected);
    expect(garbage.body.reason).toMatch(/damaged|incomplete/);
    const text = await user.upload(Buffer.from("not a photo at all\n"), "IMG_0002.heic", "image/heic");
    expect(text.status).toBe(400);
    expect(text.body.message).toBe(Messages.uploadRejected);
    expect(await stored(server)).toBe(before);
  });

  it("keeps a HEIC's transparency as a PNG", async () => {
    const res = await user.upload(heicFixture("cutout-alpha"), "cutout.heif", "image/heif");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mime: "image/png", width: 160, height: 160 });
    const file = await user.fetch(res.body.url!);
    expect(file.headers.get("content-type")).toBe("image/png");
  });
});
