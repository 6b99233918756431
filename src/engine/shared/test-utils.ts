import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import type { RenderRequest } from "@/core/ports/renderer";

/** Shared helpers for the effects' tests. */
export const PHOTOS = path.resolve(__dirname, "../../../tests/fixtures/photos");

/** A fixture photo, optionally shrunk (long side) to keep tests quick. */
export async function photo(name: string, longSide?: number): Promise<Buffer> {
  const bytes = fs.readFileSync(path.join(PHOTOS, name));
  if (!longSide) return bytes;
  return sharp(bytes).resize(longSide, longSide, { fit: "inside" }).png().toBuffer();
}

export function request(
  effectId: string,
  bytes: Uint8Array,
  extra: Partial<RenderRequest> = {},
): RenderRequest {
  return {
    effectId,
    route: "v1",
    images: [{ bytes, mime: "image/png" }],
    options: {},
    prompt: "",
    seed: 7,
    ...extra,
  };
}

export interface Raw {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

export async function raw(bytes: Uint8Array, channels: 3 | 4 = 3): Promise<Raw> {
  const img = sharp(Buffer.from(bytes));
  const piped = channels === 3 ? img.removeAlpha() : img.ensureAlpha();
  const { data, info } = await piped.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

export function distinctColors(r: Raw): number {
  const set = new Set<number>();
  for (let i = 0; i < r.data.length; i += r.channels)
    set.add((r.data[i]! << 16) | (r.data[i + 1]! << 8) | r.data[i + 2]!);
  return set.size;
}

/** Mean HSV saturation (0..1) of an RGB raw image. */
export function meanSaturation(r: Raw): number {
  let sum = 0;
  const n = r.width * r.height;
  for (let i = 0; i < r.data.length; i += r.channels) {
    const mx = Math.max(r.data[i]!, r.data[i + 1]!, r.data[i + 2]!);
    const mn = Math.min(r.data[i]!, r.data[i + 1]!, r.data[i + 2]!);
    sum += mx === 0 ? 0 : (mx - mn) / mx;
  }
  return sum / n;
}

/** Grayscale at a fixed size, for comparing structure between input and output. */
export async function grayAt(bytes: Uint8Array, w: number, h: number): Promise<Float64Array> {
  const d = await sharp(Buffer.from(bytes)).resize(w, h, { fit: "fill" }).grayscale().raw().toBuffer();
  return Float64Array.from(d);
}

export function correlation(a: Float64Array, b: Float64Array): number {
  const n = a.length;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= n;
  mb /= n;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < n; i++) {
    num += (a[i]! - ma) * (b[i]! - mb);
    da += (a[i]! - ma) ** 2;
    db += (b[i]! - mb) ** 2;
  }
  return num / Math.sqrt(da * db);
}
