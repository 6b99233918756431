import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { SCORING_PHOTOS } from "../../../../scripts/scoring-set";
import { EngineError } from "@/core/ports/renderer";
import { PHOTOS, photo, request } from "../../shared/test-utils";
import { scoreWatermarkRemoval, WATERMARK_FIXTURES } from "./measure";
import { decodeRaw } from "../../shared/image-io";
import { textProbability } from "../../vision/text-detector";
import { render } from "./render";
import { applyLogoMark, applyMark, applyStarField, syntheticMark } from "./synthetic";
import { uniform } from "../../shared/random";
import sharp from "sharp";
import { growMask } from "./morphology";
import { oklab } from "../../shared/pixel-art";

describe("watermark-remover", () => {
  // The engine issue's goal: at least +3 dB inside the watermark regions of watermark-1 and -2.
  // Measured (docs/ENGINE.md): +11.0 dB and +3.7 dB inside; outside −0.3 dB and ±0.
  const insideGain = {
    "watermark-1-landscape-tiled.jpg": 9,
    "watermark-2-portrait-centered.jpg": 3,
    // A logo without text: the detector takes its star for a glyph, the ring is found as a
    // part beside it at the same opacity (+8.3 dB measured).
    "watermark-3-logo-corner.jpg": 3,
    "watermark-4-opaque-text.jpg": 3,
  };

  for (const { watermarked, clean } of WATERMARK_FIXTURES) {
    it(`brings ${watermarked} closer to its clean original inside the watermark and leaves the rest`, async () => {
      const input = await photo(watermarked);
      const out = await render(request("watermark-remover", input));
      const score = await scoreWatermarkRemoval(input, out.bytes, await photo(clean));
      expect(score.insideAfter - score.insideBefore).toBeGreaterThan(insideGain[watermarked]);
      expect(score.outsideAfter).toBeGreaterThan(score.outsideBefore - 0.5);
      // No blotches: over-corrected pixels stay rare (0.04-0.09 %; 0.33 % when stroke pixels
      // took the nearest opacity instead of the locally dominant one).
      expect(score.worsened).toBeLessThan(0.0015);
      // Same size, PNG, and the same output for the same input.
      const again = await render(request("watermark-remover", input, { seed: 99 }));
      expect(Buffer.from(again.bytes).equals(Buffer.from(out.bytes))).toBe(true);
      expect(Buffer.from(out.bytes).subarray(1, 4).toString()).toBe("PNG");
    }, 60_000);
  }

  // A near-opaque light-grey handle with a drop shadow in the corner (`watermark-8`, no clean
  // original): read as a white overlay at 0.76 and un-blended, its letters came out dark
  // green and the text detector still found 6.3 % of the corner to be text. Thin strokes
  // that opaque are inpainted (ghosts.ts); afterwards the detector finds none there.
  it("removes a near-opaque handle with a drop shadow so that no text is left to detect", async () => {
    const input = await photo("watermark-8-handle-raccoon.jpg");
    const corner = async (bytes: Uint8Array) => {
      const { data, width, height } = await decodeRaw(bytes, { channels: 3, flatten: true });
      const p = await textProbability(data, width, height);
      let text = 0;
      let all = 0;
      for (let y = Math.round(height * 0.88); y < Math.round(height * 0.98); y++)
        for (let x = Math.round(width * 0.66); x < width; x++, all++) if (p[y * width + x]! > 76) text++;
      return text / all;
    };
    expect(await corner(input)).toBeGreaterThan(0.05); // the handle is there to begin with
    const out = await render(request("watermark-remover", input));
    expect(await corner(out.bytes)).toBeLessThan(0.005);
  }, 60_000);

  // Marks the remover was never tuned on: seeded random text, font (sans, serif, mono,
  // condensed; bold, italic, serif bold italic), size (6-14 % of the short side), angle (up to
  // ±35°), colour (white, black, red, blue, yellow, green, orange), opacity and position, over
  // photos of every kind. Measured on seeds 1-16 (npm run bench:watermark): 14 found, each
  // +6.2 to +23.4 dB inside the mark; the two missed are refused.
  it("removes watermarks in fonts, colours, sizes, angles and places it was not tuned on", async () => {
    const photos = [
      "portrait-female-1.jpg",
      "landscape-1-meadow-cc0.jpg",
      "pet-1-cat.png",
      "object-coffee.png",
    ];
    const gains: number[] = [];
    for (let seed = 1; seed <= 16; seed++) {
      const clean = await photo(photos[seed % photos.length]!, 900);
      const mark = syntheticMark(seed);
      const input = await applyMark(clean, mark);
      const out = await render(request("watermark-remover", input)).catch((e: unknown) => e);
      if (out instanceof EngineError) {
        expect(out.code).toBe("noWatermark"); // not found: refused, the credits come back
        gains.push(Number.NaN);
        continue;
      }
      const score = await scoreWatermarkRemoval(input, (out as { bytes: Uint8Array }).bytes, clean);
      // What is changed is the mark: never a worse picture, no blotches, the rest untouched.
      expect(score.insideAfter - score.insideBefore, JSON.stringify(mark)).toBeGreaterThan(-0.5);
      // Measured at most 0.55 % (seed 3: a large bold serif inpainted over a busy cup).
      expect(score.worsened, JSON.stringify(mark)).toBeLessThan(0.0075);
      gains.push(score.insideAfter - score.insideBefore);
    }
    const removed = gains.filter((g) => g >= 3);
    expect(removed.length, gains.map((g) => g.toFixed(1)).join(" ")).toBeGreaterThanOrEqual(12);
  }, 300_000);

  // Two kinds the random marks above rarely draw, each on its own seeds. (1) Black or
  // near-black text at 90-100 % across a face, which often runs on over a dark collar or a
  // night background: the glyphs there merge with the photo's own black, which used to make
  // the whole line count as photo (seeds 3 and 6 were refused). (2) Coloured serif text
  // (mostly italic, the credits' style) at 60-100 %. Measured: dark 7 of 8 found, +3.5 to
  // +23.5 dB (seed 7, dark grey over a black collar, refused); serif 8 of 8, +6.0 to +22.8 dB.
  const faces = [
    "portrait-female-1.jpg",
    "portrait-male-1.jpg",
    "portrait-male-2.jpg",
    "portrait-female-3-nasa.png",
  ];
  const removal = async (kind: "dark" | "serif") => {
    const gains: number[] = [];
    for (let seed = 1; seed <= 8; seed++) {
      const r = uniform(1000 + seed);
      const base = syntheticMark(100 + seed);
      const dark = kind === "dark";
      const mark = dark
        ? {
            ...base,
            colour: r() < 0.5 ? "#000000" : "#1a1a1a",
            opacity: 0.9 + r() * 0.1,
            x: 0.45 + r() * 0.1,
            y: 0.35 + r() * 0.15,
          }
        : {
            ...base,
            font: "DejaVu Serif",
            italic: r() < 0.7,
            colour: ["#d01818", "#1a4fd0", "#18a040", "#ff7a00", "#8a1ad0"][Math.floor(r() * 5)]!,
            opacity: 0.6 + r() * 0.4,
          };
      const clean = await photo(
        dark
          ? faces[seed % faces.length]!
          : ["object-coffee.png", "portrait-female-1.jpg", "landscape-1-meadow-cc0.jpg", "pet-1-cat.png"][
              seed % 4
            ]!,
        900,
      );
      const input = await applyMark(clean, mark);
      const out = await render(request("watermark-remover", input)).catch((e: unknown) => e);
      if (out instanceof EngineError) {
        expect(out.code).toBe("noWatermark");
        gains.push(Number.NaN);
        continue;
      }
      const score = await scoreWatermarkRemoval(input, (out as { bytes: Uint8Array }).bytes, clean);
      expect(score.insideAfter - score.insideBefore, JSON.stringify(mark)).toBeGreaterThan(-0.5);
      expect(score.worsened, JSON.stringify(mark)).toBeLessThan(0.0075);
      gains.push(score.insideAfter - score.insideBefore);
    }
    return gains;
  };
  it("removes black text across faces, also where it crosses the photo's own black", async () => {
    const gains = await removal("dark");
    expect(
      gains.filter((g) => g >= 3).length,
      gains.map((g) => g.toFixed(1)).join(" "),
    ).toBeGreaterThanOrEqual(7);
  }, 300_000);
  it("removes coloured serif credits", async () => {
    const gains = await removal("serif");
    expect(gains.filter((g) => g >= 3).length, gains.map((g) => g.toFixed(1)).join(" ")).toBe(8);
  }, 300_000);

  // A logo beside a name in one coloured ink (`watermark-7`: the name was removed, its blue
  // ring and triangle were left). Seeded: shape (ring, disc, rounded square, ring around a
  // triangle), colour, opacity 0.45-0.7, size, word and place, over four kinds of photo. The
  // line's ink is fitted as a point (ink-point.ts) and the patches whose edge vanishes when
  // un-blended are removed with it. Measured on seeds 1-8: 5 logos removed (+9.5 to +23.8 dB
  // inside the logo's box), 2 left (seed 5: an orange disc over a dandelion's bright fuzz,
  // seed 7: a thin green ring over wood; text removed, logo unchanged), 1 refused (its
  // word not found).
  it("removes a logo beside coloured text, in shapes, colours and opacities it was not tuned on", async () => {
    const photos = [
      "portrait-female-1.jpg",
      "landscape-1-meadow-cc0.jpg",
      "pet-1-cat.png",
      "object-coffee.png",
    ];
    const gains: number[] = [];
    for (let seed = 1; seed <= 8; seed++) {
      const clean = await photo(photos[seed % photos.length]!, 900);
      const { image, logo } = await applyLogoMark(clean, seed);
      const out = await render(request("watermark-remover", image)).catch((e: unknown) => e);
      if (out instanceof EngineError) {
        expect(out.code).toBe("noWatermark");
        continue;
      }
      const box = async (bytes: Uint8Array) => sharp(bytes).removeAlpha().extract(logo).raw().toBuffer();
      const truth = await box(clean);
      const psnr = (b: Buffer) => {
        let e = 0;
        for (let i = 0; i < b.length; i++) e += (b[i]! - truth[i]!) ** 2;
        return 10 * Math.log10((255 * 255 * b.length) / Math.max(1, e));
      };
      const gain = psnr(await box((out as { bytes: Uint8Array }).bytes)) - psnr(await box(image));
      expect(gain, `seed ${seed}`).toBeGreaterThan(-0.5); // never a worse logo area
      gains.push(gain);
    }
    expect(
      gains.filter((g) => g >= 3).length,
      gains.map((g) => g.toFixed(1)).join(" "),
    ).toBeGreaterThanOrEqual(5);
  }, 300_000);

  // Translucent dark text (black or dark grey at 25-60 %: a "PROOF" across a face), which the
  // text detector does not see in the photo: found by the sharp grey edges of one ratio
  // (translucent.ts). Seeded text, font, size, angle and place over six photos (seeds 1-8).
  // Measured: 3 of 8 gain 3 dB or more (+12.3 and +7.7 by translucent.ts; +3.1 by the
  // coloured-ink finder, as before it); seed 3 (a serif over the cat, taken by the coloured-ink
  // finder) loses 2.3 dB, as before translucent.ts; 4 refused. Without it: 1 of 8.
  it("removes translucent dark text the text detector does not see, and refuses what it cannot find", async () => {
    const photos = [
      "portrait-female-1.jpg",
      "portrait-male-2.jpg",
      "landscape-1-meadow-cc0.jpg",
      "pet-1-cat.png",
      "object-coffee.png",
      "portrait-male-1.jpg",
    ];
    const gains: number[] = [];
    for (let seed = 1; seed <= 8; seed++) {
      const r = uniform(3000 + seed);
      const mark = {
        ...syntheticMark(300 + seed),
        colour: r() < 0.6 ? "#000000" : "#202020",
        opacity: 0.25 + r() * 0.35,
      };
      const clean = await photo(photos[seed % photos.length]!, 900);
      const input = await applyMark(clean, mark);
      const out = await render(request("watermark-remover", input)).catch((e: unknown) => e);
      if (out instanceof EngineError) {
        expect(out.code).toBe("noWatermark");
        continue;
      }
      const score = await scoreWatermarkRemoval(input, (out as { bytes: Uint8Array }).bytes, clean);
      expect(score.insideAfter - score.insideBefore, JSON.stringify(mark)).toBeGreaterThan(-3);
      expect(score.worsened, JSON.stringify(mark)).toBeLessThan(0.0075);
      gains.push(score.insideAfter - score.insideBefore);
    }
    expect(
      gains.filter((g) => g >= 3).length,
      gains.map((g) => g.toFixed(1)).join(" "),
    ).toBeGreaterThanOrEqual(2);
  }, 300_000);

  // A mark of two lines (`watermark-6`: "PROOF" over "NOT FOR RESALE", black at 35 %, -20°,
  // over a face). The first line is found by its edges (translucent.ts); the second, too small
  // for the text detector, is found as a parallel band of the same ink beside it
  // (companionLines). Each line is measured on its own pixels against the clean portrait it
  // was drawn on (scripts/make-scoring-photos.ts). Measured: +5.5 and +4.4 dB (before: +1.9
  // and 0.0, the second line untouched), worsened pixels 0.46 → 0.32 %.
  it("removes every line of a two-line mark, not only the one the detector reads", async () => {
    const input = await photo("watermark-6-mono-proof-portrait.jpg");
    const raw = (b: Uint8Array) => sharp(b).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const { data: inp, info } = await raw(input);
    const { data: gt } = await raw(await photo("portrait-female-4-hopper-navy.jpg"));
    const out = (await raw((await render(request("watermark-remover", input))).bytes)).data;
    const lines = [
      `<text x="256" y="250" font-size="64" text-anchor="middle">PROOF</text>`,
      `<text x="256" y="330" font-size="30" text-anchor="middle">NOT FOR RESALE</text>`,
    ];
    for (const line of lines) {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${info.width}" height="${info.height}"><rect width="100%" height="100%" fill="#000"/><g font-family="FreeMono" font-weight="bold" fill="#fff" transform="rotate(-20 256 300)">${line}</g></svg>`;
      const drawn = await sharp(Buffer.from(svg)).extractChannel(0).raw().toBuffer();
      const mask = growMask(
        Uint8Array.from(drawn, (v) => (v > 64 ? 1 : 0)),
        info.width,
        info.height,
        3,
      );
      let before = 0;
      let after = 0;
      for (let i = 0; i < mask.length; i++)
        if (mask[i])
          for (let k = 0; k < 3; k++) {
            before += (inp[i * 3 + k]! - gt[i * 3 + k]!) ** 2;
            after += (out[i * 3 + k]! - gt[i * 3 + k]!) ** 2;
          }
      expect(10 * Math.log10(before / after), line).toBeGreaterThan(3);
    }
  }, 60_000);

  // The remover never adds colour: where it changed the photo, no output pixel is more
  // saturated (OKLab chroma, + NEW_COLOUR) than the most saturated reference pixel within 12
  // px (the clean photo, or the input's pixels it left alone). An opaque yellow "DO NOT COPY"
  // over a dark meadow (`watermark-10`) was read by the edge fit (edgeInk) at a clamped 0.8
  // and un-blended: 2.8 % of the changed pixels came out bright red and yellow (0 when
  // inpainted). Light marks (yellow, orange, white; seeded text, font, size, place, 0.85-1)
  // over the dark meadow, and `watermark-10` itself.
  it("never adds colour where it removes a light mark from a dark busy photo", async () => {
    const NEW_COLOUR = 0.04;
    const raw = async (b: Uint8Array) => decodeRaw(b, { channels: 3, flatten: true });
    const chroma = (rgb: Uint8Array, n: number) => {
      const c = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        const [, a, b] = oklab(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!);
        c[i] = Math.hypot(a, b);
      }
      return c;
    };
    /** Share of `region` more saturated than `ref`'s most saturated `use` pixel within 12 px. */
    const added = (
      out: Uint8Array,
      ref: Uint8Array,
      use: Uint8Array,
      region: Uint8Array,
      w: number,
      h: number,
    ) => {
      const n = w * h;
      const r = 12;
      const c = chroma(ref, n);
      const rows = new Float32Array(n).fill(-1);
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++)
          for (let d = Math.max(-r, -x); d <= r && x + d < w; d++) {
            const i = y * w + x + d;
            if (use[i] && c[i]! > rows[y * w + x]!) rows[y * w + x] = c[i]!;
          }
      const co = chroma(out, n);
      let count = 0;
      let all = 0;
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          const i = y * w + x;
          if (!region[i]) continue;
          all++;
          let most = -1;
          for (let d = Math.max(-r, -y); d <= r && y + d < h; d++) most = Math.max(most, rows[i + d * w]!);
          if (most >= 0 && co[i]! > most + NEW_COLOUR) count++;
        }
      return count / Math.max(1, all);
    };
    const changed = (a: Uint8Array, b: Uint8Array, n: number, least: number) => {
      const m = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        let d = 0;
        for (let k = 0; k < 3; k++) d += Math.abs(a[i * 3 + k]! - b[i * 3 + k]!);
        if (d > least) m[i] = 1;
      }
      return m;
    };

    const clean = await photo("landscape-1-meadow-cc0.jpg", 1200);
    const gt = await raw(clean);
    const shares: string[] = [];
    for (let seed = 1; seed <= 4; seed++) {
      const r = uniform(seed * 7919);
      const mark = {
        ...syntheticMark(seed),
        colour: ["#f2d21b", "#ff7a00", "#ffffff", "#f2d21b"][seed - 1]!,
        opacity: 0.85 + r() * 0.15,
      };
      const image = await applyMark(clean, mark);
      const out = await render(request("watermark-remover", image)).catch((e: unknown) => e);
      if (out instanceof EngineError) {
        expect(out.code).toBe("noWatermark");
        continue;
      }
      const { data: inp, width: w, height: h } = await raw(image);
      const { data: res } = await raw((out as { bytes: Uint8Array }).bytes);
      const region = changed(res, inp, w * h, 6);
      const share = added(res, gt.data, new Uint8Array(w * h).fill(1), region, w, h);
      shares.push(share.toFixed(4));
      expect(share, JSON.stringify(mark)).toBeLessThan(0.005);
    }

    const input = await photo("watermark-10-copy-yellow-meadow.jpg");
    const { data: inp, width: w, height: h } = await raw(input);
    const { data: res } = await raw((await render(request("watermark-remover", input))).bytes);
    const region = changed(res, inp, w * h, 6);
    const near = growMask(region, w, h, 2);
    const use = near.map((v) => (v ? 0 : 1));
    expect(added(res, inp, use, region, w, h), shares.join(" ")).toBeLessThan(0.005);
  }, 600_000);

  // A coloured credit over an object of its own hue (`watermark-5`: red at 60 % across a red
  // saucer and the wood beside it), made here from a seed: text, serif font, size, angle,
  // place, the red and the opacity. The line's direction holds only part of its glyphs and
  // takes wood and the spoon's highlights for letters; inpainted, those made pale smudges and
  // left the letters over the saucer (before the edge fit: 0 of 8 gained 3 dB, 5 lost 0.1 to
  // 2.9 dB, 2 refused). With the ink read from the letters' edges (edgeInk) and the letters
  // un-blended: 5 of 8 gain 3.7 to 5.9 dB, none worse, the same 2 refused.
  it("removes a coloured credit over an object of its own hue", async () => {
    const clean = await photo("object-coffee.png");
    const texts = [
      "© Kaffeehaus Fotografie",
      "© Rosso Studio Images",
      "© Caffè Bellini Photo",
      "© Anna Berg Fotografie",
    ];
    const gains: number[] = [];
    for (let seed = 1; seed <= 8; seed++) {
      const r = uniform(7000 + seed);
      const px = Math.round(30 + r() * 6);
      const x = Math.round(20 + r() * 30);
      const y = Math.round(358 + r() * 16);
      const angle = Math.round(-8 + r() * 6);
      const colour = `rgb(${Math.round(190 + r() * 30)},${Math.round(20 + r() * 20)},${Math.round(15 + r() * 20)})`;
      const opacity = (0.55 + r() * 0.13).toFixed(2);
      const text = texts[Math.floor(r() * texts.length)]!;
      const font = r() < 0.5 ? "Liberation Serif" : "DejaVu Serif";
      const mark = { seed, text, font, px, angle, colour, opacity, x, y };
      const svg =
        `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><text x="${x}" y="${y}" ` +
        `transform="rotate(${angle} ${x} ${y})" font-family="${font}" font-style="italic" font-weight="bold" ` +
        `font-size="${px}" fill="${colour}" fill-opacity="${opacity}">${text}</text></svg>`;
      const input = await sharp(clean)
        .removeAlpha()
        .composite([{ input: Buffer.from(svg) }])
        .jpeg({ quality: 90 })
        .toBuffer();
      const out = await render(request("watermark-remover", input)).catch((e: unknown) => e);
      if (out instanceof EngineError) {
        expect(out.code).toBe("noWatermark");
        continue;
      }
      const score = await scoreWatermarkRemoval(input, (out as { bytes: Uint8Array }).bytes, clean);
      expect(score.insideAfter - score.insideBefore, JSON.stringify(mark)).toBeGreaterThan(-0.5);
      expect(score.worsened, JSON.stringify(mark)).toBeLessThan(0.005);
      gains.push(score.insideAfter - score.insideBefore);
    }
    expect(
      gains.filter((g) => g >= 3).length,
      gains.map((g) => g.toFixed(1)).join(" "),
    ).toBeGreaterThanOrEqual(4);
  }, 300_000);

  // What it cannot remove yet (RECIPE.md) must not come out broken: a translucent black mark
  // across a face (`watermark-6`: the text detector does not see it) and a translucent red
  // credit over a red surface (`watermark-5`). Seeded text, size and place; each photo is
  // either refused (credits come back) or no worse inside the mark.
  it("never worsens what it cannot remove: translucent dark text on faces, red text on red", async () => {
    const cases: { photo: string; colour: string; opacity: number }[] = [
      { photo: "portrait-female-1.jpg", colour: "#000000", opacity: 0.35 },
      { photo: "portrait-male-2.jpg", colour: "#000000", opacity: 0.4 },
      { photo: "object-coffee.png", colour: "#c81e14", opacity: 0.6 },
    ];
    for (const [k, c] of cases.entries()) {
      const clean = await photo(c.photo, 900);
      const mark = { ...syntheticMark(20 + k), colour: c.colour, opacity: c.opacity, x: 0.5, y: 0.45 };
      const input = await applyMark(clean, mark);
      const out = await render(request("watermark-remover", input)).catch((e: unknown) => e);
      if (out instanceof EngineError) {
        expect(out.code).toBe("noWatermark");
        continue;
      }
      const score = await scoreWatermarkRemoval(input, (out as { bytes: Uint8Array }).bytes, clean);
      expect(score.insideAfter - score.insideBefore, JSON.stringify(mark)).toBeGreaterThan(-0.5);
      expect(score.worsened, JSON.stringify(mark)).toBeLessThan(0.0075);
    }
  }, 120_000);

  // Every clean fixture photo (every clean photo of the scoring set among them: grey 1860s
  // photos whose channels always agree, sepia, colour portraits, a flag's stars behind the
  // Hopper portrait, pets, product shots, a night launch): a photo without a watermark is
  // never altered, it is refused with a translated reason (credits come back).
  const cleanPhotos = fs
    .readdirSync(PHOTOS)
    .filter((f) => /\.(jpe?g|png)$/i.test(f) && !f.startsWith("watermark-"));
  it("has every clean photo of the scoring set among the clean fixtures", () => {
    for (const p of SCORING_PHOTOS) if (!p.startsWith("watermark-")) expect(cleanPhotos).toContain(p);
  });
  for (const clean of cleanPhotos) {
    it(`refuses ${clean}, which has no watermark, with a translated reason (credits come back)`, async () => {
      const err = await render(request("watermark-remover", await photo(clean))).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EngineError);
      expect((err as EngineError).code).toBe("noWatermark");
    }, 60_000);
  }

  // A flag's star field is rows of white glyph-sized shapes: the text detector sees lines of
  // text in it. Stars are compact and all alike; letters are strokes and differ. (The old
  // finder took them for opaque white text and smeared them: seeds 2-4 were processed.)
  it("refuses clean photos with a flag-like field of white stars", async () => {
    const photos = [
      "portrait-female-1.jpg",
      "landscape-1-meadow-cc0.jpg",
      "pet-1-cat.png",
      "object-coffee.png",
    ];
    for (let seed = 1; seed <= photos.length; seed++) {
      const input = await applyStarField(await photo(photos[seed - 1]!, 900), seed);
      const err = await render(request("watermark-remover", input)).catch((e: unknown) => e);
      expect(err, `seed ${seed}`).toBeInstanceOf(EngineError);
      expect((err as EngineError).code, `seed ${seed}`).toBe("noWatermark");
    }
  }, 120_000);
});
