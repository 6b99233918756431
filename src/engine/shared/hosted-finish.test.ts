import sharp from "sharp";
import { describe, expect, it } from "vitest";
import type { RenderResult } from "@/core/ports/renderer";
import { limitColours, looksLikeGrid, onPage } from "./hosted-finish";
import { photo } from "./test-utils";

const asResult = async (bytes: Buffer): Promise<RenderResult> => {
  const m = await sharp(bytes).metadata();
  return {
    bytes: new Uint8Array(bytes),
    mime: "image/png",
    width: m.width!,
    height: m.height!,
    provider: "fal",
    model: "m",
  };
};
const colourCount = async (bytes: Uint8Array) => {
  const { data, info } = await sharp(Buffer.from(bytes))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const seen = new Set<number>();
  for (let i = 0; i < data.length; i += info.channels)
    seen.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
  return seen.size;
};

/** A grid of n x n different crops of fixture photos, with or without white gutters. */
async function grid(n: number, gutter: number): Promise<Buffer> {
  const names = ["portrait-female-1.jpg", "portrait-male-1.jpg", "portrait-male-2.jpg", "pet-1-cat.png"];
  const cell = 200;
  const tiles = [];
  for (let i = 0; i < n * n; i++) {
    const src = await photo(names[i % names.length]!);
    const tile = await sharp(src)
      .resize(cell, cell, { fit: "cover", position: ["north", "south", "east", "west", "centre"][i % 5] })
      .modulate({ hue: i * 37 })
      .png()
      .toBuffer();
    tiles.push({
      input: tile,
      left: gutter + (i % n) * (cell + gutter),
      top: gutter + Math.floor(i / n) * (cell + gutter),
    });
  }
  const side = n * cell + (n + 1) * gutter;
  return sharp({ create: { width: side, height: side, channels: 3, background: "#ffffff" } })
    .composite(tiles)
    .png()
    .toBuffer();
}

describe("keeping an effect's promise on a generative output", () => {
  it("reduces a photo to at most the promised number of flat colours, keeping its metadata", async () => {
    const src = await sharp(await photo("portrait-female-1.jpg"))
      .withXmp(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:source>job-7</dc:source></rdf:Description></rdf:RDF></x:xmpmeta>',
      )
      .png()
      .toBuffer();
    expect(await colourCount(src)).toBeGreaterThan(1000);
    const out = await limitColours(await asResult(src), 16);
    expect(await colourCount(out.bytes)).toBeLessThanOrEqual(16);
    expect((await sharp(Buffer.from(out.bytes)).metadata()).xmp?.toString()).toContain("job-7");
  });

  it("lays any output on the exact page size, on white, without cropping", async () => {
    const square = await sharp({ create: { width: 1024, height: 1024, channels: 3, background: "#000000" } })
      .png()
      .toBuffer();
    const out = await onPage(await asResult(square), 1275, 1650);
    expect([out.width, out.height]).toEqual([1275, 1650]);
    const { data } = await sharp(Buffer.from(out.bytes)).raw().toBuffer({ resolveWithObject: true });
    expect(data[0]).toBe(255); // top margin is white
    expect(data[(825 * 1275 + 637) * 3]).toBeLessThan(10); // the drawing is centred and whole
  });

  it("tells a 3 x 3 grid, with or without gutters, from a single picture or another grid", async () => {
    expect(await looksLikeGrid(new Uint8Array(await grid(3, 12)), 3)).toBe(true);
    expect(await looksLikeGrid(new Uint8Array(await grid(3, 0)), 3)).toBe(true);
    expect(await looksLikeGrid(new Uint8Array(await photo("portrait-female-1.jpg")), 3)).toBe(false);
    expect(await looksLikeGrid(new Uint8Array(await photo("landscape-1-meadow-cc0.jpg")), 3)).toBe(false);
    expect(await looksLikeGrid(new Uint8Array(await grid(2, 12)), 3)).toBe(false);
  });
});
