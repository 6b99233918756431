import sharp from "sharp";
import type { Palette } from "./scene";

/**
 * The digicam finish of the Y2K look, drawn as vector overlays (anti-aliased by librsvg, no
 * font needed): four-point star sparkles and an orange seven-segment date stamp, plus the
 * slight chromatic fringing of a cheap early-2000s lens.
 */

export interface Sparkle {
  x: number;
  y: number;
  /** Arm length in pixels. */
  r: number;
}

const hex = (c: readonly number[]) =>
  "#" +
  c
    .map((v) =>
      Math.max(0, Math.min(255, Math.round(v)))
        .toString(16)
        .padStart(2, "0"),
    )
    .join("");

/** One four-point star with a shorter diagonal star and a soft glow, as SVG. */
function star(s: Sparkle, k: number): string {
  const { x, y, r } = s;
  const w = r * 0.11;
  const d = r * 0.42;
  const dw = d * 0.14;
  const p = (pts: Array<[number, number]>) =>
    pts.map(([a, b], i) => `${i ? "L" : "M"}${(x + a).toFixed(1)} ${(y + b).toFixed(1)}`).join(" ") + " Z";
  const main = p([
    [0, -r],
    [w, -w],
    [r, 0],
    [w, w],
    [0, r],
    [-w, w],
    [-r, 0],
    [-w, -w],
  ]);
  const c = Math.SQRT1_2;
  const diag = p([
    [-d * c, -d * c],
    [0, -dw],
    [d * c, -d * c],
    [dw, 0],
    [d * c, d * c],
    [0, dw],
    [-d * c, d * c],
    [-dw, 0],
  ]);
  return (
    `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${(r * 0.45).toFixed(1)}" fill="url(#halo)"/>` +
    `<path d="${diag}" fill="url(#s${k})" opacity="0.7"/>` +
    `<path d="${main}" fill="url(#s${k})"/>`
  );
}

/** The sparkles as one SVG layer the size of the image (screened on by the caller). */
export function sparkleLayer(W: number, H: number, sparkles: readonly Sparkle[], pal: Palette): Buffer {
  const defs = sparkles
    .map(
      (s, k) =>
        `<radialGradient id="s${k}" gradientUnits="userSpaceOnUse" cx="${s.x.toFixed(1)}" cy="${s.y.toFixed(1)}" r="${s.r.toFixed(1)}">` +
        `<stop offset="0" stop-color="#ffffff"/><stop offset="0.35" stop-color="${hex(pal.sparkle)}"/>` +
        `<stop offset="1" stop-color="${hex(pal.sparkle)}" stop-opacity="0"/></radialGradient>`,
    )
    .join("");
  const halo =
    `<radialGradient id="halo"><stop offset="0" stop-color="#ffffff" stop-opacity="0.85"/>` +
    `<stop offset="0.3" stop-color="${hex(pal.glow)}" stop-opacity="0.35"/>` +
    `<stop offset="1" stop-color="${hex(pal.glow)}" stop-opacity="0"/></radialGradient>`;
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><defs>${halo}${defs}</defs>` +
      `<rect width="100%" height="100%" fill="#000000"/>` +
      sparkles.map((s, k) => star(s, k)).join("") +
      `</svg>`,
  );
}

/** Seven-segment layout: which of a..g each digit lights. */
const SEGMENTS: Readonly<Record<string, string>> = {
  "0": "abcdef",
  "1": "bc",
  "2": "abged",
  "3": "abgcd",
  "4": "fgbc",
  "5": "afgcd",
  "6": "afgedc",
  "7": "abc",
  "8": "abcdefg",
  "9": "abcdfg",
};

/** A digicam date like "'01 11 24" (a year 1999..2004) from the random source. */
export function stampText(rand: () => number): string {
  const year = 1999 + Math.floor(rand() * 6);
  const month = 1 + Math.floor(rand() * 12);
  const day = 1 + Math.floor(rand() * 28);
  return `'${String(year % 100).padStart(2, "0")} ${month} ${day}`;
}

/**
 * The date stamp as an SVG of its own size (digit height `gh` px): orange seven-segment
 * glyphs, slanted like a camera's LCD, with a soft orange glow.
 */
export function stampLayer(text: string, gh: number): { svg: Buffer; width: number; height: number } {
  const t = gh * 0.14;
  const gw = gh * 0.56;
  const pad = Math.ceil(gh * 0.5);
  const rects: string[] = [];
  let x = pad;
  const y = pad;
  const rect = (rx: number, ry: number, w: number, h: number) =>
    rects.push(
      `<rect x="${rx.toFixed(2)}" y="${ry.toFixed(2)}" width="${w.toFixed(2)}" height="${h.toFixed(2)}" rx="${(t / 2).toFixed(2)}"/>`,
    );
  for (const ch of text) {
    if (ch === " ") {
      x += gh * 0.42;
      continue;
    }
    if (ch === "'") {
      rect(x, y, t, gh * 0.3);
      x += t + gh * 0.22;
      continue;
    }
    const on = SEGMENTS[ch] ?? "";
    const half = gh / 2;
    const g = t * 0.35;
    for (const s of on) {
      if (s === "a") rect(x + g, y, gw - 2 * g, t);
      if (s === "d") rect(x + g, y + gh - t, gw - 2 * g, t);
      if (s === "g") rect(x + g, y + half - t / 2, gw - 2 * g, t);
      if (s === "f") rect(x, y + g, t, half - 2 * g);
      if (s === "e") rect(x, y + half + g, t, half - 2 * g);
      if (s === "b") rect(x + gw - t, y + g, t, half - 2 * g);
      if (s === "c") rect(x + gw - t, y + half + g, t, half - 2 * g);
    }
    x += gw + gh * 0.24;
  }
  const width = Math.ceil(x + pad);
  const height = Math.ceil(gh + 2 * pad);
  const body = rects.join("");
  const skew = `transform="translate(${(gh * 0.09).toFixed(2)} 0) skewX(-9)"`;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<g ${skew} fill="#ff7a1c" stroke="#ff6a10" stroke-width="${(t * 1.6).toFixed(2)}" stroke-linejoin="round" opacity="0.28">${body}</g>` +
    `<g ${skew} fill="#ffb347" stroke="#ff9a2e" stroke-width="${(t * 0.35).toFixed(2)}">${body}</g>` +
    `</svg>`;
  return { svg: Buffer.from(svg), width, height };
}

/**
 * Chromatic fringing: the red channel scaled up by `amount` about the centre (libvips), so
 * edges get a red and a cyan fringe that grows towards the corners, like a cheap lens.
 * In place on an RGB buffer.
 */
export async function fringe(img: Buffer, W: number, H: number, amount: number): Promise<void> {
  const bw = Math.round(W * (1 + amount));
  const bh = Math.round(H * (1 + amount));
  if (bw - W < 2 || bh - H < 2) return;
  const red = await sharp(img, { raw: { width: W, height: H, channels: 3 } })
    .extractChannel(0)
    .resize(bw, bh, { fit: "fill", kernel: "linear" })
    .extract({ left: (bw - W) >> 1, top: (bh - H) >> 1, width: W, height: H })
    .raw()
    .toBuffer();
  for (let i = 0, n = W * H; i < n; i++) img[i * 3] = red[i]!;
}
