import { createHash } from "node:crypto";
import sharp from "sharp";
import { decodeRaw, encodePng, firstImage, type EffectOutput } from "../../local/image-io";
import type { RenderRequest } from "../../types";

/**
 * Y2K fashion illustration: the subject in a neon duotone with posterised, illustrated
 * shading and a soft glow, set on a chrome or gradient background. The optional prompt
 * steers the colours, the mood and the background (keywords, with a hash of the text as
 * a fallback so any two prompts differ).
 */
type RGB = [number, number, number];

const NAMED: Record<string, RGB> = {
  pink: [255, 79, 216],
  magenta: [255, 40, 190],
  cyan: [39, 232, 255],
  blue: [61, 123, 255],
  purple: [138, 92, 255],
  violet: [160, 80, 255],
  lime: [182, 255, 59],
  green: [60, 255, 140],
  gold: [255, 211, 77],
  yellow: [255, 236, 60],
  orange: [255, 138, 61],
  red: [255, 60, 90],
  silver: [223, 230, 240],
  white: [245, 245, 255],
};

export interface Y2kStyle {
  /** Duotone ends: shadows take `dark`, highlights `light`. */
  dark: RGB;
  light: RGB;
  /** Background gradient, top to bottom, and whether it gets chrome streaks. */
  top: RGB;
  bottom: RGB;
  chrome: boolean;
  /** 0..1: how much of the original colour shows through. */
  keep: number;
}

const hsl = (h: number, s: number, l: number): RGB => {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
};

/** The look a prompt asks for. Exported for tests. */
export function styleFor(prompt: string): Y2kStyle {
  const text = prompt.toLowerCase();
  const digest = createHash("sha256").update(text).digest();
  // Without colour words, the prompt's hash picks a hue pair (empty prompt: pink and cyan).
  const baseHue = text.trim() ? (digest.readUInt16BE(0) / 65536) * 360 : 310;
  const named = Object.keys(NAMED).filter((k) => new RegExp(`\\b${k}\\b`).test(text));
  const dark = named[0] ? NAMED[named[0]]! : hsl(baseHue, 1, 0.55);
  const light = named[1] ? NAMED[named[1]]! : hsl((baseHue + 150) % 360, 1, 0.68);
  let top: RGB = hsl((baseHue + 40) % 360, 1, 0.62);
  let bottom: RGB = hsl((baseHue + 200) % 360, 1, 0.5);
  let chrome = /chrome|metal|silver|mirror/.test(text) || (!text.trim() ? true : digest[2]! % 2 === 0);
  let keep = 0.3;
  if (/night|cyber|dark|club|neon/.test(text)) {
    top = [10, 6, 48];
    bottom = [58, 12, 163];
    keep = 0.22;
  }
  if (/sunset|summer|beach|warm/.test(text)) {
    top = [255, 150, 80];
    bottom = [255, 70, 160];
  }
  if (/dream|pastel|soft|cloud/.test(text)) {
    top = [255, 214, 240];
    bottom = [196, 220, 255];
    keep = 0.38;
    chrome = false;
  }
  if (/holo|rainbow|iridescent/.test(text)) {
    top = [120, 255, 230];
    bottom = [255, 120, 255];
    chrome = true;
  }
  return { dark, light, top, bottom, chrome, keep };
}

const smoothstep = (a: number, b: number, v: number) => {
  const t = Math.min(1, Math.max(0, (v - a) / (b - a)));
  return t * t * (3 - 2 * t);
};

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const src = await decodeRaw(firstImage(req), { channels: 3, flatten: true, maxSide: 1280 });
  const { width, height, data } = src;
  const n = width * height;
  const style = styleFor(req.prompt);

  // Subject mask: far in colour from the frame's border, weighted towards the centre.
  let br = 0;
  let bg = 0;
  let bb = 0;
  let bc = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      if (x > 3 && y > 3 && x < width - 4 && y < height - 4) continue;
      const i = (y * width + x) * 3;
      br += data[i]!;
      bg += data[i + 1]!;
      bb += data[i + 2]!;
      bc++;
    }
  br /= bc;
  bg /= bc;
  bb /= bc;
  const rawMask = Buffer.alloc(n);
  for (let y = 0; y < height; y++) {
    const ny = (y - height / 2) / (height / 2);
    for (let x = 0; x < width; x++) {
      const nx = (x - width / 2) / (width / 2);
      const i = y * width + x;
      const d = Math.hypot(data[i * 3]! - br, data[i * 3 + 1]! - bg, data[i * 3 + 2]! - bb);
      const centre = 1 - smoothstep(0.55, 1.1, Math.hypot(nx * 0.8, ny));
      rawMask[i] = Math.round(255 * smoothstep(28, 70, d) * centre);
    }
  }
  const mask = await sharp(rawMask, { raw: { width, height, channels: 1 } })
    .median(9)
    .blur(6)
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();

  // Subject: posterised luminance (illustration shading) mapped onto the neon duotone.
  const subject = new Float32Array(n * 3);
  const glowSrc = Buffer.alloc(n * 3);
  for (let i = 0; i < n; i++) {
    const r = data[i * 3]!;
    const g = data[i * 3 + 1]!;
    const b = data[i * 3 + 2]!;
    const l = (0.299 * r + 0.587 * g + 0.114 * b) / 255;
    const t = Math.round(Math.min(1, l * 1.15) * 5) / 5; // 6 tone steps
    for (let c = 0; c < 3; c++) {
      const tone = style.dark[c]! * (1 - t) + style.light[c]! * t;
      const orig = [r, g, b][c]!;
      subject[i * 3 + c] = tone * (1 - style.keep) + orig * style.keep;
    }
    if (t >= 0.8 && mask[i]! > 128) for (let c = 0; c < 3; c++) glowSrc[i * 3 + c] = subject[i * 3 + c]!;
  }
  const glow = await sharp(glowSrc, { raw: { width, height, channels: 3 } })
    .blur(Math.max(4, width / 80))
    .raw()
    .toBuffer();

  // Background: a vertical gradient, with diagonal chrome streaks when the style asks.
  const out = Buffer.alloc(n * 3);
  for (let y = 0; y < height; y++) {
    const v = y / Math.max(1, height - 1);
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const streak = style.chrome ? 0.5 + 0.5 * Math.sin((x + y * 0.6) / (width / 9)) ** 9 : 0;
      const m = mask[i]! / 255;
      for (let c = 0; c < 3; c++) {
        let back = style.top[c]! * (1 - v) + style.bottom[c]! * v;
        if (style.chrome) back = back * 0.82 + 255 * 0.18 * streak + 20 * Math.sin(v * 7 + c);
        const value = back * (1 - m) + subject[i * 3 + c]! * m + glow[i * 3 + c]! * 0.55;
        out[i * 3 + c] = Math.max(0, Math.min(255, Math.round(value)));
      }
    }
  }
  return encodePng({ data: out, width, height, channels: 3 });
}
