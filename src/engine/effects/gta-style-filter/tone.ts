import { oklabToRgb } from "../../shared/pixel-art";
import { uniform } from "../../shared/random";

/**
 * The poster's colour work in OKLab (a perceptual space: equal steps look equal): the grade of a
 * colour photo, the warm palette an old print is coloured in, and the cel shading (a few
 * materials, each drawn in at most three flat tones: shadow, mid and highlight).
 */

const clamp01 = (v: number) => Math.max(0, Math.min(1, v));
const smoothstep = (e0: number, e1: number, v: number) => {
  const t = clamp01((v - e0) / (e1 - e0));
  return t * t * (3 - 2 * t);
};

/**
 * The poster grade of a colour photo, in place: more contrast (an S curve on lightness),
 * stronger colour, and a warm cast that is stronger in the light tones, while the
 * shadows lean to a cool blue-violet, as in game cover art.
 */
export function gradeColour(lab: Float32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    const L = lab[i * 3]!;
    const s = smoothstep(0.1, 0.95, L);
    const Lg = clamp01(0.08 + 0.86 * (0.6 * s + 0.4 * L));
    const light = smoothstep(0.35, 0.8, Lg);
    // Only the greys of the shadows turn cool: a coloured shadow (skin, a red cup) keeps its hue.
    const grey = 1 - smoothstep(0.02, 0.08, Math.hypot(lab[i * 3 + 1]!, lab[i * 3 + 2]!));
    // Stronger colour, but a colour already strong (orange-lit skin) is not pushed to neon.
    const c = Math.hypot(lab[i * 3 + 1]!, lab[i * 3 + 2]!);
    const boost = c > 1e-4 ? Math.max(1, (0.2 * Math.tanh((c * 1.4) / 0.2)) / c) : 1.4;
    lab[i * 3] = Lg;
    lab[i * 3 + 1] = lab[i * 3 + 1]! * boost + 0.012 * light - 0.004 * (1 - light) * grey;
    lab[i * 3 + 2] = lab[i * 3 + 2]! * boost + 0.03 * light - 0.025 * (1 - light) * grey;
  }
}

/** A warm palette ramp: OKLab a and b at the dark, middle and light ends. */
interface Ramp {
  dark: [number, number];
  mid: [number, number];
  light: [number, number];
}
/** Skin: a red-brown shadow, a warm tan, a peach highlight. */
const SKIN: Ramp = { dark: [0.07, 0.05], mid: [0.05, 0.075], light: [0.03, 0.05] };
/** Hair and clothes: a blue-black, a denim blue, a pale cream. */
const GARMENT: Ramp = { dark: [0.01, -0.05], mid: [-0.015, -0.07], light: [0.0, 0.03] };
/** Backdrop: a violet shadow, a sunset orange, a yellow light. */
const BACKDROP: Ramp = { dark: [0.07, -0.06], mid: [0.1, 0.1], light: [0.02, 0.13] };

function ramp(r: Ramp, L: number): [number, number] {
  const lo = smoothstep(0.15, 0.55, L);
  const hi = smoothstep(0.55, 0.92, L);
  return [
    r.dark[0] + (r.mid[0] - r.dark[0]) * lo + (r.light[0] - r.mid[0]) * hi,
    r.dark[1] + (r.mid[1] - r.dark[1]) * lo + (r.light[1] - r.mid[1]) * hi,
  ];
}

/**
 * An old monochrome or toned print, coloured in place in the poster's warm palette (not
 * restored: a graded illustration): its lightness stretched to the full range, then skin
 * (`skin`, 0..255) in warm tans, the rest of the people (`people`) in a denim blue with
 * blue-black darks and cream lights, the backdrop in a sunset ramp (violet, orange, yellow).
 * The masks are soft, so the colours meet without a seam of their own.
 */
/** The lightness a print's faces are lifted to (their median), at most 0.25 up (session 11: was 0.66). */
const SKIN_TARGET_L = 0.72;

export function colourPrint(
  lab: Float32Array,
  n: number,
  skin: Uint8Array | null,
  people: Uint8Array | null,
): void {
  const hist = new Uint32Array(256);
  for (let i = 0; i < n; i++) hist[Math.min(255, Math.round(lab[i * 3]! * 255))]!++;
  const at = (q: number) => {
    let acc = 0;
    for (let v = 0; v < 256; v++) if ((acc += hist[v]!) >= q * n) return v / 255;
    return 1;
  };
  const lo = at(0.02);
  const hi = Math.max(lo + 0.1, at(0.985));
  const mapL = (v: number) => {
    const t = clamp01((v - lo) / (hi - lo));
    return 0.1 + 0.84 * (0.55 * smoothstep(0, 1, t) + 0.45 * t);
  };
  // Faces in a dark or faded print come out as dark masks beside white dresses: the skin is
  // lifted toward a lit tan (its median to SKIN_TARGET_L at most), in proportion to how surely
  // it is skin, so its features keep their contrast.
  let lift = 0;
  if (skin) {
    const sh = new Uint32Array(256);
    let count = 0;
    for (let i = 0; i < n; i++)
      if (skin[i]! >= 128) {
        sh[Math.round(mapL(lab[i * 3]!) * 255)]!++;
        count++;
      }
    if (count > 200) {
      let acc = 0;
      let median = 0;
      for (let v = 0; v < 256; v++)
        if ((acc += sh[v]!) >= count / 2) {
          median = v / 255;
          break;
        }
      lift = Math.max(0, Math.min(0.25, SKIN_TARGET_L - median));
    }
  }
  for (let i = 0; i < n; i++) {
    const s = skin ? skin[i]! / 255 : 0;
    // Lit skin stays a peach, not a white blob (a bright cheek beside a dark print's shadows).
    const L = Math.min(0.94 - 0.1 * s, mapL(lab[i * 3]!) + lift * s);
    const p = people ? people[i]! / 255 : 0;
    const [sa, sb] = ramp(SKIN, L);
    const [ga, gb] = ramp(GARMENT, L);
    const [ba, bb] = ramp(BACKDROP, L);
    const pa = ga + (sa - ga) * s;
    const pb = gb + (sb - gb) * s;
    lab[i * 3] = L;
    lab[i * 3 + 1] = ba + (pa - ba) * p;
    lab[i * 3 + 2] = bb + (pb - bb) * p;
  }
}

/** The skin's shadow tone is at most this far (OKLab lightness) under its middle tone. */
export const SKIN_SHADE_STEP = 0.15;

/** A colour photo's skin chroma (OKLab) is brought within these (session 11: was at least 0.1, no cap). */
export const SKIN_CHROMA_MIN = 0.085;
export const SKIN_CHROMA_MAX = 0.115;

/**
 * A colour photo's skin (`skin`, 0..255 soft) turned toward a warm poster tan, in place: its
 * hue moved most of the way to a peach-orange and its colour at least a tan's (a flash-lit
 * face was a pale khaki, a bluish screen light a grey) and at most one. Lightness is kept, and the skin
 * region's dark parts (a beard, brows) are left as they are.
 */
export function warmSkin(lab: Float32Array, n: number, skin: Uint8Array): void {
  const target = Math.atan2(0.07, 0.07);
  for (let i = 0; i < n; i++) {
    // Not the dark parts of the skin region (a beard, stubble, brows): they keep their own hue.
    const s = (skin[i]! / 255) * smoothstep(0.38, 0.55, lab[i * 3]!);
    if (s <= 0) continue;
    const a = lab[i * 3 + 1]!;
    const b = lab[i * 3 + 2]!;
    const c = Math.hypot(a, b);
    let h = Math.atan2(b, a);
    let d = target - h;
    if (d > Math.PI) d -= 2 * Math.PI;
    if (d < -Math.PI) d += 2 * Math.PI;
    h += d * 0.8 * s;
    // Session 11: at most a poster tan's colour too (an orange-lit face was neon orange, an old
    // woman's pale skin a deep tan that read as a man's weathered face).
    const c2 = c + (Math.min(SKIN_CHROMA_MAX, Math.max(c, SKIN_CHROMA_MIN)) - c) * s;
    lab[i * 3 + 1] = c2 * Math.cos(h);
    lab[i * 3 + 2] = c2 * Math.sin(h);
  }
}

/** Weight of lightness against the colour axes when materials are told apart. */
const MATERIAL_L = 0.45;

/**
 * Cel shading: the picture's materials (k-means in OKLab over a sample, lightness weighted
 * down, so a lit and a shaded cheek are one material), then each material in at most three
 * flat tones by its own lightness: shadow (its darkest third), mid, and a highlight (its
 * lightest sixth). A material whose lightness hardly varies stays one or two tones.
 * `toneL`: the lightness that decides the tone (smoother than `lab`'s, for clean shapes).
 */
export function celShade(
  lab: Float32Array,
  toneL: Float32Array,
  n: number,
  materials: number,
  seed: number,
  skin: Uint8Array | null,
  /** The skin's shadow tone at most this far under its middle (a print's); none: no limit. */
  shadeStep?: number,
): Buffer {
  // A sample of about 40,000 pixels (not the skin: its own material), k-means++ seeded.
  const step = Math.max(1, Math.floor(n / 40_000));
  const sample: number[] = [];
  for (let i = 0; i < n; i += step) if (!skin?.[i]) sample.push(i);
  if (!sample.length) sample.push(0);
  const m = sample.length;
  const f = new Float32Array(m * 3);
  for (let s = 0; s < m; s++) {
    const i = sample[s]!;
    f[s * 3] = lab[i * 3]! * MATERIAL_L;
    f[s * 3 + 1] = lab[i * 3 + 1]!;
    f[s * 3 + 2] = lab[i * 3 + 2]!;
  }
  const rand = uniform(seed);
  const k = Math.min(materials, m);
  const centres = new Float32Array(k * 3);
  const d2 = new Float32Array(m).fill(Infinity);
  let pick = Math.floor(rand() * m);
  for (let c = 0; c < k; c++) {
    centres.set(f.subarray(pick * 3, pick * 3 + 3), c * 3);
    let total = 0;
    for (let s = 0; s < m; s++) {
      const d =
        (f[s * 3]! - centres[c * 3]!) ** 2 +
        (f[s * 3 + 1]! - centres[c * 3 + 1]!) ** 2 +
        (f[s * 3 + 2]! - centres[c * 3 + 2]!) ** 2;
      if (d < d2[s]!) d2[s] = d;
      total += d2[s]!;
    }
    let r = rand() * total;
    pick = m - 1;
    for (let s = 0; s < m; s++)
      if ((r -= d2[s]!) <= 0) {
        pick = s;
        break;
      }
  }
  const nearest = (x: number, y: number, z: number) => {
    let best = 0;
    let bd = Infinity;
    for (let c = 0; c < k; c++) {
      const d = (x - centres[c * 3]!) ** 2 + (y - centres[c * 3 + 1]!) ** 2 + (z - centres[c * 3 + 2]!) ** 2;
      if (d < bd) [best, bd] = [c, d];
    }
    return best;
  };
  const sums = new Float64Array(k * 4);
  for (let iter = 0; iter < 12; iter++) {
    sums.fill(0);
    for (let s = 0; s < m; s++) {
      const c = nearest(f[s * 3]!, f[s * 3 + 1]!, f[s * 3 + 2]!);
      sums[c * 4]! += f[s * 3]!;
      sums[c * 4 + 1]! += f[s * 3 + 1]!;
      sums[c * 4 + 2]! += f[s * 3 + 2]!;
      sums[c * 4 + 3]!++;
    }
    for (let c = 0; c < k; c++)
      if (sums[c * 4 + 3]! > 0)
        for (let j = 0; j < 3; j++) centres[c * 3 + j] = sums[c * 4 + j]! / sums[c * 4 + 3]!;
  }

  const material = new Uint8Array(n);
  for (let i = 0; i < n; i++)
    material[i] = skin?.[i] ? k : nearest(lab[i * 3]! * MATERIAL_L, lab[i * 3 + 1]!, lab[i * 3 + 2]!);
  return tones(lab, toneL, n, material, k + 1, skin ? k : -1, shadeStep);
}

/** Each material in at most three flat tones, by its own lightness (see {@link celShade}). */
function tones(
  lab: Float32Array,
  toneL: Float32Array,
  n: number,
  material: Uint8Array,
  k: number,
  skinMaterial: number,
  shadeStep?: number,
): Buffer {
  // Each material's tone thresholds from its lightness histogram.
  const hist = new Uint32Array(k * 256);
  const count = new Uint32Array(k);
  for (let i = 0; i < n; i++) {
    hist[material[i]! * 256 + Math.min(255, Math.round(toneL[i]! * 255))]!++;
    count[material[i]!]!++;
  }
  const quantile = (c: number, q: number) => {
    let acc = 0;
    for (let v = 0; v < 256; v++) if ((acc += hist[c * 256 + v]!) >= q * count[c]!) return v / 255;
    return 1;
  };
  const lowCut = new Float32Array(k);
  const highCut = new Float32Array(k);
  for (let c = 0; c < k; c++) {
    const spread = quantile(c, 0.95) - quantile(c, 0.05);
    lowCut[c] = spread < 0.06 ? -1 : quantile(c, 0.33);
    // The skin's shadow is a real shadow, well under its middle tone: a small, evenly lit face
    // would otherwise have its darkest third (the nose's and mouth's shade) as one dark snout.
    if (c === skinMaterial) lowCut[c] = Math.min(lowCut[c]!, quantile(c, 0.5) - 0.07);
    highCut[c] = spread < 0.12 ? 2 : quantile(c, 0.84);
  }
  const tone = new Uint8Array(n);
  const toneSums = new Float64Array(k * 3 * 4);
  for (let i = 0; i < n; i++) {
    const c = material[i]!;
    const t = toneL[i]! < lowCut[c]! ? 0 : toneL[i]! >= highCut[c]! ? 2 : 1;
    tone[i] = t;
    const o = (c * 3 + t) * 4;
    toneSums[o]! += lab[i * 3]!;
    toneSums[o + 1]! += lab[i * 3 + 1]!;
    toneSums[o + 2]! += lab[i * 3 + 2]!;
    toneSums[o + 3]!++;
  }
  const colours: Array<[number, number, number]> = [];
  for (let c = 0; c < k; c++) {
    const mean = (t: number): [number, number, number] => {
      const o = (c * 3 + t) * 4;
      const w = toneSums[o + 3]!;
      return w ? [toneSums[o]! / w, toneSums[o + 1]! / w, toneSums[o + 2]! / w] : [0, 0, 0];
    };
    const midL = mean(1)[0];
    for (let t = 0; t < 3; t++) {
      const [L, a, b] = mean(t);
      // Shadows a little deeper and richer, highlights a little brighter: clear cel steps.
      const push = t === 0 ? 0.92 : t === 2 ? 1.04 : 1;
      const chroma = t === 0 ? 1.12 : t === 2 ? 0.9 : 1;
      // On a print the skin's shadow is a shaded tan, never far under its middle tone: a face
      // lit from one side was half a dark maroon mask (a black eye at phone size). Not in a
      // colour photo, where the skin's shadow tone is also its beard and stubble.
      const Lt =
        c === skinMaterial && t === 0 && midL > 0 && shadeStep !== undefined
          ? Math.max(L * push, midL - shadeStep)
          : L * push;
      colours.push(oklabToRgb(clamp01(Lt), a * chroma, b * chroma));
    }
  }
  const rgb = Buffer.alloc(n * 3);
  for (let i = 0; i < n; i++) {
    const col = colours[material[i]! * 3 + tone[i]!]!;
    rgb[i * 3] = col[0];
    rgb[i * 3 + 1] = col[1];
    rgb[i * 3 + 2] = col[2];
  }
  return rgb;
}
