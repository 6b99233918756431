import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { uniform } from "../../shared/random";
import { fitInkPoint, lineInk } from "./ink-point";
import { growMask } from "./morphology";

/**
 * A coloured mark at one opacity over a backdrop that changes along it (dark grass on the
 * left, bright sky on the right, seeded noise), JPEG-compressed: the ink and its opacity come
 * back from the glyphs' edges alone, and a logo beside the word is found from that ink.
 */
async function scene(seed: number, ink: string, alpha: number, withLogo: boolean) {
  const width = 640;
  const height = 240;
  const r = uniform(seed);
  const photo = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const t = x / width;
      const n = (r() - 0.5) * 16;
      const base = [60 + 180 * t, 80 + 150 * t, 25 + 190 * t];
      for (let k = 0; k < 3; k++) photo[(y * width + x) * 3 + k] = Math.max(0, Math.min(255, base[k]! + n));
    }
  const word = `<text x="200" y="140" font-family="DejaVu Sans" font-weight="bold" font-size="64" fill="${ink}">${"sunlight".slice(0, 5 + (seed % 4))}</text>`;
  const logo = withLogo
    ? `<circle cx="110" cy="120" r="50" fill="none" stroke="${ink}" stroke-width="14"/><rect x="90" y="100" width="40" height="40" fill="${ink}"/>`
    : "";
  const svg = (body: string) =>
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><g opacity="${alpha}">${body}</g></svg>`,
    );
  const image = await sharp(photo, { raw: { width, height, channels: 3 } })
    .composite([{ input: svg(word + logo) }])
    .jpeg({ quality: 90 })
    .toBuffer();
  const rgb = await sharp(image).removeAlpha().raw().toBuffer();
  // The glyphs, as a finder would report them: where the word's own coverage is full.
  const cover = await sharp(svg(word)).ensureAlpha().extractChannel(3).raw().toBuffer();
  const glyphs = new Uint8Array(width * height);
  for (let i = 0; i < glyphs.length; i++) glyphs[i] = cover[i]! >= Math.round(alpha * 255) - 2 ? 1 : 0;
  const logoCover = withLogo ? await sharp(svg(logo)).ensureAlpha().extractChannel(3).raw().toBuffer() : null;
  return { rgb, glyphs, width, height, logoCover };
}

describe("ink point", () => {
  for (const [seed, ink, rgb, alpha] of [
    [1, "#1e5bd8", [30, 91, 216], 0.5],
    [2, "#d01818", [208, 24, 24], 0.65],
    [3, "#18a040", [24, 160, 64], 0.45],
  ] as const) {
    it(`recovers ${ink} at ${alpha} from the glyphs' edges over a changing backdrop`, async () => {
      const s = await scene(seed, ink, alpha, false);
      const point = fitInkPoint(s.rgb, s.glyphs, s.width, s.height);
      expect(point).not.toBeNull();
      expect(Math.abs(point!.alpha - alpha)).toBeLessThan(0.08);
      for (let k = 0; k < 3; k++) expect(Math.abs(point!.ink[k]! - rgb[k]!)).toBeLessThan(30);
    });
  }

  it("finds a logo in the line's ink beside it, and nothing where there is none", async () => {
    const s = await scene(4, "#1e5bd8", 0.5, true);
    const found = await lineInk(s.rgb, s.width, s.height, s.glyphs, 4, 2);
    expect(found).not.toBeNull();
    let hit = 0;
    let logo = 0;
    let stray = 0;
    for (let i = 0; i < s.glyphs.length; i++) {
      const inLogo = s.logoCover![i]! > 100;
      if (inLogo) logo++;
      if (found!.patches[i] && inLogo) hit++;
      if (found!.patches[i] && !inLogo && !s.glyphs[i] && s.logoCover![i]! === 0) stray++;
    }
    expect(hit / logo).toBeGreaterThan(0.6);
    expect(stray / logo).toBeLessThan(0.1);
    const clean = await scene(4, "#1e5bd8", 0.5, false);
    const none = await lineInk(clean.rgb, clean.width, clean.height, clean.glyphs, 4, 2);
    // Without a logo, nothing is found away from the word (its anti-aliased rim aside).
    const near = growMask(clean.glyphs, clean.width, clean.height, 3);
    let extra = 0;
    if (none) for (let i = 0; i < near.length; i++) if (none.patches[i] && !near[i]) extra++;
    expect(extra).toBe(0);
  });
});
