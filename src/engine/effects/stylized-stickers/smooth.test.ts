import { describe, expect, it } from "vitest";
import type { RawImage } from "../../shared/image-io";
import type { Mask } from "../../shared/mask";
import { oklab } from "../../shared/pixel-art";
import { smileLine } from "./person-art";
import { areaColour, defringe, spreadTones, trueColours } from "./smooth";

type Rgb = readonly [number, number, number];
const image = (w: number, h: number, colour: (x: number, y: number) => Rgb): RawImage => {
  const data = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(colour(x, y), (y * w + x) * 3);
  return { data, width: w, height: h, channels: 3 };
};
const full = (w: number, h: number): Mask => ({ data: new Uint8Array(w * h).fill(1), width: w, height: h });
const at = (img: RawImage, x: number, y: number): Rgb => {
  const i = (y * img.width + x) * 3;
  return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
};
const chroma = (c: Rgb) => {
  const [, a, b] = oklab(...c);
  return Math.hypot(a, b);
};
const hue = (c: Rgb) => {
  const [, a, b] = oklab(...c);
  return Math.atan2(b, a);
};

describe("stylized-stickers, session 11", () => {
  it("keeps a closed mouth's expression: a frown stays a frown, a straight mouth straight", () => {
    const up: [number, number] = [0, -1];
    const fw = 200;
    // 13 points from corner to corner; the corners 3 px (1.5 % of the face) below the middle.
    const frown = Array.from({ length: 13 }, (_, k): [number, number] => {
      const t = (k - 6) / 6;
      return [100 + t * 40, 200 + 3 * t * t];
    });
    const out = smileLine(frown, up, fw);
    const mid = out[6]![1];
    // Image y grows downwards: the corners stay (and go a little further) below the middle.
    expect(out[0]![1]).toBeGreaterThan(mid + 3);
    expect(out[12]![1]).toBeGreaterThan(mid + 3);
    const straight = smileLine(
      Array.from({ length: 13 }, (_, k): [number, number] => [60 + k * 7, 200]),
      up,
      fw,
    );
    for (const p of straight) expect(p[1]).toBeCloseTo(200, 6);
  });

  it("draws each flat area in its own photo colour, not the palette's nearest entry", () => {
    // One palette colour (a brown) covers two separate areas: over green eyes and over grey fur.
    const w = 60;
    const h = 20;
    const brown: Rgb = [150, 110, 70];
    const ink: Rgb = [62, 40, 48];
    const cartoon = image(w, h, (x) => (x >= 28 && x < 32 ? ink : brown));
    const photo = image(w, h, (x) => (x < 30 ? [110, 150, 70] : [128, 128, 132]));
    trueColours(cartoon, photo, full(w, h), ink);
    const left = at(cartoon, 10, 10);
    const right = at(cartoon, 50, 10);
    // The left area is green now (its hue near the photo's green, far from the brown's).
    expect(Math.abs(hue(left) - hue([110, 150, 70]))).toBeLessThan(0.3);
    // The right area is nearly grey: far less colourful than the palette's brown.
    expect(chroma(right)).toBeLessThan(chroma(brown) / 3);
    // Each area is one flat colour, its lightness the palette's (the cel shading stays).
    expect(at(cartoon, 2, 2)).toEqual(left);
    expect(at(cartoon, 58, 18)).toEqual(right);
    expect(oklab(...left)[0]).toBeCloseTo(oklab(...brown)[0], 1);
    // Ink lines are left alone.
    expect(at(cartoon, 29, 10)).toEqual(ink);
  });

  it("spreads a faded print's narrow band of tones, keeps its colour, and leaves a full-range photo alone", () => {
    const w = 100;
    const h = 10;
    // A sepia ramp from luma about 120 to 170.
    const faded = image(w, h, (x) => {
      const v = 120 + (x / (w - 1)) * 50;
      return [v + 12, v, v - 14];
    });
    const out = spreadTones(faded, full(w, h));
    const luma = (c: Rgb) => 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
    const span = luma(at(out, w - 1, 5)) - luma(at(out, 0, 5));
    expect(span).toBeGreaterThan(50 * 1.3);
    // The sepia's chroma is kept, not multiplied with the lightness.
    expect(Math.abs(at(out, 50, 5)[0] - at(out, 50, 5)[2] - 26)).toBeLessThanOrEqual(2);
    const wide = image(w, h, (x) => {
      const v = Math.round((x / (w - 1)) * 255);
      return [v, v, v];
    });
    expect(spreadTones(wide, full(w, h)).data.equals(wide.data)).toBe(true);
  });

  it("repaints the matte's edge band in the subject's colours, so no backdrop fringe is left", () => {
    const w = 80;
    const h = 80;
    // A red disc whose outer 3 px hold the sky's blue (a matte edge's mix).
    const mask: Mask = { data: new Uint8Array(w * h), width: w, height: h };
    const img = image(w, h, (x, y) => {
      const r = Math.hypot(x - 40, y - 40);
      if (r <= 30) mask.data[y * w + x] = 1;
      return r <= 27 ? [200, 30, 30] : [90, 140, 220];
    });
    const out = defringe(img, mask, 4);
    let blue = 0;
    for (let i = 0; i < w * h; i++) {
      if (!mask.data[i]) continue;
      const [r, , b] = [out.data[i * 3]!, out.data[i * 3 + 1]!, out.data[i * 3 + 2]!];
      if (b > r) blue++;
    }
    expect(blue).toBe(0);
    // The inside is untouched.
    expect(at(out, 40, 40)).toEqual([200, 30, 30]);
  });
});

describe("areaColour (session 11)", () => {
  const hue = ([a, b]: [number, number]) => (Math.atan2(b, a) * 180) / Math.PI;
  it("keeps a muted copper's hue and chroma (no square grid turning it mauve-grey)", () => {
    // A dull copper area of hair (hue 21 degrees, chroma 0.03 at lightness 0.49).
    const c = areaColour(0.49, 0.028, 0.011);
    expect(Math.abs(hue(c) - 21)).toBeLessThan(5);
    expect(Math.hypot(...c)).toBeGreaterThanOrEqual(0.03);
  });
  it("still draws a cool cast on grey fur and a dark warm charcoal greyer", () => {
    // A raccoon's violet-tinted grey, a charcoal jacket in warm light.
    expect(Math.hypot(...areaColour(0.58, 0.015, -0.029))).toBeLessThan(0.025);
    expect(Math.hypot(...areaColour(0.29, 0.011, 0.01))).toBeLessThan(0.013);
  });
});
