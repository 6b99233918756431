import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Messages } from "@/core/errors";
import { countLiveUploads } from "@/core/uploads";
import { SCALE_OUT, fixture, signUp, startTestServer, type TestServer, type TestUser } from "./harness";

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** A valid-looking PNG header that declares 50000 x 50000 pixels. */
function pngBomb(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(50_000, 0);
  ihdr.writeUInt32BE(50_000, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** Everything a refused upload could have left: files on local disk and upload rows (S3 mode). */
async function stored(server: TestServer): Promise<number> {
  const dir = path.join(server.dataDir, "objects", "uploads");
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).length : 0;
  const { upload } = await import("@/core/schema");
  const rows = await server.services.db.select({ id: upload.id }).from(upload);
  return files + rows.length;
}

/** Hostile uploads are refused with the spec's message (or cleaned), storing nothing. */
describe("upload attacks", () => {
  let server: TestServer;
  let user: TestUser;
  beforeAll(async () => {
    server = await startTestServer();
    user = await signUp(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  const refusals: Array<[string, () => Promise<Buffer>, string, string, RegExp]> = [
    [
      "a text file named .png",
      async () => Buffer.from("hello, I am not an image\n"),
      "evil.png",
      "image/png",
      /not a PNG, JPEG or WebP/i,
    ],
    [
      "a truncated JPEG",
      async () => fixture("portrait-male-1.jpg").subarray(0, 60_000),
      "cut.jpg",
      "image/jpeg",
      /damaged|incomplete/i,
    ],
    ["a PNG declaring 50000 x 50000 pixels", async () => pngBomb(), "bomb.png", "image/png", /too large/i],
    [
      "an SVG",
      async () =>
        Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>',
        ),
      "x.svg",
      "image/svg+xml",
      /not a PNG, JPEG or WebP/i,
    ],
    [
      "an 11 MB file",
      async () => Buffer.concat([fixture("portrait-male-1.jpg"), Buffer.alloc(11 * 1024 * 1024)]),
      "big.jpg",
      "image/jpeg",
      /10 MB/,
    ],
  ];

  for (const [name, make, filename, type, reason] of refusals) {
    it(`refuses ${name} and stores nothing`, async () => {
      const before = await stored(server);
      const res = await user.upload(await make(), filename, type);
      expect([400, 413]).toContain(res.status);
      expect(res.body.message).toBe(Messages.uploadRejected);
      expect(res.body.reason).toMatch(reason);
      expect(await stored(server)).toBe(before);
    });
  }

  it("strips GPS and all metadata from a JPEG, and applies its orientation", async () => {
    const withGps = await sharp(fixture("portrait-male-1.jpg"))
      .resize(400, 300, { fit: "fill" })
      .withExif({
        IFD0: { Orientation: "6", Copyright: "someone" },
        IFD3: {
          GPSLatitudeRef: "N",
          GPSLatitude: "48/1 51/1 30/1",
          GPSLongitudeRef: "E",
          GPSLongitude: "2/1 17/1 40/1",
        },
      })
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const meta = await sharp(withGps).metadata();
    // The GPS IFD pointer tag (0x8825) is in the input's EXIF, in either byte order.
    const hasGpsTag = (exif?: Buffer) =>
      !!exif && (exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88])));
    expect(hasGpsTag(meta.exif)).toBe(true);
    expect(meta.orientation).toBe(6);

    const res = await user.upload(withGps, "gps.jpg", "image/jpeg");
    expect(res.status).toBe(200);
    const stored = await user.fetch(res.body.url!);
    expect(stored.status).toBe(200);
    expect(stored.headers.get("content-type")).toBe("image/jpeg");
    if (!SCALE_OUT) expect(stored.headers.get("x-content-type-options")).toBe("nosniff");
    const bytes = Buffer.from(await stored.arrayBuffer());
    const clean = await sharp(bytes).metadata();
    expect(clean.exif).toBeUndefined();
    expect(clean.xmp).toBeUndefined();
    expect(hasGpsTag(bytes)).toBe(false);
    expect([clean.width, clean.height]).toEqual([300, 400]); // rotated upright
  });

  it("decides the type by content, not by name or header", async () => {
    const png = fixture("pet-1-cat.png");
    const res = await user.upload(png, "holiday.jpg", "image/jpeg");
    expect(res.status).toBe(200);
    const stored = await user.fetch(res.body.url!);
    expect(stored.headers.get("content-type")).toBe("image/png");
  });

  it("requires a session, and serves files only to their owner or a signed URL", async () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(fixture("pet-1-cat.png"))]), "cat.png");
    const anon = await fetch(`${server.url}/api/upload`, { method: "POST", body: form });
    expect(anon.status).toBe(401);

    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const id = up.body.url!.split("/").pop()!;
    expect((await fetch(`${server.url}${up.body.url}`)).status).toBe(404);
    const signed = server.services.signer.sign("uploads", id, 60);
    expect((await fetch(`${server.url}${signed}`)).status).toBe(200);
    // One character of the signature changed (to another one: "A" stays "A" 1 time in 64).
    const tampered = signed.replace(/sig=(.)/, (_, c: string) => `sig=${c === "A" ? "B" : "A"}`);
    expect((await fetch(`${server.url}${tampered}`)).status).toBe(404);
    const expired = server.services.signer.sign("uploads", id, 60, Date.now() - 3_600_000);
    expect((await fetch(`${server.url}${expired}`)).status).toBe(404);
  });

  it("deletes uploads never used after the configured time", async () => {
    const other = await signUp(server);
    await other.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    expect(await countLiveUploads(server.services.db, other.id)).toBe(1);
    // Pretend an hour has passed: age the row, then run the sweep.
    const { upload } = await import("@/core/schema");
    const { eq } = await import("drizzle-orm");
    await server.services.db
      .update(upload)
      .set({ createdAt: new Date(Date.now() - 61 * 60_000) })
      .where(eq(upload.userId, other.id));
    await server.services.sweep();
    await expect.poll(() => countLiveUploads(server.services.db, other.id)).toBe(0);
  });
});
