import sharp from "sharp";
import { detectFaces } from "../../vision/human";
import { describe, expect, it } from "vitest";
import { correlation, meanSaturation, photo, raw, request, type Raw } from "../../shared/test-utils";
import { mostlyOneTone } from "./grade";
import { lookFromPrompt } from "./look";
import { render } from "./render";

/** A 36-bin hue histogram (10 degree bins) of the clearly coloured pixels, normalised. */
function hueHistogram(img: Raw): number[] {
  const bins = new Array<number>(36).fill(0);
  let total = 0;
  for (let i = 0; i < img.data.length; i += 3) {
    const r = img.data[i]! / 255;
    const g = img.data[i + 1]! / 255;
    const b = img.data[i + 2]! / 255;
    const mx = Math.max(r, g, b);
    const mn = Math.min(r, g, b);
    if (mx < 0.15 || mx - mn < 0.15 * mx) continue;
    const c = mx - mn;
    let h = mx === r ? (g - b) / c : mx === g ? 2 + (b - r) / c : 4 + (r - g) / c;
    h = (((h * 60) % 360) + 360) % 360;
    bins[Math.floor(h / 10) % 36]!++;
    total++;
  }
  return bins.map((v) => v / Math.max(1, total));
}
/** L1 distance of two normalised histograms: 0 (same) .. 2 (disjoint). */
const l1 = (a: number[], b: number[]) => a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0);

const meanValue = (img: Raw) => {
  let s = 0;
  for (let i = 0; i < img.data.length; i += 3)
    s += Math.max(img.data[i]!, img.data[i + 1]!, img.data[i + 2]!);
  return s / (img.data.length / 3) / 255;
};

async function styled(input: Buffer, prompt: string, seed = 7): Promise<Raw> {
  return raw((await render(request("y2k-style-ai", input, { prompt, seed }))).bytes);
}

describe("y2k-style-ai prompt mapping", () => {
  it("maps colour and mood words to hues and backgrounds", () => {
    expect(lookFromPrompt("").background).toBe("chrome");
    const pink = lookFromPrompt("pink");
    expect(Math.abs(pink.hues[0] - 325)).toBeLessThanOrEqual(10);
    expect(lookFromPrompt("cyber city").background).toBe("grid");
    expect(lookFromPrompt("cyber city").tone).toBe("night");
    expect(lookFromPrompt("holographic dream").background).toBe("holographic");
    expect(lookFromPrompt("silver").background).toBe("chrome");
    expect(lookFromPrompt("dreamy").tone).toBe("pastel");
    // Gold is both a warm hue and a metallic background.
    const gold = lookFromPrompt("gold");
    expect(gold.background).toBe("chrome");
    expect(Math.abs(gold.hues[0] - 45)).toBeLessThanOrEqual(10);
  });

  it("gives different prompts different looks, also without known words", () => {
    const prompts = ["a walk in the city", "my birthday party", "hello", "hello!", "pink", "pink please"];
    const keys = prompts.map((p) => JSON.stringify(lookFromPrompt(p)));
    expect(new Set(keys).size).toBe(prompts.length);
    expect(JSON.stringify(lookFromPrompt("pink"))).toBe(JSON.stringify(lookFromPrompt("pink")));
  });
});

describe("y2k-style-ai", () => {
  it("steers colours by the prompt: different prompts give clearly different hue histograms", async () => {
    const input = await photo("portrait-female-1.jpg", 320);
    const a = hueHistogram(await styled(input, "dreamy pink and purple pastel"));
    const b = hueHistogram(await styled(input, "cyber night, green and cyan"));
    expect(l1(a, b)).toBeGreaterThan(0.8);
    // Prompts without any colour or mood word still differ (the prompt's hash picks the hues).
    const c = hueHistogram(await styled(input, "a walk in the city"));
    const d = hueHistogram(await styled(input, "my first day at school"));
    expect(l1(c, d)).toBeGreaterThan(0.5);
  });

  it("is neon and bright: saturation and brightness far above a dull photo", async () => {
    const dull = await sharp(await photo("portrait-male-2.jpg", 320))
      .modulate({ saturation: 0.15, brightness: 0.6 })
      .png()
      .toBuffer();
    const src = await raw(dull);
    const out = await styled(dull, "");
    expect(meanSaturation(out)).toBeGreaterThan(meanSaturation(src) + 0.25);
    expect(meanSaturation(out)).toBeGreaterThan(meanSaturation(src) * 2.5);
    expect(meanValue(out)).toBeGreaterThan(meanValue(src) * 1.4);
  });

  it("replaces the background and keeps the subject", async () => {
    const input = await photo("portrait-male-1.jpg", 320);
    const src = await raw(input);
    const out = await styled(input, "sunset");
    const { width: w, height: h } = src;
    // The test's own split: frame pixels (top band, upper side bands) close to the frame's
    // median colour are background.
    const frame: number[] = [];
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++)
        if (y < h * 0.1 || ((x < w * 0.1 || x >= w * 0.9) && y < h * 0.6)) frame.push(y * w + x);
    const med = [0, 1, 2].map(
      (c) => frame.map((i) => src.data[i * 3 + c]!).sort((a, b) => a - b)[frame.length >> 1]!,
    );
    const dist = (img: Raw, i: number, ref: number[]) =>
      Math.hypot(img.data[i * 3]! - ref[0]!, img.data[i * 3 + 1]! - ref[1]!, img.data[i * 3 + 2]! - ref[2]!);
    const background = frame.filter((i) => dist(src, i, med) < 60);
    expect(background.length).toBeGreaterThan(frame.length * 0.3);
    const change =
      background.reduce(
        (s, i) => s + dist(out, i, [src.data[i * 3]!, src.data[i * 3 + 1]!, src.data[i * 3 + 2]!]),
        0,
      ) / background.length;
    expect(change).toBeGreaterThan(90);

    // The subject's face (the centre) keeps its structure: luma correlates with the input.
    const face = (img: Raw) => {
      const v: number[] = [];
      for (let y = Math.round(h * 0.25); y < h * 0.6; y++)
        for (let x = Math.round(w * 0.32); x < w * 0.68; x++) {
          const i = (y * w + x) * 3;
          v.push(0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!);
        }
      return Float64Array.from(v);
    };
    expect(correlation(face(src), face(out))).toBeGreaterThan(0.6);
  });

  it("is deterministic for the same input, prompt and seed", async () => {
    const input = await photo("pet-1-cat.png");
    const a = await render(request("y2k-style-ai", input, { prompt: "chrome", seed: 3 }));
    const b = await render(request("y2k-style-ai", input, { prompt: "chrome", seed: 3 }));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
  });

  it("keeps every person of a group photo as the subject (none erased into the background)", async () => {
    const input = await photo("old-damaged-2-daguerreotype-1850s.jpg", 1200);
    const before = (await detectFaces(input)).faces.length;
    expect(before).toBe(5);
    const { faces } = await detectFaces(input);
    const out = await render(request("y2k-style-ai", input));
    const a = await raw(input);
    const b = await raw(out.bytes);
    const luma = (r: typeof a, i: number) =>
      0.299 * r.data[i * 3]! + 0.587 * r.data[i * 3 + 1]! + 0.114 * r.data[i * 3 + 2]!;
    // Each face keeps the photo's own structure (a replaced background would not follow it).
    for (const f of faces) {
      const xs: number[] = [];
      const ys: number[] = [];
      for (let y = Math.round(f.box[1]); y < f.box[1] + f.box[3]; y += 2)
        for (let x = Math.round(f.box[0]); x < f.box[0] + f.box[2]; x += 2) {
          xs.push(luma(a, y * a.width + x));
          ys.push(luma(b, y * b.width + x));
        }
      expect(
        correlation(Float64Array.from(xs), Float64Array.from(ys)),
        JSON.stringify(f.box),
      ).toBeGreaterThan(0.5);
    }
  }, 60_000);

  /** Mean RGB of the central part of each face (cheeks, nose, forehead), per face. */
  const faceColours = async (input: Buffer, img: Raw) => {
    const { faces } = await detectFaces(input);
    return faces.map((f) => {
      const [x, y, w, h] = f.box;
      const sum = [0, 0, 0];
      let k = 0;
      for (let yy = Math.round(y + h * 0.3); yy < y + h * 0.75; yy++)
        for (let xx = Math.round(x + w * 0.3); xx < x + w * 0.7; xx++) {
          const i = (yy * img.width + xx) * 3;
          for (let c = 0; c < 3; c++) sum[c]! += img.data[i + c]!;
          k++;
        }
      return sum.map((v) => v / k) as [number, number, number];
    });
  };
  /** HSV hue (degrees, -180..180 so reds near 0 stay together) and saturation of a colour. */
  const hueSat = ([r, g, b]: [number, number, number]) => {
    const mx = Math.max(r, g, b);
    const mn = Math.min(r, g, b);
    const c = mx - mn || 1e-6;
    let h = mx === r ? (g - b) / c : mx === g ? 2 + (b - r) / c : 4 + (r - g) / c;
    h *= 60;
    if (h > 180) h -= 360;
    return { hue: h, sat: (mx - mn) / (mx || 1) };
  };

  it("keeps skin a natural skin colour under every grade (no neon cast on faces)", async () => {
    for (const name of ["portrait-female-1.jpg", "portrait-male-2.jpg"]) {
      const input = await photo(name, 480);
      const before = await faceColours(input, await raw(input));
      expect(before.length).toBeGreaterThan(0);
      for (const prompt of ["", "cyber night, green and cyan", "dreamy pastel lavender", "gold"]) {
        const after = await faceColours(input, await styled(input, prompt));
        for (const [k, colour] of after.entries()) {
          const { hue, sat } = hueSat(colour);
          const was = hueSat(before[k]!).hue;
          // Skin of every tone sits at orange-red hues; the grade may not push it to pink,
          // violet, green or cyan, nor drain or scorch it.
          expect(hue, `${name} "${prompt}"`).toBeGreaterThanOrEqual(0);
          expect(hue, `${name} "${prompt}"`).toBeLessThanOrEqual(45);
          expect(Math.abs(hue - was), `${name} "${prompt}"`).toBeLessThan(10);
          expect(sat, `${name} "${prompt}"`).toBeGreaterThan(0.12);
          expect(sat, `${name} "${prompt}"`).toBeLessThan(0.7);
        }
      }
    }
  }, 60_000);

  it("gives black-and-white and sepia faces a warm skin tone, not a grey or neon one", async () => {
    for (const name of ["old-toned-1-sepia-migrant-mother.jpg", "old-bw-1-migrant-mother-1936.jpg"]) {
      const input = await photo(name, 600);
      const [colour] = await faceColours(input, await styled(input, ""));
      const { hue, sat } = hueSat(colour!);
      expect(hue, name).toBeGreaterThanOrEqual(0);
      expect(hue, name).toBeLessThanOrEqual(45);
      expect(sat, name).toBeGreaterThan(0.12);
    }
  }, 60_000);

  it("hand-colours a black-and-white print: skin-hued faces, and the look's pinks and blues elsewhere, not a tinted grey", async () => {
    for (const name of ["person-1-cameraman-bw.jpg", "old-bw-1-migrant-mother-1936.jpg"]) {
      const input = await photo(name, 480);
      const out = await styled(input, "");
      // Faces read as skin.
      const colours = await faceColours(input, out);
      expect(colours.length, name).toBeGreaterThan(0);
      for (const colour of colours) {
        const { hue, sat } = hueSat(colour);
        expect(hue, name).toBeGreaterThanOrEqual(0);
        expect(hue, name).toBeLessThanOrEqual(45);
        expect(sat, name).toBeGreaterThan(0.12);
      }
      // Inside the card (its frame left out), the clearly coloured pixels form at least two
      // distinct clusters of the look's colours besides skin: the default look's blues and
      // cyans (150..270 degrees) and its pinks and violets (270..360 degrees), each a real
      // share of the picture, not only a tint of its shadows.
      const { width: w, height: h } = out;
      const inner = Buffer.alloc(Math.round(w * 0.7) * Math.round(h * 0.7) * 3);
      let k = 0;
      for (let y = Math.round(h * 0.15); y < Math.round(h * 0.15) + Math.round(h * 0.7); y++)
        for (let x = Math.round(w * 0.15); x < Math.round(w * 0.15) + Math.round(w * 0.7); x++) {
          const i = (y * w + x) * 3;
          inner[k++] = out.data[i]!;
          inner[k++] = out.data[i + 1]!;
          inner[k++] = out.data[i + 2]!;
        }
      const hist = hueHistogram({
        ...out,
        data: inner,
        width: Math.round(w * 0.7),
        height: Math.round(h * 0.7),
      });
      const share = (from: number, to: number) => hist.slice(from / 10, to / 10).reduce((a, v) => a + v, 0);
      expect(share(150, 270), name).toBeGreaterThan(0.1);
      expect(share(270, 360), name).toBeGreaterThan(0.1);
    }
  }, 60_000);

  it("keeps both ears in the cut-out (the person model leaves an ear at half weight)", async () => {
    const input = await photo("portrait-male-1.jpg", 480);
    const out = await styled(input, "");
    const { faces } = await detectFaces(input);
    const f = faces[0]!;
    const [, , fw, fh] = f.box;
    // Just outside the face's outline at ear height (mesh points 234 and 454), on each side:
    // the ear's skin, not the generated backdrop.
    for (const [k, side] of [
      [234, -1],
      [454, 1],
    ] as const) {
      const [ex, ey] = f.mesh[k]!;
      let skin = 0;
      let n = 0;
      for (let y = Math.round(ey); y < ey + fh * 0.12; y++)
        for (let x = Math.round(ex + side * fw * 0.015); Math.abs(x - ex) < fw * 0.06; x += side) {
          const i = (y * out.width + x) * 3;
          const { hue, sat } = hueSat([out.data[i]!, out.data[i + 1]!, out.data[i + 2]!]);
          if (hue >= 0 && hue <= 45 && sat > 0.15) skin++;
          n++;
        }
      expect(n).toBeGreaterThan(10);
      expect(skin / n, `mesh ${k}`).toBeGreaterThan(0.6);
    }
  });

  it("adds the digicam date stamp: orange segment digits in the bottom-right corner", async () => {
    const isOrange = (img: Raw, i: number) => {
      const { hue, sat } = hueSat([img.data[i]!, img.data[i + 1]!, img.data[i + 2]!]);
      return hue > 15 && hue < 45 && sat > 0.55 && img.data[i]! > 220;
    };
    for (const name of ["portrait-male-1.jpg", "landscape-1-meadow-cc0.jpg"]) {
      const input = await photo(name, 480);
      const src = await raw(input);
      const out = await styled(input, "");
      // Bright orange pixels the photo did not have there, in the bottom-right corner.
      let added = 0;
      for (let y = Math.round(out.height * 0.85); y < out.height; y++)
        for (let x = Math.round(out.width * 0.6); x < out.width; x++) {
          const i = (y * out.width + x) * 3;
          if (isOrange(out, i) && !isOrange(src, i)) added++;
        }
      // The stamp's digits are about 3.6 % of the short side high.
      const short = Math.min(out.width, out.height);
      expect(added, name).toBeGreaterThan(short * short * 0.0012);
    }
  });

  it("restyles a photo without a person (pet, landscape) or an old print but keeps its scene: a glowing frame, the inside recognisable", async () => {
    // Old prints too: on them the person matte cut children in half and kept pieces of a torn
    // print's wall (independent review), so their people are never cut out.
    for (const name of [
      "pet-1-cat.png",
      "landscape-1-meadow-cc0.jpg",
      "old-torn-1-sepia-three-children.jpg",
    ]) {
      const input = await photo(name, 480);
      const src = await raw(input);
      const out = await styled(input, "");
      const { width: w, height: h } = src;
      const short = Math.min(w, h);
      // The border (the frame) is replaced...
      let change = 0;
      let k = 0;
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          if (Math.min(x, y, w - 1 - x, h - 1 - y) >= short * 0.03) continue;
          const i = (y * w + x) * 3;
          change += Math.hypot(
            out.data[i]! - src.data[i]!,
            out.data[i + 1]! - src.data[i + 1]!,
            out.data[i + 2]! - src.data[i + 2]!,
          );
          k++;
        }
      expect(change / k, name).toBeGreaterThan(60);
      // ...the inside is the same scene (structure kept), visibly graded, not a copy.
      const inner = (img: Raw) => {
        const v: number[] = [];
        for (let y = Math.round(h * 0.2); y < h * 0.8; y += 2)
          for (let x = Math.round(w * 0.2); x < w * 0.8; x += 2) {
            const i = (y * w + x) * 3;
            v.push(0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!);
          }
        return Float64Array.from(v);
      };
      expect(correlation(inner(src), inner(out)), name).toBeGreaterThan(0.8);
      let diff = 0;
      let m = 0;
      for (let y = Math.round(h * 0.2); y < h * 0.8; y++)
        for (let x = Math.round(w * 0.2); x < w * 0.8; x++) {
          const i = (y * w + x) * 3;
          for (let c = 0; c < 3; c++) diff += Math.abs(out.data[i + c]! - src.data[i + c]!);
          m += 3;
        }
      expect(diff / m, name).toBeGreaterThan(8);
    }
  });

  it("gives the outfit an iridescent foil: a dark suit becomes colourful, the face does not", async () => {
    const input = await photo("portrait-male-2.jpg", 480);
    const src = await raw(input);
    const out = await styled(input, "");
    const { faces } = await detectFaces(input);
    const [x, y, w, h] = faces[0]!.box;
    // The jacket at the bottom corner under the face, left of the shirt.
    const sat = (img: Raw) => {
      let s = 0;
      let k = 0;
      for (let yy = Math.round(Math.min(img.height - 1, y + h * 1.5)); yy < img.height; yy++)
        for (let xx = Math.max(0, Math.round(x - w * 0.2)); xx < x + w * 0.2; xx++) {
          const i = (yy * img.width + xx) * 3;
          s += hueSat([img.data[i]!, img.data[i + 1]!, img.data[i + 2]!]).sat;
          k++;
        }
      return s / Math.max(1, k);
    };
    expect(sat(out)).toBeGreaterThan(sat(src) + 0.2);
  });
});

describe("y2k-style-ai on old prints", () => {
  // On old b/w and toned prints the person matte cut children in half and kept pieces of a
  // torn print's wall (independent review): such prints keep their scene, in the photo card.
  const tone = async (name: string) => {
    const t = await sharp(await photo(name))
      .removeAlpha()
      .resize(96, 96, { fit: "inside" })
      .raw()
      .toBuffer({ resolveWithObject: true });
    return mostlyOneTone(t.data, t.info.width * t.info.height);
  };

  it("tells one-tone prints (torn and stained ones too) from colour photos", async () => {
    for (const old of [
      "old-torn-1-sepia-three-children.jpg",
      "old-toned-1-sepia-migrant-mother.jpg",
      "old-bw-1-migrant-mother-1936.jpg",
      "child-1-three-children-1860s.jpg",
    ])
      expect(await tone(old), old).toBe(true);
    for (const colour of [
      "portrait-female-1.jpg",
      "portrait-male-1.jpg",
      "portrait-female-4-hopper-navy.jpg",
      "pet-1-cat.png",
      "landscape-1-meadow-cc0.jpg",
    ])
      expect(await tone(colour), colour).toBe(false);
  });
});
