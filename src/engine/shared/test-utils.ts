import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import type { RenderRequest } from "@/core/ports/renderer";
import type { Mask } from "./mask";

/** Shared helpers for the effects' tests. */
export const PHOTOS = path.resolve(__dirname, "../../../tests/fixtures/photos");

/** A fixture photo, optionally shrunk (long side) to keep tests quick. */
export async function photo(name: string, longSide?: number): Promise<Buffer> {
  const bytes = fs.readFileSync(path.join(PHOTOS, name));
  if (!longSide) return bytes;
  return sharp(bytes).resize(longSide, longSide, { fit: "inside" }).png().toBuffer();
}

/**
 * A fixture portrait made symmetric from its left half (the half and its mirror side by
 * side): portrait-female-1 so has long hair hanging beside both cheeks and none over them,
 * the kind of photo the hair effects render (a lock over a cheek is refused: hairOverFace).
 */
export async function mirroredPortrait(name: string, side: number): Promise<Buffer> {
  const img = sharp(await photo(name, side));
  const { width = 0, height = 0 } = await img.metadata();
  const half = Math.floor(width / 2);
  const left = await img.clone().extract({ left: 0, top: 0, width: half, height }).png().toBuffer();
  const right = await sharp(left).flop().png().toBuffer();
  return sharp({ create: { width: half * 2, height, channels: 3, background: "#000" } })
    .composite([
      { input: left, left: 0, top: 0 },
      { input: right, left: half, top: 0 },
    ])
    .png()
    .toBuffer();
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

/**
 * A seeded synthetic textured scene (PNG, w x h) for the line effects' tests: a meadow of
 * thousands of short grass blades (random dark and light greens, nearly upright, 8-36 px)
 * over a mid green, and one subject shape on top, a cream disc of radius `r` at the centre
 * (a flower head, a ball). Returns the bytes and the disc's geometry.
 */
export async function texturedScene(
  w = 900,
  h = 600,
  r = 150,
  seed = 11,
): Promise<{ bytes: Buffer; cx: number; cy: number; r: number }> {
  let a = seed >>> 0;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const data = Buffer.alloc(w * h * 3);
  for (let i = 0; i < w * h; i++) [data[i * 3], data[i * 3 + 1], data[i * 3 + 2]] = [70, 120, 50];
  for (let k = 0; k < (w * h) / 90; k++) {
    const x0 = rnd() * w;
    const y0 = rnd() * h;
    const angle = Math.PI / 2 + (rnd() - 0.5) * 0.9;
    const len = 8 + rnd() * 28;
    const light = rnd() < 0.5;
    const colour = light ? [150 + rnd() * 50, 200 + rnd() * 40, 90] : [25, 55 + rnd() * 30, 20];
    for (let t = 0; t < len; t++) {
      const x = Math.round(x0 + Math.cos(angle) * t);
      const y = Math.round(y0 - Math.sin(angle) * t);
      if (x < 0 || y < 0 || x >= w || y >= h) continue;
      for (let c = 0; c < 3; c++) data[(y * w + x) * 3 + c] = colour[c]!;
      if (x + 1 < w) for (let c = 0; c < 3; c++) data[(y * w + x + 1) * 3 + c] = colour[c]!;
    }
  }
  const cx = w / 2;
  const cy = h / 2;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if (Math.hypot(x - cx, y - cy) <= r)
        [data[(y * w + x) * 3], data[(y * w + x) * 3 + 1], data[(y * w + x) * 3 + 2]] = [235, 225, 190];
  const bytes = await sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
  return { bytes, cx, cy, r };
}

/** The mask's area over its convex hull's (1 = convex; a torn fragment is well under). */
export function convexity(mask: Mask): number {
  const { width, height, data } = mask;
  const pts: [number, number][] = [];
  let area = 0;
  for (let y = 0; y < height; y++) {
    let l = -1;
    let r = -1;
    for (let x = 0; x < width; x++)
      if (data[y * width + x]) {
        area++;
        if (l < 0) l = x;
        r = x;
      }
    if (l >= 0) pts.push([l, y], [r + 1, y], [l, y + 1], [r + 1, y + 1]);
  }
  pts.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o: number[], a: number[], b: number[]) =>
    (a[0]! - o[0]!) * (b[1]! - o[1]!) - (a[1]! - o[1]!) * (b[0]! - o[0]!);
  const half = (list: [number, number][]) => {
    const hull: [number, number][] = [];
    for (const p of list) {
      while (hull.length >= 2 && cross(hull[hull.length - 2]!, hull[hull.length - 1]!, p) <= 0) hull.pop();
      hull.push(p);
    }
    return hull.slice(0, -1);
  };
  const hull = [...half(pts), ...half([...pts].reverse())];
  let twice = 0;
  for (let i = 0; i < hull.length; i++) {
    const [x0, y0] = hull[i]!;
    const [x1, y1] = hull[(i + 1) % hull.length]!;
    twice += x0 * y1 - x1 * y0;
  }
  return area / (Math.abs(twice) / 2);
}
