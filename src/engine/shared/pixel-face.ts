import type { Face, RgbPixels } from "../vision/human";
import { oklab, oklabToRgb } from "./pixel-art";
import {
  MESH_BROWS,
  MESH_EYES,
  MESH_LIP_LOWER_INNER,
  MESH_LIPS_OUTER,
  MESH_MOUTH_LINE,
  MESH_NOSE_BOTTOM,
  MESH_OVAL,
} from "./mesh-parts";
import { forEachInPolygon } from "./mask";

/**
 * Faces drawn the way a pixel artist draws them: the skin in a ramp of four tones made from the
 * face's own colour (shading posterised from the photo, hue-shifted: warmer lights, redder
 * shadows), then the features placed deliberately from the face mesh, each a few dark cells:
 * a lash line and pupil per eye (whites and a highlight when there is room), brows, the mouth
 * line, a nostril shadow, a shadow under the jaw. A feature whose surroundings are not skin (a
 * camera or a hand over the eye, hair over a brow) is left as the photo has it.
 */

type Pt = [number, number];
type Lab = [number, number, number];

/** The jaw from one angle to the other, under the chin. */
const JAW = [172, 136, 150, 149, 176, 148, 152, 377, 400, 378, 379, 365, 397];

/** Width of a face in mesh units: cheek to cheek, or most of the box for a turned head. */
export function faceWidth(f: Face): number {
  const a = f.mesh[234]!;
  const b = f.mesh[454]!;
  return Math.max(Math.hypot(b[0] - a[0], b[1] - a[1]), f.box[2] * 0.62);
}

/** The cells a polyline (in cell units) passes through, each once, in order. */
function lineCells(points: Pt[], cols: number, rows: number): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  const add = (x: number, y: number) => {
    const cx = Math.floor(x);
    const cy = Math.floor(y);
    if (cx < 0 || cy < 0 || cx >= cols || cy >= rows) return;
    const i = cy * cols + cx;
    if (!seen.has(i)) {
      seen.add(i);
      out.push(i);
    }
  };
  for (let s = 0; s + 1 < points.length; s++) {
    const [x0, y0] = points[s]!;
    const [x1, y1] = points[s + 1]!;
    const steps = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) * 3));
    for (let t = 0; t <= steps; t++) add(x0 + ((x1 - x0) * t) / steps, y0 + ((y1 - y0) * t) / steps);
  }
  if (points.length === 1) add(points[0]![0], points[0]![1]);
  return out;
}

/** Cells whose centres lie inside a polygon (in cell units). */
function polygonCells(poly: Pt[], cols: number, rows: number): number[] {
  const out: number[] = [];
  forEachInPolygon(poly, cols, rows, (cx, cy) => out.push(cy * cols + cx));
  return out;
}

/** A face's glasses found in the photo: each lens's rim (mesh pixels), the bridge, the frame's colour. */
export interface Glasses {
  rims: Pt[][];
  bridge: [Pt, Pt];
  /** The frame's colour in the photo (OKLab) and whether it is darker than the skin beside it. */
  lab: Lab;
  dark: boolean;
}

/** Points sampled round a lens's rim. */
const RIM_SAMPLES = 48;
/** How much darker (or brighter) than the skin either side a frame is, at least (OKLab lightness). */
const FRAME_CONTRAST = 0.05;
/** Share of the rims (their tops left out) that must be such a line (each at least 0.1 less). */
const MIN_RIM_COVER = 0.8;
/** The bridge across the nose is a clearer line than that (no face without glasses has one). */
const MIN_BRIDGE_CONTRAST = 0.08;

/** OKLab lightness of a photo's pixels inside a box (row-major, `w` x `h`, from `x0`, `y0`). */
function lightnessOf(photo: RgbPixels, x0: number, y0: number, w: number, h: number): Float32Array {
  const L = new Float32Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = ((y0 + y) * photo.width + x0 + x) * 3;
      L[y * w + x] = oklab(photo.data[i]!, photo.data[i + 1]!, photo.data[i + 2]!)[0];
    }
  return L;
}

/** A square max (or min) filter of radius `k`, separable. */
function rankFilter(src: Float32Array, w: number, h: number, k: number, max: boolean): Float32Array {
  const pick = max ? Math.max : Math.min;
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let v = src[y * w + x]!;
      for (let j = Math.max(0, x - k); j <= Math.min(w - 1, x + k); j++) v = pick(v, src[y * w + j]!);
      tmp[y * w + x] = v;
    }
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let v = tmp[y * w + x]!;
      for (let j = Math.max(0, y - k); j <= Math.min(h - 1, y + k); j++) v = pick(v, tmp[j * w + x]!);
      out[y * w + x] = v;
    }
  return out;
}

/**
 * Thin lines in a lightness map: how much darker each pixel is than a closing of radius `k`
 * (black-hat: lines and dots narrower than 2k+1), and how much brighter than an opening (top-hat).
 */
function thinLines(
  L: Float32Array,
  w: number,
  h: number,
  k: number,
): { dark: Float32Array; bright: Float32Array } {
  const closed = rankFilter(rankFilter(L, w, h, k, true), w, h, k, false);
  const opened = rankFilter(rankFilter(L, w, h, k, false), w, h, k, true);
  const dark = new Float32Array(w * h);
  const bright = new Float32Array(w * h);
  for (let i = 0; i < w * h; i++) {
    dark[i] = closed[i]! - L[i]!;
    bright[i] = L[i]! - opened[i]!;
  }
  return { dark, bright };
}

/**
 * Glasses on a face, read from the photo (the mesh's own pixels): a thin line darker (or
 * brighter: a metal or clear frame) than the skin either side, running round each eye beyond
 * its lids as a closed rim (a rounded rectangle or oval, wider than the eye, fitted to the
 * line), below the eye and at its sides too, where a face without glasses has smooth cheek and
 * temple (a brow or an eye bag alone is no rim), and a bridge across the nose between the
 * rims. On a face too small for a frame to be a pixel wide nothing is found.
 */
export function findGlasses(f: Face, photo: RgbPixels): Glasses | null {
  const M = (i: number): Pt => [f.mesh[i]![0], f.mesh[i]![1]];
  const eyes = MESH_EYES.map((e) => {
    const poly = [M(e.outer), ...e.upper.map(M), M(e.inner), ...[...e.lower].reverse().map(M)];
    const c: Pt = [
      poly.reduce((s, p) => s + p[0], 0) / poly.length,
      poly.reduce((s, p) => s + p[1], 0) / poly.length,
    ];
    return { poly, c };
  });
  const hx = eyes[1]!.c[0] - eyes[0]!.c[0];
  const hy = eyes[1]!.c[1] - eyes[0]!.c[1];
  const gap = Math.hypot(hx, hy);
  const h: Pt = [hx / gap, hy / gap]; // across the face, from its first eye to its second
  const v: Pt = [-h[1], h[0]]; // down the face
  // Each eye's extent in the face's frame (half width, heights above and below its centre).
  const ext = eyes.map(({ poly, c }) => {
    const us = poly.map(([x, y]) => (x - c[0]) * h[0] + (y - c[1]) * h[1]);
    const vs = poly.map(([x, y]) => (x - c[0]) * v[0] + (y - c[1]) * v[1]);
    return { hw: (Math.max(...us) - Math.min(...us)) / 2, up: -Math.min(...vs), down: Math.max(...vs) };
  });
  const a = Math.max(ext[0]!.hw, ext[1]!.hw);
  if (Math.min(ext[0]!.hw, ext[1]!.hw) < 9 || gap < 2.2 * a) return null; // a frame under a pixel; a profile
  const x0 = Math.max(0, Math.floor(Math.min(eyes[0]!.c[0], eyes[1]!.c[0]) - 2.8 * a));
  const y0 = Math.max(0, Math.floor(Math.min(eyes[0]!.c[1], eyes[1]!.c[1]) - 2.8 * a));
  const x1 = Math.min(photo.width, Math.ceil(Math.max(eyes[0]!.c[0], eyes[1]!.c[0]) + 2.8 * a));
  const y1 = Math.min(photo.height, Math.ceil(Math.max(eyes[0]!.c[1], eyes[1]!.c[1]) + 2.8 * a));
  const w = x1 - x0;
  const hh = y1 - y0;
  if (w < 8 || hh < 8) return null;
  const L = lightnessOf(photo, x0, y0, w, hh);
  const k = Math.max(2, Math.round(0.22 * a));
  const maps = thinLines(L, w, hh, k);
  const sample = (m: Float32Array, x: number, y: number): number => {
    const px = Math.round(x - x0);
    const py = Math.round(y - y0);
    return px < 0 || py < 0 || px >= w || py >= hh ? 0 : m[py * w + px]!;
  };
  const band = Math.max(1.5, 0.12 * a); // how far off the fitted shape the line may run

  /** The best rim round one eye in one map: its shape and how much of it (beyond the top) is line. */
  const fitRim = (side: number, m: Float32Array) => {
    const { c } = eyes[side]!;
    const e = ext[side]!;
    const out = side === 0 ? -1 : 1; // the direction of h away from the nose
    let best = { cover: 0, strength: 0, rim: [] as Pt[], hit: [] as boolean[] };
    for (let du = -0.3; du <= 0.31; du += 0.15)
      for (let dv = -0.3; dv <= 0.31; dv += 0.15)
        for (let rx = 1.3; rx <= 2.21; rx += 0.15)
          for (let ry = 0.7; ry <= 1.51; ry += 0.1) {
            const cu = du * a * out;
            const cv = dv * a;
            // The rim clears the eye's lids and corners.
            // (Lenses are wider than the eye, and reach well below it: a rim hugging the lids
            // would follow their lashes and creases instead.)
            if (rx * a - Math.abs(cu) < e.hw + 0.3 * a) continue;
            if (ry * a + cv < e.down + 0.35 * a || ry * a - cv < e.up + 0.2 * a) continue;
            if (rx * a - cu * out > gap * 0.5) continue; // would cross the nose's middle
            let n = 0;
            let hits = 0;
            let sum = 0;
            const rim: Pt[] = [];
            const hit: boolean[] = [];
            for (let s = 0; s < RIM_SAMPLES; s++) {
              const t = (2 * Math.PI * s) / RIM_SAMPLES;
              const ct = Math.cos(t);
              const st = Math.sin(t);
              // A rounded rectangle: a superellipse of exponent 4.
              const u = cu + rx * a * Math.sign(ct) * Math.abs(ct) ** 0.5;
              const vv = cv + ry * a * Math.sign(st) * Math.abs(st) ** 0.5;
              const px = c[0] + u * h[0] + vv * v[0];
              const py = c[1] + u * h[1] + vv * v[1];
              // The strongest line within the band across the rim (towards/away from the centre).
              const rl = Math.hypot(u - cu, vv - cv) || 1;
              const nu = (u - cu) / rl;
              const nv = (vv - cv) / rl;
              let bestV = 0;
              let bx = px;
              let by = py;
              for (let o = -band; o <= band; o += 0.5) {
                const qx = px + o * (nu * h[0] + nv * v[0]);
                const qy = py + o * (nu * h[1] + nv * v[1]);
                const val = sample(m, qx, qy);
                if (val > bestV) {
                  bestV = val;
                  bx = qx;
                  by = qy;
                }
              }
              rim.push([bx, by]);
              hit.push(bestV >= FRAME_CONTRAST);
              if (st < -0.5) continue; // the top: brows run there with or without glasses
              n++;
              sum += Math.min(bestV, 0.2);
              if (bestV >= FRAME_CONTRAST) hits++;
            }
            const cover = hits / n;
            if (cover > best.cover + 1e-9 || (Math.abs(cover - best.cover) < 1e-9 && sum / n > best.strength))
              best = { cover, strength: sum / n, rim, hit };
          }
    return best;
  };
  let bestPair: { fits: ReturnType<typeof fitRim>[]; dark: boolean } | null = null;
  let bestCover = 0;
  for (const dark of [true, false]) {
    const m = dark ? maps.dark : maps.bright;
    const fits = [fitRim(0, m), fitRim(1, m)];
    // Both rims mostly line (one may be cut by a glint or a lens's hard corner more than the other).
    const cover =
      Math.min(fits[0]!.cover, fits[1]!.cover) < MIN_RIM_COVER - 0.1
        ? 0
        : (fits[0]!.cover + fits[1]!.cover) / 2;
    if (cover > bestCover) {
      bestCover = cover;
      bestPair = { fits, dark };
    }
  }
  if (!bestPair) return null;
  const m = bestPair.dark ? maps.dark : maps.bright;
  // The bridge: a line across the nose's middle, from the brows' level down to the eyes'.
  const mid: Pt = [(eyes[0]!.c[0] + eyes[1]!.c[0]) / 2, (eyes[0]!.c[1] + eyes[1]!.c[1]) / 2];
  let bridge = { v: 0, at: mid };
  for (let r = -1.5 * a; r <= 0.3 * a; r += 0.5) {
    const q: Pt = [mid[0] + v[0] * r, mid[1] + v[1] * r];
    // a line runs across: its neighbours a little to each side are line too
    const val = Math.min(
      sample(m, q[0], q[1]),
      sample(m, q[0] - h[0] * 0.15 * a, q[1] - h[1] * 0.15 * a),
      sample(m, q[0] + h[0] * 0.15 * a, q[1] + h[1] * 0.15 * a),
    );
    if (val > bridge.v) bridge = { v: val, at: q };
  }
  if (bridge.v < MIN_BRIDGE_CONTRAST || bestCover < MIN_RIM_COVER) return null;
  const rims = bestPair.fits.map((q) => q.rim);
  const labs = bestPair.fits.flatMap((q) =>
    q.rim
      .filter((_, s) => q.hit[s])
      .map(([x, y]) => {
        const i = (Math.round(y) * photo.width + Math.round(x)) * 3;
        return oklab(photo.data[i]!, photo.data[i + 1]!, photo.data[i + 2]!);
      }),
  );
  const lab: Lab = [
    median(labs.map((l) => l[0])),
    median(labs.map((l) => l[1])),
    median(labs.map((l) => l[2])),
  ];
  return {
    rims,
    bridge: [nearestTo(rims[0]!, bridge.at), nearestTo(rims[1]!, bridge.at)],
    lab,
    dark: bestPair.dark,
  };
}

const nearestTo = (rim: Pt[], p: Pt): Pt =>
  rim.reduce((b, q) => (Math.hypot(q[0] - p[0], q[1] - p[1]) < Math.hypot(b[0] - p[0], b[1] - p[1]) ? q : b));

const median = (v: number[]): number => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : 0;
};
const quantile = (v: number[], q: number): number => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.floor(q * (s.length - 1))]! : 0;
};
const clampL = (l: number) => Math.max(0.04, Math.min(0.97, l));
const rgbOf = ([L, A, B]: Lab): [number, number, number] => oklabToRgb(clampL(L), A, B);

/** The mark `drawFaces` leaves on a cell painted with a face's skin ramp (features: 1). */
export const SKIN = 2;

/** Options of `drawFaces`. */
export interface DrawFacesOptions {
  /**
   * For a b/w or toned print (the caller's judgement, from the whole photo): the hue (OKLab a,
   * b) every face's ramp and features are drawn in instead of the print's grey or tint, as a
   * hand-colourist tints skin. Without it a face keeps its own hue.
   */
  monoSkinHue?: readonly [number, number];
}

/**
 * Draws every face onto `out` (cols x rows RGB cells, already mapped to the palette). `lab` is
 * the photo's colour per cell (OKLab, before the palette); `sx`, `sy` map mesh pixels to cells.
 * Returns the cells drawn: `SKIN` for the skin ramp's (as drawn, before features went over
 * some), 1 for the features'.
 */
export function drawFaces(
  out: Uint8Array,
  lab: Float32Array,
  cols: number,
  rows: number,
  faces: Face[],
  sx: number,
  sy: number,
  person: Uint8Array | null,
  photo: RgbPixels | null = null,
  opts: DrawFacesOptions = {},
): Uint8Array {
  const drawn = new Uint8Array(cols * rows);
  const ovals = new Uint8Array(cols * rows);
  for (const f of faces)
    for (const i of polygonCells(
      MESH_OVAL.map((j) => [f.mesh[j]![0] * sx, f.mesh[j]![1] * sy] as Pt),
      cols,
      rows,
    ))
      ovals[i] = 1;
  for (const f of faces) drawFace(out, lab, cols, rows, f, sx, sy, drawn, person, ovals, photo, opts);
  return drawn;
}

function drawFace(
  out: Uint8Array,
  lab: Float32Array,
  cols: number,
  rows: number,
  f: Face,
  sx: number,
  sy: number,
  drawn: Uint8Array,
  person: Uint8Array | null,
  ovals: Uint8Array,
  photo: RgbPixels | null,
  opts: DrawFacesOptions,
): void {
  const P = (i: number): Pt => [f.mesh[i]![0] * sx, f.mesh[i]![1] * sy];
  const faceW = faceWidth(f) * sx;
  if (faceW < 5) return; // too few cells for a face of its own: the palette's cells stay
  const face = polygonCells(MESH_OVAL.map(P), cols, rows);
  const exclude = new Set<number>();
  const eyePolys = MESH_EYES.map((e) => [
    P(e.outer),
    ...e.upper.map(P),
    P(e.inner),
    ...[...e.lower].reverse().map(P),
  ]);
  const browPolys = MESH_BROWS.map((b) => [...b.upper.map(P), ...[...b.lower].reverse().map(P)]);
  const lipsPoly = MESH_LIPS_OUTER.map(P);
  for (const poly of [...eyePolys, ...browPolys, lipsPoly]) {
    for (const i of polygonCells(poly, cols, rows)) exclude.add(i);
    for (const i of lineCells([...poly, poly[0]!], cols, rows)) exclude.add(i);
  }
  const candidates = face.filter((i) => !exclude.has(i));
  if (candidates.length < 6) return;

  // The skin's own colour: the median of the face's cells outside the features; skin cells are
  // those near it in hue (hair over the forehead, glasses' frames and shadows of a hat are not).
  const Lm = median(candidates.map((i) => lab[i * 3]!));
  const am = median(candidates.map((i) => lab[i * 3 + 1]!));
  const bm = median(candidates.map((i) => lab[i * 3 + 2]!));
  // (On a print drawn in a skin hue a lit forehead or cheek is skin too, and so is a shadow
  // under the nose or lip: left out, they stayed the print's paper white or grey inside the face.)
  const [darkest, lightest] = opts.monoSkinHue ? [-0.3, Infinity] : [-0.24, 0.2];
  const isSkin = (i: number, tight = false) => {
    const dL = lab[i * 3]! - Lm;
    const dc = Math.hypot(lab[i * 3 + 1]! - am, lab[i * 3 + 2]! - bm);
    return tight ? dc < 0.045 && dL > -0.2 && dL < 0.15 : dc < 0.06 && dL > darkest && dL < lightest;
  };
  const skinSet = new Set<number>(candidates.filter((i) => isSkin(i)));
  if (skinSet.size < candidates.length * 0.4) return; // not a face's skin we can read (a mask, a shadow)
  // Every skin cell of the face takes the ramp (around the features too: no stray palette
  // colours there); on a colour photo so do the person's neck, hands and arms near the face.
  const skin = face.filter((i) => !drawn[i] && isSkin(i));
  const chromaM = Math.hypot(am, bm);
  if (person && chromaM >= 0.02 && !opts.monoSkinHue) {
    const fx = (P(234)[0] + P(454)[0]) / 2;
    const fy = (P(10)[1] + P(152)[1]) / 2;
    for (let y = Math.max(0, Math.floor(fy - faceW)); y < Math.min(rows, Math.ceil(fy + 3 * faceW)); y++)
      for (
        let x = Math.max(0, Math.floor(fx - 2.5 * faceW));
        x < Math.min(cols, Math.ceil(fx + 2.5 * faceW));
        x++
      ) {
        const i = y * cols + x;
        if (person[i] && !ovals[i] && !drawn[i] && isSkin(i, true)) skin.push(i);
      }
  }
  // On a print drawn in a skin hue, the forehead above the mesh's oval and the temples and ears
  // beside it, where the print has them in the face's tones (and the person's matte agrees):
  // left out, a lit forehead stayed a band of paper white between the face and the hair. Not
  // below the mouth (a white collar is as light as a lit face).
  if (opts.monoSkinHue) {
    const below = P(13)[1];
    const taken = new Set(skin);
    let front = [...skin];
    for (let step = 0; step < Math.max(1, Math.round(faceW * 0.2)); step++) {
      const next: number[] = [];
      for (const i of front) {
        const x = i % cols;
        const y = (i - x) / cols;
        for (const [dx, dy] of [
          [1, 0],
          [-1, 0],
          [0, 1],
          [0, -1],
        ] as const) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= cols || ny >= rows || ny + 0.5 > below) continue;
          const j = ny * cols + nx;
          if (taken.has(j) || ovals[j] || drawn[j] || (person && !person[j])) continue;
          const dL = lab[j * 3]! - Lm;
          if (dL < -0.12 || dL > 0.34) continue;
          taken.add(j);
          next.push(j);
        }
      }
      skin.push(...next);
      front = next;
    }
  }

  // Four tones, hue-shifted as pixel artists shade: redder, deeper shadows; warmer lights. On a
  // b/w or toned print (a grey face) the ramp is drawn no lighter than a lit face's mid-tone: a
  // daguerreotype's pale (or lifted) face would otherwise go near white, its eyes black holes.
  // (A print's face, b/w or toned, drawn in a given skin hue takes that hue for its ramp and
  // features: the print's tone is no guide to the skin's.)
  const print = opts.monoSkinHue !== undefined || chromaM < MONO_FACE_CHROMA;
  const [ra, rb] = opts.monoSkinHue ?? [am, bm];
  const chroma = Math.hypot(ra, rb);
  // (A print's face drawn in a skin hue is drawn a little lighter than the print has it, as a
  // tinted face reads: a mid-grey face in a print is as often a lit pale face as a dark one.)
  const Ld = !print
    ? Lm
    : opts.monoSkinHue
      ? Math.min(Lm, PRINT_SKIN_MAX_L) + Math.max(0, PRINT_SKIN_MAX_L - Lm) * PRINT_SKIN_LIFT
      : Math.min(Lm, MONO_FACE_MAX_L);
  const ramp: Lab[] = [
    [Ld - 0.2, ra * 0.95 + 0.02, rb * 0.8 - 0.01],
    [Ld - 0.1, ra + 0.012, rb * 0.95 - 0.004],
    [Ld, ra * 1.06, rb * 1.06],
    [Ld + 0.09, ra * 0.85, rb * 0.9 + (chroma > 0.02 ? 0.012 : 0.004)],
  ];
  const rampRgb = ramp.map(rgbOf);
  const skinL = skin.map((i) => lab[i * 3]!);
  const spread = Math.max(0.035, (quantile(skinL, 0.85) - quantile(skinL, 0.15)) / 2);
  const tone = new Map<number, number>();
  for (const i of skin) {
    const z = (lab[i * 3]! - Lm) / spread;
    tone.set(i, z < -1.6 ? 0 : z < -0.55 ? 1 : z < 0.9 ? 2 : 3);
  }
  // Lone tones join their neighbours (clean clusters, not photo noise).
  const cleaned = new Map<number, number>();
  for (const [i, t] of tone) {
    const x = i % cols;
    const y = (i - x) / cols;
    const counts = [0, 0, 0, 0];
    let same = 0;
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) {
        if (!dx && !dy) continue;
        const nx = x + dx;
        const ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= cols || ny >= rows) continue;
        const v = tone.get(ny * cols + nx);
        if (v === undefined) continue;
        counts[v]!++;
        if (v === t) same++;
      }
    let best = t;
    if (same === 0) {
      // nearest neighbouring tone, ties to the most common
      let bestScore = Infinity;
      for (let v = 0; v < 4; v++)
        if (counts[v]! > 0) {
          const score = Math.abs(v - t) * 10 - counts[v]!;
          if (score < bestScore) {
            bestScore = score;
            best = v;
          }
        }
    }
    cleaned.set(i, best);
  }
  const paint = (i: number, rgb: readonly number[]) => {
    out[i * 3] = rgb[0]!;
    out[i * 3 + 1] = rgb[1]!;
    out[i * 3 + 2] = rgb[2]!;
    drawn[i] = 1;
  };
  for (const [i, t] of cleaned) paint(i, rampRgb[t]!);
  for (const i of cleaned.keys()) drawn[i] = SKIN;

  // Feature colours, from the face's own colour.
  // (On a grey print's face a little less than black: black eye blocks stare out of a pale face.)
  const dark = rgbOf([print ? Ld - 0.42 : Math.min(0.24, Ld - 0.36), ra * 0.5 + 0.01, rb * 0.4 - 0.012]);
  const white = rgbOf([Math.min(0.93, Math.max(Ld + 0.1, 0.8)), ra * 0.15, rb * 0.15 - 0.006]);
  const lipLine = rgbOf([Math.min(Ld - 0.22, 0.5), ra + 0.05, rb * 0.6]);
  const lipTone = rgbOf([Ld - 0.07, ra + 0.035, rb * 0.95]);
  // Brows: the photo's brow colour, kept clearly darker than the skin.
  const browCells = browPolys.flatMap((p) => polygonCells(p, cols, rows));
  const browLab: Lab =
    browCells.length > 0
      ? [
          median(browCells.map((i) => lab[i * 3]!)),
          median(browCells.map((i) => lab[i * 3 + 1]!)),
          median(browCells.map((i) => lab[i * 3 + 2]!)),
        ]
      : [Ld - 0.3, am, bm];
  // (A grey print's brows, on a face drawn in a skin hue, in a brown of that hue.)
  const brow = !opts.monoSkinHue
    ? rgbOf([Math.min(browLab[0], Ld - 0.24), browLab[1], browLab[2]])
    : rgbOf([Math.min(browLab[0], Ld - 0.24), ra * 0.45, rb * 0.45]);

  /** Share of skin cells around a feature (its box grown by one cell, the feature itself left out). */
  const skinAround = (poly: Pt[]): number => {
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const [x, y] of poly) {
      x0 = Math.min(x0, x);
      y0 = Math.min(y0, y);
      x1 = Math.max(x1, x);
      y1 = Math.max(y1, y);
    }
    let n = 0;
    let s = 0;
    for (let cy = Math.floor(y0) - 1; cy <= Math.floor(y1) + 1; cy++)
      for (let cx = Math.floor(x0) - 1; cx <= Math.floor(x1) + 1; cx++) {
        if (cx < 0 || cy < 0 || cx >= cols || cy >= rows) continue;
        const i = cy * cols + cx;
        if (exclude.has(i)) continue;
        n++;
        if (skinSet.has(i)) s++;
      }
    return n ? s / n : 0;
  };
  const small = faceW < 11;

  // Jaw shadow: the cells just under the jaw, where they are skin too (the neck).
  if (!small) {
    for (const i of lineCells(
      JAW.map((j) => {
        const [x, y] = P(j);
        return [x, y + 0.9] as Pt;
      }),
      cols,
      rows,
    )) {
      if (drawn[i]) continue;
      const dc = Math.hypot(lab[i * 3 + 1]! - am, lab[i * 3 + 2]! - bm);
      if (dc < 0.06 && Math.abs(lab[i * 3]! - Lm) < 0.22) paint(i, rampRgb[0]!);
    }
  }

  // Nose: a shadow under it, nostrils darker on a larger face.
  if (faceW >= 12) {
    const nose = lineCells(MESH_NOSE_BOTTOM.map(P), cols, rows);
    for (const i of nose) paint(i, rampRgb[1]!);
    if (faceW >= 22) for (const j of [98, 327]) paint(lineCells([P(j)], cols, rows)[0] ?? 0, rampRgb[0]!);
  }

  // Eyes.
  MESH_EYES.forEach((e, k) => {
    const poly = eyePolys[k]!;
    if (skinAround(poly) < 0.35) return;
    const outer = P(e.outer);
    const inner = P(e.inner);
    const ew = Math.hypot(inner[0] - outer[0], inner[1] - outer[1]);
    const cx = poly.reduce((s, p) => s + p[0], 0) / poly.length;
    const cy = poly.reduce((s, p) => s + p[1], 0) / poly.length;
    const upMid = P(e.upper[3]!);
    const lowMid = P(e.lower[3]!);
    const eh = lowMid[1] - upMid[1];
    if (small || ew < 2.2) {
      // A one-cell eye: the pupil.
      for (const i of lineCells([[cx, cy]], cols, rows)) paint(i, dark);
      return;
    }
    // Whites first (when the eye is open enough to show them), then lashes and pupil over them.
    if (eh >= 0.9) for (const i of polygonCells(poly, cols, rows)) paint(i, white);
    const lash = lineCells([outer, ...e.upper.map(P), inner], cols, rows);
    for (const i of lash) paint(i, dark);
    const pupilW = ew >= 5 ? 2 : 1;
    const px0 = pupilW === 2 ? Math.round(cx) - 1 : Math.floor(cx);
    const lashRow = new Map<number, number>();
    for (const i of lash) {
      const x = i % cols;
      const y = (i - x) / cols;
      lashRow.set(x, Math.max(lashRow.get(x) ?? -1, y));
    }
    const bottom = Math.floor(lowMid[1] - 0.15);
    const pupil: number[] = [];
    for (let x = px0; x < px0 + pupilW; x++) {
      const top = (lashRow.get(x) ?? Math.floor(cy) - 1) + 1;
      const last = Math.max(top, Math.min(bottom, top + pupilW - 1));
      if (eh < 0.6) continue; // a closed or smiling eye: the lash line is the eye
      for (let y = top; y <= last; y++)
        if (x >= 0 && y >= 0 && x < cols && y < rows) pupil.push(y * cols + x);
    }
    for (const i of pupil) paint(i, dark);
    // A highlight on a pupil of two by two or more: its upper cell towards the outer corner.
    if (pupilW === 2 && pupil.length >= 4) {
      const hx = outer[0] < inner[0] ? px0 : px0 + 1;
      const hy = Math.min(...pupil.filter((i) => i % cols === hx).map((i) => Math.floor(i / cols)));
      if (Number.isFinite(hy)) paint(hy * cols + hx, white);
    }
  });

  // Brows.
  if (!small)
    MESH_BROWS.forEach((b, k) => {
      const poly = browPolys[k]!;
      if (skinAround(poly) < 0.35) return;
      const mid = b.upper.map((u, j) => {
        const p = P(u);
        const q = P(b.lower[j]!);
        return [(p[0] + q[0]) / 2, (p[1] + q[1]) / 2] as Pt;
      });
      const thick = Math.hypot(P(b.upper[2]!)[0] - P(b.lower[2]!)[0], P(b.upper[2]!)[1] - P(b.lower[2]!)[1]);
      const cells = thick >= 1.8 ? polygonCells(poly, cols, rows) : [];
      for (const i of [...cells, ...lineCells(mid, cols, rows)]) paint(i, brow);
    });

  // Mouth: the line between the lips, the lower lip a little redder, teeth where it is open.
  if (skinAround(lipsPoly) >= 0.35) {
    const line = MESH_MOUTH_LINE.map(P);
    const open = P(14)[1] - P(13)[1];
    if (faceW >= 14) {
      const lower = [
        ...MESH_LIP_LOWER_INNER.map(P),
        ...[291, 375, 321, 405, 314, 17, 84, 181, 91, 146, 61].map(P),
      ];
      for (const i of polygonCells(lower, cols, rows)) paint(i, lipTone);
    }
    if (open >= 1.2) {
      const inner = [...MESH_MOUTH_LINE.slice(1, -1).map(P), ...MESH_LIP_LOWER_INNER.slice(1, -1).map(P)];
      for (const i of polygonCells(inner, cols, rows)) paint(i, lab[i * 3]! > Lm ? white : lipLine);
    }
    const lineCellsMouth = lineCells(small ? line.slice(2, -2) : line, cols, rows);
    for (const i of lineCellsMouth) paint(i, lipLine);
  }

  // Glasses: a one-cell frame along each rim found in the photo, the bridge across the nose and
  // the arms towards the ears (over skin only), dark (or pale, for a metal or clear frame that
  // is brighter than the skin); never over the eyes themselves.
  const glasses = photo && faceW >= GLASSES_MIN_FACE_CELLS ? findGlasses(f, photo) : null;
  if (glasses) {
    // In the eyes' own colours (a new colour would cost the picture one of its few slots: the
    // palette's merge then recolours skin elsewhere).
    const frame = glasses.dark ? dark : white;
    const eyeCells = new Set<number>();
    for (const poly of eyePolys) {
      for (const i of polygonCells(poly, cols, rows)) eyeCells.add(i);
      for (const i of lineCells([poly[0]!, ...poly.slice(1, MESH_EYES[0]!.upper.length + 2)], cols, rows))
        eyeCells.add(i);
    }
    const C = ([x, y]: Pt): Pt => [x * sx, y * sy];
    const cells = new Set<number>();
    for (const rim of glasses.rims)
      for (const i of lineCells([...rim, rim[0]!].map(C), cols, rows)) cells.add(i);
    for (const i of lineCells(glasses.bridge.map(C), cols, rows)) cells.add(i);
    // The arms: from each rim's outermost point out to the side of the face, level with it.
    glasses.rims.forEach((rim, k) => {
      const side = P(k === 0 ? 234 : 454);
      const c = C(
        rim.reduce((b, q) => (Math.abs(q[0] * sx - side[0]) < Math.abs(b[0] * sx - side[0]) ? q : b)),
      );
      for (const i of lineCells([c, [side[0], c[1]]], cols, rows))
        if (skinSet.has(i) || cleaned.has(i)) cells.add(i);
    });
    for (const i of cells) if (!eyeCells.has(i)) paint(i, frame);
  }
}

/** A face greyer than this (OKLab chroma of its median) is a b/w or toned print's... */
const MONO_FACE_CHROMA = 0.03;
/** ...and its ramp's mid-tone is at most this light (a print's face drawn in a skin hue: the second). */
const MONO_FACE_MAX_L = 0.72;
const PRINT_SKIN_MAX_L = 0.8;
/** How far a darker print face's ramp is lifted towards that. */
const PRINT_SKIN_LIFT = 0.4;

/** Faces narrower than this (cells) get no glasses drawn: the frame would cover the face. */
const GLASSES_MIN_FACE_CELLS = 14;

/** Nearest colour to `rgb` among `choices` (RGB triples), in OKLab with lightness weighted. */
export function nearestOf(rgb: readonly number[], choices: readonly (readonly number[])[]): number {
  const [L, A, B] = oklab(rgb[0]!, rgb[1]!, rgb[2]!);
  let best = 0;
  let bestD = Infinity;
  choices.forEach((c, j) => {
    const [l, a, b] = oklab(c[0]!, c[1]!, c[2]!);
    const d = ((L - l) * 1.5) ** 2 + (A - a) ** 2 + (B - b) ** 2;
    if (d < bestD) {
      bestD = d;
      best = j;
    }
  });
  return best;
}

/**
 * At most `max` colours: while there are more, the rarer colour of the two most alike (OKLab,
 * lightness weighted) becomes the other; a colour of a face's skin ramp (a cell `SKIN` in
 * `skin`, as `drawFaces` returns) is kept over one that is not. Deterministic (ties by first
 * appearance).
 */
export function limitColours(out: Uint8Array, n: number, max: number, skin?: Uint8Array): void {
  const keyOf = (i: number) => (out[i * 3]! << 16) | (out[i * 3 + 1]! << 8) | out[i * 3 + 2]!;
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) counts.set(keyOf(i), (counts.get(keyOf(i)) ?? 0) + 1);
  if (counts.size <= max) return;
  const keys = [...counts.keys()];
  const labs = keys.map((k) => oklab((k >> 16) & 255, (k >> 8) & 255, k & 255));
  const alive = keys.map(() => true);
  const skinKeys = new Set<number>();
  if (skin) for (let i = 0; i < n; i++) if (skin[i] === SKIN) skinKeys.add(keyOf(i));
  const isSkin = keys.map((k) => skinKeys.has(k));
  const target = keys.map((_, j) => j);
  for (let left = keys.length; left > max; left--) {
    let bi = -1;
    let bj = -1;
    let bd = Infinity;
    for (let a = 0; a < keys.length; a++) {
      if (!alive[a]) continue;
      for (let b = a + 1; b < keys.length; b++) {
        if (!alive[b]) continue;
        const d =
          ((labs[a]![0] - labs[b]![0]) * 1.5) ** 2 +
          (labs[a]![1] - labs[b]![1]) ** 2 +
          (labs[a]![2] - labs[b]![2]) ** 2;
        if (d < bd) {
          bd = d;
          bi = a;
          bj = b;
        }
      }
    }
    // A skin ramp's colour is kept over a feature's (a frame or lip line drawn over the ramp
    // must not turn the ramp's cells into its colour); otherwise the commoner colour is kept.
    const [keep, drop] =
      isSkin[bi] !== isSkin[bj]
        ? isSkin[bi]
          ? [bi, bj]
          : [bj, bi]
        : counts.get(keys[bi]!)! >= counts.get(keys[bj]!)!
          ? [bi, bj]
          : [bj, bi];
    isSkin[keep] = isSkin[keep]! || isSkin[drop]!;
    alive[drop] = false;
    counts.set(keys[keep]!, counts.get(keys[keep]!)! + counts.get(keys[drop]!)!);
    for (let j = 0; j < keys.length; j++) if (target[j] === drop) target[j] = keep;
  }
  const index = new Map(keys.map((k, j) => [k, j]));
  for (let i = 0; i < n; i++) {
    const k = keys[target[index.get(keyOf(i))!]!]!;
    out[i * 3] = (k >> 16) & 255;
    out[i * 3 + 1] = (k >> 8) & 255;
    out[i * 3 + 2] = k & 255;
  }
}
