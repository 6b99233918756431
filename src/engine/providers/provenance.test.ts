import sharp from "sharp";
import { describe, expect, it } from "vitest";
import type { RenderResult } from "@/core/ports/renderer";
import { markAiGenerated, TRAINED_ALGORITHMIC_MEDIA } from "./provenance";

const image = () =>
  sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 200, g: 40, b: 90 } } });
const result = (bytes: Buffer, mime: RenderResult["mime"]): RenderResult => ({
  bytes: new Uint8Array(bytes),
  mime,
  width: 32,
  height: 24,
  provider: "fal",
  model: "fal-ai/nano-banana/edit",
});
const xmpOf = async (bytes: Uint8Array) =>
  (await sharp(Buffer.from(bytes)).metadata()).xmp?.toString("utf8") ?? "";
const pixels = async (bytes: Uint8Array) => sharp(Buffer.from(bytes)).raw().toBuffer();

/** A PNG chunk of any type, for a provider's own metadata (e.g. a C2PA manifest's caBX). */
function withChunk(png: Buffer, type: string, data: Buffer): Buffer {
  const { crc32 } = require("node:zlib") as typeof import("node:zlib");
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  const chunk = Buffer.concat([head, data, crc]);
  return Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]); // after IHDR
}

describe("AI-generated marker (IPTC digital source type in XMP)", () => {
  it("marks a PNG without re-encoding it: same pixels, the provider's own chunks kept", async () => {
    const manifest = Buffer.from("provider c2pa manifest bytes");
    const png = withChunk(await image().png().toBuffer(), "caBX", manifest);
    const marked = await markAiGenerated(result(png, "image/png"));
    expect(marked.mime).toBe("image/png");
    expect(await xmpOf(marked.bytes)).toContain(TRAINED_ALGORITHMIC_MEDIA);
    expect(await xmpOf(marked.bytes)).toContain("photofx (fal fal-ai/nano-banana/edit)");
    expect(Buffer.from(marked.bytes).includes(manifest)).toBe(true);
    expect((await pixels(marked.bytes)).equals(await pixels(png))).toBe(true);
  });

  it("adds the marker to a provider's existing XMP instead of replacing it", async () => {
    const theirs =
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:source>provider-job-42</dc:source></rdf:Description></rdf:RDF></x:xmpmeta>';
    for (const [bytes, mime] of [
      [await image().withXmp(theirs).png().toBuffer(), "image/png"],
      [await image().withXmp(theirs).jpeg().toBuffer(), "image/jpeg"],
    ] as const) {
      const xmp = await xmpOf((await markAiGenerated(result(bytes, mime))).bytes);
      expect(xmp, mime).toContain("provider-job-42");
      expect(xmp, mime).toContain(TRAINED_ALGORITHMIC_MEDIA);
    }
  });

  it("marks a JPEG in place: JFIF first, EXIF kept, the same decoded pixels", async () => {
    const jpeg = await image()
      .withExif({ IFD0: { Artist: "provider" } })
      .jpeg({ quality: 90 })
      .toBuffer();
    const marked = await markAiGenerated(result(jpeg, "image/jpeg"));
    expect(marked.mime).toBe("image/jpeg");
    expect(await xmpOf(marked.bytes)).toContain(TRAINED_ALGORITHMIC_MEDIA);
    expect((await sharp(Buffer.from(marked.bytes)).metadata()).exif?.toString("latin1")).toContain(
      "provider",
    );
    expect((await pixels(marked.bytes)).equals(await pixels(jpeg))).toBe(true);
  });

  it("turns a WebP into a lossless PNG with the marker", async () => {
    const webp = await image().webp().toBuffer();
    const marked = await markAiGenerated(result(webp, "image/webp"));
    expect(marked.mime).toBe("image/png");
    expect(await xmpOf(marked.bytes)).toContain(TRAINED_ALGORITHMIC_MEDIA);
    expect((await pixels(marked.bytes)).equals(await pixels(webp))).toBe(true);
  });
});
