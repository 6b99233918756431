/**
 * Pixel-art building blocks shared by the pixel effects (8-bit illustration, 16-bit character):
 * OKLab colour, a per-image palette (k-means in OKLab, deterministic), deliberate ramps for
 * monochrome and toned photos, and a clean-up of lone cells. All work on a coarse grid of
 * cells (a few thousand), so none of it costs more than a few milliseconds.
 */

const srgbToLinear = (c: number): number => {
  const v = c / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
};
/** `srgbToLinear` of every byte: a whole photo converts without a power per channel. */
const LINEAR = Float64Array.from({ length: 256 }, (_, c) => srgbToLinear(c));
const linearToSrgb = (v: number): number => {
  const c = v <= 0.0031308 ? v * 12.92 : 1.055 * Math.max(0, v) ** (1 / 2.4) - 0.055;
  return Math.max(0, Math.min(255, Math.round(c * 255)));
};

/**
 * sRGB -> OKLab. Distances in OKLab follow perceived colour difference far better than
 * RGB distances do, so "nearest palette colour" picks what a person would pick.
 */
export function oklab(r: number, g: number, b: number): [number, number, number] {
  const lr = srgbToLinear(r);
  const lg = srgbToLinear(g);
  const lb = srgbToLinear(b);
  const l = Math.cbrt(0.4122214708 * lr + 0.5363325363 * lg + 0.0514459929 * lb);
  const m = Math.cbrt(0.2119034982 * lr + 0.6806995451 * lg + 0.1073969566 * lb);
  const s = Math.cbrt(0.0883024619 * lr + 0.2817188376 * lg + 0.6299787005 * lb);
  return [
    0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
  ];
}

/** OKLab -> sRGB, clamped to the gamut. */
export function oklabToRgb(L: number, A: number, B: number): [number, number, number] {
  const l = (L + 0.3963377774 * A + 0.2158037573 * B) ** 3;
  const m = (L - 0.1055613458 * A - 0.0638541728 * B) ** 3;
  const s = (L - 0.0894841775 * A - 1.291485548 * B) ** 3;
  return [
    linearToSrgb(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s),
    linearToSrgb(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s),
    linearToSrgb(-0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s),
  ];
}

/** Every pixel of an RGB buffer in OKLab (n x 3). */
export function labOf(rgb: Uint8Array | Buffer, n: number): Float32Array {
  const out = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    // `oklab`, inlined: no array per pixel on a whole photo.
    const lr = LINEAR[rgb[i * 3]!]!;
    const lg = LINEAR[rgb[i * 3 + 1]!]!;
    const lb = LINEAR[rgb[i * 3 + 2]!]!;
    const l = Math.cbrt(0.4122214708 * lr + 0.5363325363 * lg + 0.0514459929 * lb);
    const m = Math.cbrt(0.2119034982 * lr + 0.6806995451 * lg + 0.1073969566 * lb);
    const s = Math.cbrt(0.0883024619 * lr + 0.2817188376 * lg + 0.6299787005 * lb);
    out[i * 3] = 0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s;
    out[i * 3 + 1] = 1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s;
    out[i * 3 + 2] = 0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s;
  }
  return out;
}

/** Lightness is weighted up in palette distances: in pixel art readable shapes come from value contrast. */
const L_WEIGHT = 1.5;

function dist(lab: Float32Array, i: number, pal: Float32Array, j: number): number {
  const dL = (lab[i * 3]! - pal[j * 3]!) * L_WEIGHT;
  const dA = lab[i * 3 + 1]! - pal[j * 3 + 1]!;
  const dB = lab[i * 3 + 2]! - pal[j * 3 + 2]!;
  return dL * dL + dA * dA + dB * dB;
}

/** For each colour of `lab` (n x 3), the index of the nearest palette colour (ties: lower index). */
export function nearestIndices(lab: Float32Array, n: number, palette: Float32Array): Uint8Array {
  const k = palette.length / 3;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    let best = 0;
    let bestD = Infinity;
    for (let j = 0; j < k; j++) {
      const d = dist(lab, i, palette, j);
      if (d < bestD) {
        bestD = d;
        best = j;
      }
    }
    out[i] = best;
  }
  return out;
}

/**
 * A palette of at most `k` colours chosen for these colours (OKLab, n x 3; `use` limits the
 * samples): farthest-point seeds (so a small but distinct colour, a red mouth or a blue eye,
 * gets its own entry instead of being averaged away), then Lloyd iterations. Colours closer
 * than `minDelta` are merged, so no two entries look alike. Deterministic.
 */
export function kMeansPalette(
  lab: Float32Array,
  n: number,
  k: number,
  opts: { use?: Uint8Array; iterations?: number; minDelta?: number } = {},
): Float32Array {
  const use = opts.use;
  const idx: number[] = [];
  for (let i = 0; i < n; i++) if (!use || use[i]) idx.push(i);
  if (!idx.length) return new Float32Array([0.5, 0, 0]);
  // First seed: the mean colour; then the sample farthest from every seed so far.
  const seeds: number[] = [];
  const mean = [0, 0, 0];
  for (const i of idx) for (let c = 0; c < 3; c++) mean[c]! += lab[i * 3 + c]! / idx.length;
  let pal = new Float32Array(k * 3);
  pal.set(mean, 0);
  const nearest = new Float32Array(n).fill(Infinity);
  let count = 1;
  for (; count < k; count++) {
    let far = -1;
    let farD = 0;
    for (const i of idx) {
      const d = dist(lab, i, pal, count - 1);
      if (d < nearest[i]!) nearest[i] = d;
      if (nearest[i]! > farD) {
        farD = nearest[i]!;
        far = i;
      }
    }
    if (far < 0 || farD < 1e-6) break;
    seeds.push(far);
    pal.set([lab[far * 3]!, lab[far * 3 + 1]!, lab[far * 3 + 2]!], count * 3);
  }
  pal = pal.slice(0, count * 3);
  const sums = new Float64Array(count * 4);
  for (let it = 0; it < (opts.iterations ?? 10); it++) {
    sums.fill(0);
    for (const i of idx) {
      let best = 0;
      let bestD = Infinity;
      for (let j = 0; j < count; j++) {
        const d = dist(lab, i, pal, j);
        if (d < bestD) {
          bestD = d;
          best = j;
        }
      }
      sums[best * 4]! += lab[i * 3]!;
      sums[best * 4 + 1]! += lab[i * 3 + 1]!;
      sums[best * 4 + 2]! += lab[i * 3 + 2]!;
      sums[best * 4 + 3]! += 1;
    }
    for (let j = 0; j < count; j++) {
      const w = sums[j * 4 + 3]!;
      if (w) for (let c = 0; c < 3; c++) pal[j * 3 + c] = sums[j * 4 + c]! / w;
    }
  }
  // Merge look-alikes (the later entry goes).
  const minD = (opts.minDelta ?? 0.035) ** 2;
  const kept: number[] = [];
  for (let j = 0; j < count; j++) if (kept.every((q) => dist(pal, j, pal, q) >= minD)) kept.push(j);
  const out = new Float32Array(kept.length * 3);
  kept.forEach((j, o) => out.set(pal.subarray(j * 3, j * 3 + 3), o * 3));
  return out;
}

/** Lightness percentiles of OKLab colours (n x 3), optionally only where `use` is set. */
export function lightnessRange(
  lab: Float32Array,
  n: number,
  lo: number,
  hi: number,
  use?: Uint8Array,
): [number, number] {
  const ls: number[] = [];
  for (let i = 0; i < n; i++) if (!use || use[i]) ls.push(lab[i * 3]!);
  if (!ls.length) return [0, 1];
  ls.sort((a, b) => a - b);
  return [ls[Math.floor(lo * (ls.length - 1))]!, ls[Math.floor(hi * (ls.length - 1))]!];
}

/**
 * How colourful a photo is beyond its overall tint: the spread of its chroma around the mean
 * (a, b). A b/w or sepia-toned photo has almost none (its whole tint is the mean); a colour
 * photo has some. Returns the mean tint too.
 */
export function colourSpread(lab: Float32Array, n: number): { spread: number; tintA: number; tintB: number } {
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += lab[i * 3 + 1]!;
    mb += lab[i * 3 + 2]!;
  }
  ma /= n;
  mb /= n;
  let v = 0;
  for (let i = 0; i < n; i++) v += (lab[i * 3 + 1]! - ma) ** 2 + (lab[i * 3 + 2]! - mb) ** 2;
  return { spread: Math.sqrt(v / n), tintA: ma, tintB: mb };
}

/** Below this chroma spread a photo is monochrome (b/w or toned) for the pixel effects. */
export const MONOCHROME_SPREAD = 0.016;

/** Colours given as hex strings ("ff8800") as sRGB bytes. */
export function hexRgb(hexes: readonly string[]): Uint8Array {
  return Uint8Array.from(
    hexes.flatMap((h) => [
      parseInt(h.slice(0, 2), 16),
      parseInt(h.slice(2, 4), 16),
      parseInt(h.slice(4, 6), 16),
    ]),
  );
}

/** A b/w photo's ramp: Endesga 32's cool grey scale, deep navy to white (7 steps). */
export const COOL_RAMP = ["181425", "262b44", "3a4466", "5a6988", "8b9bb4", "c0cbdc", "ffffff"] as const;
/** A sepia or brown-toned photo's ramp: a warm brown scale from the same palette (7 steps). */
export const WARM_RAMP = ["181425", "3e2731", "733e39", "b86f50", "e4a672", "ead4aa", "ffffff"] as const;

/**
 * The deliberate ramp a monochrome photo is drawn with, the way pixel artists shade (hue
 * shifting from cool shadows to light highlights, every step clearly apart in lightness): warm
 * for a sepia or brown tint, cool for a neutral b/w. `match` holds the steps' lightness only
 * (a = b = 0): the step is chosen by lightness, so faint hue noise in the photo picks nothing.
 */
export function monochromeRamp(tintA: number, tintB: number): { match: Float32Array; rgb: Uint8Array } {
  const hexes = Math.hypot(tintA, tintB) > 0.012 ? WARM_RAMP : COOL_RAMP;
  const rgb = hexRgb(hexes);
  const match = labOf(rgb, hexes.length);
  for (let s = 0; s < hexes.length; s++) match[s * 3 + 1] = match[s * 3 + 2] = 0;
  return { match, rgb };
}

/**
 * Lone cells cleaned: a cell none of whose eight neighbours shares its colour takes the colour
 * most of its neighbours have (at least `majority` of them), else the neighbouring colour
 * nearest its own, unless it is a small dark feature
 * (an eye, a nostril, a button: clearly darker than that colour) that the picture needs. Cells
 * in `ignore` (another layer, a backdrop) are neither changed nor counted as neighbours. One pass over the
 * original grid, so the result does not depend on the scan order.
 */
export function cleanLoneCells(
  idx: Uint8Array,
  cols: number,
  rows: number,
  palette: Float32Array,
  opts: { majority?: number; featureDarker?: number; ignore?: Uint8Array } = {},
): Uint8Array {
  const majority = opts.majority ?? 4;
  const featureDarker = opts.featureDarker ?? 0.16;
  const out = Uint8Array.from(idx);
  const counts = new Uint8Array(256);
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < cols; x++) {
      const i = y * cols + x;
      if (opts.ignore?.[i]) continue;
      const own = idx[i]!;
      let same = 0;
      let total = 0;
      const seen: number[] = [];
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          if (!dx && !dy) continue;
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= cols || ny >= rows || opts.ignore?.[ny * cols + nx]) continue;
          const v = idx[ny * cols + nx]!;
          total++;
          if (v === own) same++;
          if (!counts[v]) seen.push(v);
          counts[v]!++;
        }
      let best = own;
      let bestN = 0;
      for (const v of seen) {
        if (counts[v]! > bestN || (counts[v] === bestN && v < best)) {
          bestN = counts[v]!;
          best = v;
        }
        counts[v] = 0;
      }
      if (same > 0 || total < 3) continue;
      // Without a clear majority the cell joins the neighbouring colour nearest its own.
      if (bestN < Math.min(majority, total)) {
        let nearD = Infinity;
        for (const v of seen) {
          const d = dist(palette, v, palette, own);
          if (d < nearD || (d === nearD && v < best)) {
            nearD = d;
            best = v;
          }
        }
      }
      // A small dark feature stays.
      if (palette[best * 3]! - palette[own * 3]! > featureDarker) continue;
      out[i] = best;
    }
  return out;
}

/** The palette's colours as sRGB bytes (k x 3). */
export function paletteRgb(palette: Float32Array): Uint8Array {
  const k = palette.length / 3;
  const out = new Uint8Array(k * 3);
  for (let j = 0; j < k; j++)
    out.set(oklabToRgb(palette[j * 3]!, palette[j * 3 + 1]!, palette[j * 3 + 2]!), j * 3);
  return out;
}

/** Cells (indices into a palette in sRGB bytes) as an RGB grid. */
export function paint(idx: Uint8Array, rgb: Uint8Array): Uint8Array {
  const out = new Uint8Array(idx.length * 3);
  for (let i = 0; i < idx.length; i++) {
    const j = idx[i]! * 3;
    out[i * 3] = rgb[j]!;
    out[i * 3 + 1] = rgb[j + 1]!;
    out[i * 3 + 2] = rgb[j + 2]!;
  }
  return out;
}
