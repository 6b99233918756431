import sharp from "sharp";
import { uniform } from "../../shared/random";

/**
 * Watermarks the remover was never tuned on, made on demand from a seed: a random font
 * (the DejaVu families every Debian/Ubuntu machine has), weight, style, size, angle, colour,
 * opacity, text and position, drawn over a clean photo. Tests and `npm run bench:watermark`
 * use them so the remover is measured on the general case, not on its fixtures.
 */
export interface SyntheticMark {
  seed: number;
  text: string;
  font: string;
  bold: boolean;
  italic: boolean;
  /** Font size as a share of the photo's shorter side. */
  size: number;
  angle: number;
  colour: string;
  opacity: number;
  /** Centre of the text as a share of the photo's width and height. */
  x: number;
  y: number;
}

const FONTS = ["DejaVu Sans", "DejaVu Serif", "DejaVu Sans Mono", "DejaVu Sans Condensed"];
const TEXTS = [
  "© Studio Lumen 2024",
  "SAMPLE",
  "PROOF",
  "@northlight.photo",
  "Stock Preview",
  "© Anna Berg Photography",
  "DO NOT COPY",
  "www.pixfield.net",
];
/** White and black, and the colours credits come in. (Translucent grey and black are not found: RECIPE.md.) */
const COLOURS = ["#ffffff", "#ffffff", "#000000", "#d01818", "#1a4fd0", "#f2d21b", "#18a040", "#ff7a00"];

export function syntheticMark(seed: number): SyntheticMark {
  const r = uniform(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
  const colour = pick(COLOURS);
  return {
    seed,
    text: pick(TEXTS),
    font: pick(FONTS),
    bold: r() < 0.5,
    italic: r() < 0.3,
    size: 0.06 + r() * 0.08,
    angle: r() < 0.5 ? 0 : Math.round(-35 + r() * 70),
    colour,
    // White marks from faint to opaque; black and coloured ones as credits draw them (a
    // translucent black or a faint colour is a shadow to the finders, not ink).
    opacity:
      colour === "#ffffff" ? 0.4 + r() * 0.6 : colour === "#000000" ? 0.9 + r() * 0.1 : 0.6 + r() * 0.4,
    x: 0.25 + r() * 0.5,
    y: 0.15 + r() * 0.7,
  };
}

const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The clean photo (any encoded image) with the mark drawn over it, as PNG. */
export async function applyMark(clean: Uint8Array, mark: SyntheticMark): Promise<Buffer> {
  const meta = await sharp(clean).metadata();
  const width = meta.width!;
  const height = meta.height!;
  const px = Math.round(Math.min(width, height) * mark.size);
  const cx = Math.round(width * mark.x);
  const cy = Math.round(height * mark.y);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<text x="${cx}" y="${cy}" text-anchor="middle" dominant-baseline="middle" ` +
    `font-family="${mark.font}" font-size="${px}" font-weight="${mark.bold ? "bold" : "normal"}" ` +
    `font-style="${mark.italic ? "italic" : "normal"}" fill="${mark.colour}" fill-opacity="${mark.opacity.toFixed(2)}" ` +
    `transform="rotate(${mark.angle} ${cx} ${cy})">${escapeXml(mark.text)}</text></svg>`;
  return sharp(clean)
    .removeAlpha()
    .composite([{ input: Buffer.from(svg), left: 0, top: 0 }])
    .png()
    .toBuffer();
}

/**
 * Photo content that is not a watermark but looks like white text to a text detector: a
 * flag-like field of white five-pointed stars in offset rows on a blue ground, drawn into a
 * corner of a clean photo (the stars of a flag behind a portrait). `size` is a star's outer
 * diameter as a share of the photo's shorter side.
 */
export async function applyStarField(clean: Uint8Array, seed: number): Promise<Buffer> {
  const r = uniform(seed);
  const meta = await sharp(clean).metadata();
  const width = meta.width!;
  const height = meta.height!;
  const short = Math.min(width, height);
  const d = Math.round(short * (0.035 + r() * 0.03));
  const step = Math.round(d * (1.6 + r() * 0.6));
  const fieldW = Math.round(width * (0.35 + r() * 0.2));
  const fieldH = Math.round(height * (0.3 + r() * 0.2));
  const star = (cx: number, cy: number) => {
    const pts: string[] = [];
    for (let k = 0; k < 10; k++) {
      const rad = k % 2 ? d * 0.19 : d / 2;
      const a = -Math.PI / 2 + (k * Math.PI) / 5;
      pts.push(`${(cx + rad * Math.cos(a)).toFixed(1)},${(cy + rad * Math.sin(a)).toFixed(1)}`);
    }
    return `<polygon points="${pts.join(" ")}" fill="#ffffff"/>`;
  };
  let stars = "";
  for (let row = 0, y = step / 2; y < fieldH - d / 2; row++, y += step * 0.8)
    for (let x = step / 2 + (row % 2 ? step / 2 : 0); x < fieldW - d / 2; x += step) stars += star(x, y);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect x="0" y="0" width="${fieldW}" height="${fieldH}" fill="#1c2f6e"/>${stars}</svg>`;
  return sharp(clean)
    .removeAlpha()
    .composite([{ input: Buffer.from(svg), left: 0, top: 0 }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

/**
 * A logo beside a name, in one coloured ink at one opacity (a ring, a disc, a square or a ring
 * around a triangle, 2-3 text heights tall, left of a random lower-case word), over a clean
 * photo, as JPEG. `logo` is the logo's box in pixels (for measuring it alone).
 */
export async function applyLogoMark(
  clean: Uint8Array,
  seed: number,
): Promise<{ image: Buffer; logo: { left: number; top: number; width: number; height: number } }> {
  const r = uniform(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
  const meta = await sharp(clean).metadata();
  const width = meta.width!;
  const height = meta.height!;
  const short = Math.min(width, height);
  const px = Math.round(short * (0.06 + r() * 0.04));
  const word = Array.from({ length: 6 + Math.floor(r() * 5) }, () => pick([..."abcdefghknoprstuvwxyz"])).join(
    "",
  );
  const colour = pick(["#d01818", "#1a4fd0", "#18a040", "#ff7a00", "#8a1ad0"]);
  const opacity = (0.45 + r() * 0.25).toFixed(2);
  const size = Math.round(px * (2 + r()));
  const x0 = Math.round(width * (0.05 + r() * 0.15));
  const y0 = Math.round(height * (0.1 + r() * 0.6));
  const c = size / 2;
  const stroke = Math.max(4, Math.round(size * 0.1));
  const shapes = [
    `<circle cx="${x0 + c}" cy="${y0 + c}" r="${c - stroke / 2}" fill="none" stroke="${colour}" stroke-width="${stroke}"/>`,
    `<circle cx="${x0 + c}" cy="${y0 + c}" r="${c}" fill="${colour}"/>`,
    `<rect x="${x0}" y="${y0}" width="${size}" height="${size}" rx="${Math.round(size * 0.15)}" fill="${colour}"/>`,
    `<circle cx="${x0 + c}" cy="${y0 + c}" r="${c - stroke / 2}" fill="none" stroke="${colour}" stroke-width="${stroke}"/>` +
      `<path d="M${x0 + c} ${y0 + c * 0.4} L${x0 + c * 1.6} ${y0 + c * 1.45} L${x0 + c * 0.4} ${y0 + c * 1.45} Z" fill="${colour}"/>`,
  ];
  const textX = x0 + size + Math.round(px * (0.2 + r() * 0.4));
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<g fill-opacity="${opacity}" stroke-opacity="${opacity}">${pick(shapes)}` +
    `<text x="${textX}" y="${y0 + c}" dominant-baseline="middle" font-family="DejaVu Sans" font-weight="bold" ` +
    `font-size="${px}" fill="${colour}">${word}</text></g></svg>`;
  const image = await sharp(clean)
    .removeAlpha()
    .composite([{ input: Buffer.from(svg), left: 0, top: 0 }])
    .jpeg({ quality: 90 })
    .toBuffer();
  return { image, logo: { left: x0, top: y0, width: size, height: size } };
}
