import { readFile } from "node:fs/promises";
import path from "node:path";
import { crc32, deflateSync } from "node:zlib";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { gridDeclaring, heicDeclaring, heicFixture } from "../../tests/fixtures/heic/declare";
import { sanitizeUpload, UploadRejectedError } from "./sanitize-upload";

const PHOTOS = path.resolve(__dirname, "../../tests/fixtures/photos");
const photo = (name: string) => readFile(path.join(PHOTOS, name));
const opts = { maxPixels: 40_000_000 };

async function rejection(p: Promise<unknown>): Promise<UploadRejectedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UploadRejectedError);
  return err as UploadRejectedError;
}

/** One PNG chunk: length, type, data, CRC over type+data. */
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData) >>> 0);
  return Buffer.concat([len, typeAndData, crc]);
}

/** A tiny file whose IHDR claims width x height RGB pixels (a decompression bomb's header). */
function pngDeclaring(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.alloc(1024))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** Whether a raw EXIF block (as sharp returns it) links a GPS IFD from IFD0 (tag 0x8825). */
function hasGpsIfd(exif: Buffer | undefined): boolean {
  if (!exif) return false;
  const tiff = exif.subarray(exif.indexOf("Exif\0\0", 0, "latin1") + 6);
  const le = tiff.toString("latin1", 0, 2) === "II";
  const u16 = (o: number) => (le ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (le ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  const ifd0 = u32(4);
  const count = u16(ifd0);
  for (let i = 0; i < count; i++) if (u16(ifd0 + 2 + i * 12) === 0x8825) return true;
  return false;
}

describe("sanitizeUpload refuses", () => {
  it("text", async () => {
    const err = await rejection(sanitizeUpload(Buffer.from("hello"), opts));
    expect(err.reason).toBe("The file is not a PNG, JPEG or WebP image, nor a HEIC photo");
  });

  it("SVG, even a well-formed one", async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
    );
    expect((await sharp(svg).metadata()).format).toBe("svg"); // sharp itself would accept it
    const err = await rejection(sanitizeUpload(svg, opts));
    expect(err.reason).toMatch(/not a PNG, JPEG or WebP/);
  });

  it("GIF", async () => {
    const gif = await sharp({
      create: { width: 4, height: 4, channels: 3, background: "#f00" },
    })
      .gif()
      .toBuffer();
    await rejection(sanitizeUpload(gif, opts));
  });

  it("a RIFF file that is not WebP", async () => {
    const wav = Buffer.concat([Buffer.from("RIFF\x24\x00\x00\x00WAVEfmt "), Buffer.alloc(32)]);
    await rejection(sanitizeUpload(wav, opts));
  });

  it("a truncated JPEG", async () => {
    const full = await photo("portrait-male-1.jpg");
    const cut = full.subarray(0, Math.floor(full.length * 0.6));
    const err = await rejection(sanitizeUpload(cut, opts));
    expect(err.reason).toBe("The image is damaged or incomplete");
  });

  it("a PNG declaring 50000x50000 quickly, without decoding it", async () => {
    const bomb = pngDeclaring(50_000, 50_000);
    expect(bomb.length).toBeLessThan(200);
    const meta = await sharp(bomb, { limitInputPixels: false }).metadata();
    expect([meta.width, meta.height]).toEqual([50_000, 50_000]);
    const t0 = performance.now();
    const err = await rejection(sanitizeUpload(bomb, opts));
    expect(performance.now() - t0).toBeLessThan(500);
    expect(err.reason).toBe("The image is too large: 2500000000 pixels (limit 40000000)");
  });

  it("an image just over the pixel limit", async () => {
    const png = await sharp({
      create: { width: 101, height: 100, channels: 3, background: "#fff" },
    })
      .png()
      .toBuffer();
    const err = await rejection(sanitizeUpload(png, { maxPixels: 10_000 }));
    expect(err.reason).toMatch(/too large: 10100 pixels \(limit 10000\)/);
  });
});

describe("sanitizeUpload cleans", () => {
  it("strips EXIF including GPS from a JPEG", async () => {
    const withGps = await sharp(await photo("portrait-male-1.jpg"))
      .withExif({
        IFD0: { Copyright: "someone", ImageDescription: "secret place" },
        IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 51/1 0/1" },
      })
      .jpeg()
      .toBuffer();
    const inMeta = await sharp(withGps).metadata();
    // sharp stores tags by number, so look for the GPS IFD pointer rather than the text "GPS".
    expect(hasGpsIfd(inMeta.exif)).toBe(true);

    const out = await sanitizeUpload(withGps, opts);
    expect(out.mime).toBe("image/jpeg");
    const outMeta = await sharp(out.bytes).metadata();
    expect(outMeta.format).toBe("jpeg");
    expect(outMeta.exif).toBeUndefined();
    expect(outMeta.xmp).toBeUndefined();
    expect(out.bytes.includes(Buffer.from("secret place"))).toBe(false);
    expect(out.bytes.includes(Buffer.from("Exif\0\0", "latin1"))).toBe(false);
    expect([out.width, out.height]).toEqual([1000, 1000]);
  });

  it("applies EXIF orientation 6 (rotate 90°) and drops the tag", async () => {
    const src = await sharp(await photo("landscape-1-meadow-cc0.jpg"))
      .resize(400, 200, { fit: "fill" })
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const inMeta = await sharp(src).metadata();
    expect(inMeta.orientation).toBe(6);
    expect([inMeta.width, inMeta.height]).toEqual([400, 200]);

    const out = await sanitizeUpload(src, opts);
    expect([out.width, out.height]).toEqual([200, 400]);
    const outMeta = await sharp(out.bytes).metadata();
    expect([outMeta.width, outMeta.height]).toEqual([200, 400]);
    expect(outMeta.orientation).toBeUndefined();
  });

  it("passes a PNG as image/png", async () => {
    const out = await sanitizeUpload(await photo("pet-1-cat.png"), opts);
    expect(out.mime).toBe("image/png");
    expect([out.width, out.height]).toEqual([451, 300]);
    const meta = await sharp(out.bytes).metadata();
    expect(meta.format).toBe("png");
    expect(meta.icc).toBeUndefined(); // converted to sRGB, profile dropped
  });

  it("passes a WebP as image/webp", async () => {
    const webp = await sharp(await photo("object-coffee.png"))
      .withExif({ IFD0: { Artist: "someone" } })
      .webp()
      .toBuffer();
    const out = await sanitizeUpload(new Uint8Array(webp), opts);
    expect(out.mime).toBe("image/webp");
    expect([out.width, out.height]).toEqual([600, 400]);
    const meta = await sharp(out.bytes).metadata();
    expect(meta.format).toBe("webp");
    expect(meta.exif).toBeUndefined();
  });

  it("ignores a misleading name: content decides (a PNG inside a .jpg-looking buffer)", async () => {
    // There is no filename parameter at all; a JPEG header followed by PNG data is refused.
    const png = await photo("object-coffee.png");
    const hybrid = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), png]);
    await rejection(sanitizeUpload(hybrid, opts));
  });
});

describe("sanitizeUpload converts HEIC (iPhone photos)", () => {
  /** Mean absolute difference per channel between two equally sized images. */
  async function difference(a: Buffer, b: Buffer, width: number, height: number): Promise<number> {
    const raw = (x: Buffer) => sharp(x).resize(width, height, { fit: "fill" }).removeAlpha().raw().toBuffer();
    const [pa, pb] = await Promise.all([raw(a), raw(b)]);
    let sum = 0;
    for (let i = 0; i < pa.length; i++) sum += Math.abs(pa[i]! - pb[i]!);
    return sum / pa.length;
  }

  it("a tiled (grid) HEIC stored sideways with irot: an upright JPEG, EXIF and GPS gone", async () => {
    const heic = heicFixture("portrait-grid-rotated");
    expect(heic.includes(Buffer.from("MM\0*", "latin1"))).toBe(true); // it carries EXIF (with GPS)
    const out = await sanitizeUpload(heic, opts);
    expect(out.mime).toBe("image/jpeg");
    expect([out.width, out.height]).toEqual([750, 1000]); // the 1000x750 tiles, turned upright
    const meta = await sharp(out.bytes).metadata();
    expect(meta.format).toBe("jpeg");
    expect([meta.width, meta.height]).toEqual([750, 1000]);
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    // Same picture as the upright crop it was made from; the unturned one is far off.
    const upright = await sharp(await photo("portrait-male-1.jpg"))
      .extract({ left: 125, top: 0, width: 750, height: 1000 })
      .toBuffer();
    expect(await difference(out.bytes, upright, 150, 200)).toBeLessThan(6);
    const upsideDown = await sharp(upright).rotate(180).toBuffer();
    expect(await difference(out.bytes, upsideDown, 150, 200)).toBeGreaterThan(20);
  });

  it("a Display P3 HEIC comes out in sRGB (colours match the source)", async () => {
    const out = await sanitizeUpload(heicFixture("portrait-plain"), opts);
    expect([out.mime, out.width, out.height]).toEqual(["image/jpeg", 480, 480]);
    const source = await sharp(await photo("portrait-male-1.jpg"))
      .resize(480, 480)
      .toBuffer();
    // Read without its profile the P3 pixels differ by about 5 levels; converted, about 2.
    expect(await difference(out.bytes, source, 480, 480)).toBeLessThan(3.5);
    expect((await sharp(out.bytes).metadata()).icc).toBeUndefined();
  });

  it("a HEIC with transparency becomes a PNG that keeps it", async () => {
    const out = await sanitizeUpload(heicFixture("cutout-alpha"), opts);
    expect([out.mime, out.width, out.height]).toEqual(["image/png", 160, 160]);
    const { data, info } = await sharp(out.bytes).raw().toBuffer({ resolveWithObject: true });
    expect(info.channels).toBe(4);
    expect(data[3]).toBeLessThan(10); // corner: transparent
    expect(data[(80 * 160 + 80) * 4 + 3]).toBeGreaterThan(245); // centre: opaque
  });

  it("refuses a HEIC declaring 20000x20000 from its header, without decoding", async () => {
    const t0 = performance.now();
    const err = await rejection(sanitizeUpload(heicDeclaring(20_000, 20_000), opts));
    expect(err.reason).toBe("The image is too large: 400000000 pixels (limit 40000000)");
    expect(performance.now() - t0).toBeLessThan(3000); // a decode of 400 MP would take minutes
  });

  it("refuses a grid whose descriptor claims more than its declared size (a bomb hiding from ispe)", async () => {
    // The fixture's 4x3 tiles could cover 1024x768; its ispe says 1000x750. A descriptor that
    // disagrees with the declared size is refused by libheif before any tile is assembled, so
    // the size checked against the limit is always the one decoded. (libheif's own ceiling,
    // set from the limit in heif-decode.ts, is a second guard no consistent file can reach:
    // a grid that really is larger must declare so, and the ispe check refuses it first.)
    for (const [w, h] of [
      [1024, 768],
      [20_000, 20_000],
    ] as const) {
      const t0 = performance.now();
      const err = await rejection(sanitizeUpload(gridDeclaring(w, h), opts));
      expect(err.reason).toBe("The image is damaged or incomplete");
      expect(performance.now() - t0).toBeLessThan(3000);
    }
    // The untouched grid decodes (the refusals above are the descriptor's doing).
    const ok = await sanitizeUpload(gridDeclaring(1000, 750), opts);
    expect([ok.width, ok.height]).toEqual([750, 1000]);
  });

  it("refuses garbage behind a HEIC header, a truncated HEIC and an AVIF", async () => {
    const garbage = Buffer.concat([heicFixture("portrait-plain").subarray(0, 32), Buffer.alloc(4000, 7)]);
    expect((await rejection(sanitizeUpload(garbage, opts))).reason).toBe(
      "The image is damaged or incomplete",
    );
    const plain = heicFixture("portrait-plain");
    const cut = plain.subarray(0, Math.floor(plain.length * 0.6));
    expect((await rejection(sanitizeUpload(cut, opts))).reason).toBe("The image is damaged or incomplete");
    const avif = await sharp(await photo("object-coffee.png"))
      .avif()
      .toBuffer();
    expect((await rejection(sanitizeUpload(avif, opts))).reason).toMatch(/not a PNG, JPEG or WebP/);
  });
});
