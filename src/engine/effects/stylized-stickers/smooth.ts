import { boxMean } from "../../shared/box-mean";
import type { RawImage } from "../../shared/image-io";
import { erode, type Mask } from "../../shared/mask";
import { oklab, oklabToRgb } from "../../shared/pixel-art";

/**
 * Edge-preserving smoothing before the cartoon's palette (session 11): a self-guided filter
 * (He et al.) per channel, from box means over integral images. Where the photo varies little
 * around a pixel (fur, hair strands, skin pores, an old print's grain and toning) it becomes
 * the local mean; where it varies much more than `eps` (a contour, an eye, a collar's edge) it
 * stays. The palette then finds a few large areas instead of camouflage blotches of texture.
 * Only the subject's pixels (`mask`) are averaged, so no background colour bleeds into its edge.
 */
export function guidedSmooth(img: RawImage, mask: Mask, radius: number, eps: number): RawImage {
  const { width: w, height: h } = img;
  const n = w * h;
  const r = Math.max(1, Math.round(radius));
  const out = Buffer.alloc(n * 3);
  const ch = new Float32Array(n);
  const wch = new Float32Array(n);
  const sq = new Float32Array(n);
  const inside = new Float32Array(n);
  for (let i = 0; i < n; i++) inside[i] = mask.data[i] ? 1 : 0;
  const share = boxMean(inside, w, h, r);
  // A mean over the subject's pixels only of the window.
  const subjectMeans = (v: Float32Array) => {
    const m = boxMean(v, w, h, r);
    for (let i = 0; i < n; i++) m[i] = share[i]! > 0 ? m[i]! / share[i]! : 0;
    return m;
  };
  for (let c = 0; c < 3; c++) {
    for (let i = 0; i < n; i++) {
      const v = img.data[i * 3 + c]!;
      ch[i] = v;
      wch[i] = v * inside[i]!;
      sq[i] = v * v * inside[i]!;
    }
    const mean = subjectMeans(wch);
    const meanSq = subjectMeans(sq);
    // q = a I + b with a = var / (var + eps), b = (1 - a) mean; a and b averaged again.
    const a = new Float32Array(n);
    const b = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const v = Math.max(0, meanSq[i]! - mean[i]! * mean[i]!);
      a[i] = v / (v + eps);
      b[i] = (1 - a[i]!) * mean[i]!;
    }
    for (let i = 0; i < n; i++) {
      a[i] = a[i]! * inside[i]!;
      b[i] = b[i]! * inside[i]!;
    }
    const ma = subjectMeans(a);
    const mb = subjectMeans(b);
    for (let i = 0; i < n; i++) {
      const q = ma[i]! * ch[i]! + mb[i]!;
      out[i * 3 + c] = q < 0 ? 0 : q > 255 ? 255 : Math.round(q);
    }
  }
  return { data: out, width: w, height: h, channels: 3 };
}

/**
 * A faded subject's tones spread over the paper's range (session 11): the subject's 1st to 99th
 * luma percentile mapped linearly onto 12..243 (each pixel's channels moved by its luma's change,
 * so colours keep their chroma), by at most `maxGain`. A sepia or a tarnished print spanning a narrow band of browns then
 * flattens into distinct light, mid and dark areas with ink lines between them instead of one
 * brown blotch; a photo already using most of the range is left as it is.
 */
export function spreadTones(img: RawImage, mask: Mask, maxGain = 1.4): RawImage {
  const n = img.width * img.height;
  const hist = new Uint32Array(256);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (!mask.data[i]) continue;
    const l = 0.299 * img.data[i * 3]! + 0.587 * img.data[i * 3 + 1]! + 0.114 * img.data[i * 3 + 2]!;
    hist[Math.round(l)]!++;
    count++;
  }
  if (!count) return img;
  const at = (p: number) => {
    let s = 0;
    for (let v = 0; v < 256; v++) if ((s += hist[v]!) >= p * count) return v;
    return 255;
  };
  const lo = at(0.01);
  const hi = at(0.99);
  const gain = Math.min(maxGain, 231 / Math.max(1, hi - lo));
  if (gain <= 1.05) return img;
  // A band spread less than fully keeps its place: a bright print stays bright, a dark one dark.
  const spare = 231 - (hi - lo) * gain;
  const start = 12 + (spare * lo) / Math.max(1, lo + 255 - hi);
  const out = Buffer.alloc(n * 3);
  for (let i = 0; i < n; i++) {
    const r = img.data[i * 3]!;
    const g = img.data[i * 3 + 1]!;
    const b = img.data[i * 3 + 2]!;
    const l = 0.299 * r + 0.587 * g + 0.114 * b;
    // Every channel moved by the luma's change: the lightness spreads, the colour does not grow.
    const shift = (l - lo) * gain + start - l;
    for (let c = 0; c < 3; c++) {
      const v = img.data[i * 3 + c]! + shift;
      out[i * 3 + c] = v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
    }
  }
  return { data: out, width: img.width, height: img.height, channels: 3 };
}

/** OKLab a and b of an RGB colour, cached per 6-bit-per-channel cell (the smoothed photo's
 * colours repeat; an area's median needs no finer colour). */
const abTable = new Float32Array(2 << 18).fill(NaN);
function abOf(r: number, g: number, b: number): readonly [number, number] {
  const cell = ((r >> 2) << 12) | ((g >> 2) << 6) | (b >> 2);
  if (Number.isNaN(abTable[cell * 2])) {
    const v = oklab((r & ~3) + 2, (g & ~3) + 2, (b & ~3) + 2);
    abTable[cell * 2] = v[1];
    abTable[cell * 2 + 1] = v[2];
  }
  return [abTable[cell * 2]!, abTable[cell * 2 + 1]!];
}

/** OKLab chroma over lightness (a saturation) under which an area is pulled towards grey. */
const NEUTRAL = 0.1;
/** The same for the warm hues of hair, skin, wood and leather (session 11 fix): a muted copper
 * or ash-blonde is a material's colour, not a camera's cast, and is pulled only below this. */
const NEUTRAL_WARM = 0.035;
/** OKLab chroma is rounded to this step and hue to `HUE_STEP` degrees (polar, so a small
 * chroma keeps its hue: rounding a and b on a square grid turned a muted copper's 21 degrees
 * into 0, a mauve grey, and an ash-blonde's 82 into 90, an olive). */
const CHROMA_STEP = 0.01;
const HUE_STEP = 5;

/** How much a hue (degrees) belongs to the warm family (reds-oranges to yellows), 0..1. */
const warmth = (hue: number) => {
  const h = ((hue % 360) + 360) % 360;
  if (h >= 15 && h <= 95) return 1;
  if (h > 95) return Math.max(0, 1 - (h - 95) / 15);
  return Math.max(0, 1 - Math.min(15 - h, h + 360 - 15) / 15);
};

/**
 * An area's colour (a, b) made flat-cartoon ready: near-greys of a cool or purple cast (grey
 * fur, a charcoal suit under sky light) drawn greyer still, warm materials (hair, skin, wood)
 * kept in hue and chroma, clear colours `boost` richer; rounded in chroma and hue so areas of
 * nearly one colour share it exactly. Exported for tests.
 */
export function areaColour(
  L: number,
  a: number,
  b: number,
  boost = 1.2,
  palette?: readonly [number, number],
): [number, number] {
  let C = Math.hypot(a, b);
  if (C < 1e-6) return [0, 0];
  let hue = (Math.atan2(b, a) * 180) / Math.PI;
  const w = warmth(hue);
  if (palette && w > 0) {
    // A warm material (hair, skin, wood) whose palette colour is of a near hue: the palette
    // entry is the centre of all such pixels of the subject (its whole copper bob, graded a
    // little richer), the area's median only this patch, dulled by strands over the sky or a
    // sheen. Its hue is met halfway and its chroma not lowered below the palette's.
    const pc = Math.hypot(palette[0], palette[1]);
    const ph = (Math.atan2(palette[1], palette[0]) * 180) / Math.PI;
    const d = ((ph - hue + 540) % 360) - 180;
    if (pc / Math.max(0.2, L) >= NEUTRAL && warmth(ph) > 0 && Math.abs(d) < 40) {
      hue += d * 0.5 * w;
      C = Math.max(C, (pc / boost) * w + C * (1 - w));
    }
  }
  // Dark near-greys (a charcoal suit in warm light) are not a material's colour: only from
  // a mid lightness up, and not near white (white fur or paper stays white, not cream), is
  // a muted warm hue kept.
  const mid = Math.min(1, Math.max(0, (L - 0.35) / 0.15), Math.max(0, (0.92 - L) / 0.1));
  const neutral = NEUTRAL + (NEUTRAL_WARM - NEUTRAL) * w * mid;
  const gain = boost * Math.max(0.35, Math.min(1, C / Math.max(0.2, L) / neutral));
  const c = Math.round((C * gain) / CHROMA_STEP) * CHROMA_STEP;
  const hq = (Math.round(hue / HUE_STEP) * HUE_STEP * Math.PI) / 180;
  return [c * Math.cos(hq), c * Math.sin(hq)];
}

/**
 * Every flat area of the cartoon in its own photo colour (session 11): the palette is shared
 * by the whole subject, so a grey raccoon's fur takes a violet entry and a cat's green eyes a
 * brown one. Each connected area of one palette colour keeps its lightness (the cel shading)
 * and takes the median OKLab colour (a, b) of the photo under it, a little richer (`boost`);
 * a nearly grey area (saturation under `NEUTRAL`; dark brown hair is not grey) keeps as little
 * as a third of its chroma (a camera's cast or a leaf's green reflected in grey fur).
 * Ink (`ink`) and pixels outside `mask` are left as they are. In place.
 */
export function trueColours(
  cartoon: RawImage,
  photo: RawImage,
  mask: Mask,
  ink: readonly [number, number, number],
  boost = 1.2,
): void {
  const { width: w, height: h } = cartoon;
  const n = w * h;
  // Each pixel's palette colour as one number; -1 outside the subject and on ink.
  const inkKey = (ink[0] << 16) | (ink[1] << 8) | ink[2];
  const keys = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const k = (cartoon.data[i * 3]! << 16) | (cartoon.data[i * 3 + 1]! << 8) | cartoon.data[i * 3 + 2]!;
    keys[i] = mask.data[i] && k !== inkKey ? k : -1;
  }
  const label = new Int32Array(n).fill(-1);
  const stack = new Int32Array(n);
  const sizes: number[] = [];
  let count = 0;
  const minArea = Math.max(16, n * 0.0004);
  for (let start = 0; start < n; start++) {
    const k = keys[start]!;
    if (label[start]! >= 0 || k < 0) continue;
    let top = 0;
    stack[top++] = start;
    label[start] = count;
    let size = 0;
    while (top) {
      const p = stack[--top]!;
      size++;
      const x = p % w;
      // The four neighbours of one palette colour join the area.
      let q = p - 1;
      if (x > 0 && label[q]! < 0 && keys[q] === k) {
        label[q] = count;
        stack[top++] = q;
      }
      q = p + 1;
      if (x < w - 1 && label[q]! < 0 && keys[q] === k) {
        label[q] = count;
        stack[top++] = q;
      }
      q = p - w;
      if (q >= 0 && label[q]! < 0 && keys[q] === k) {
        label[q] = count;
        stack[top++] = q;
      }
      q = p + w;
      if (q < n && label[q]! < 0 && keys[q] === k) {
        label[q] = count;
        stack[top++] = q;
      }
    }
    sizes.push(size);
    count++;
  }
  // Each area's median a and b (a see-through edge's mix, a reflection, do not pull it).
  const startAt = new Int32Array(count + 1);
  for (let c = 0; c < count; c++) startAt[c + 1] = startAt[c]! + sizes[c]!;
  const fill = Int32Array.from(startAt.subarray(0, count));
  const va = new Float32Array(startAt[count]!);
  const vb = new Float32Array(startAt[count]!);
  for (let i = 0; i < n; i++) {
    const c = label[i]!;
    if (c < 0) continue;
    const at = fill[c]!++;
    const [a, b] = abOf(photo.data[i * 3]!, photo.data[i * 3 + 1]!, photo.data[i * 3 + 2]!);
    va[at] = a;
    vb[at] = b;
  }
  const sums: number[] = [];
  for (let c = 0; c < count; c++) {
    // A speck keeps the palette's colour (its median says little, and the look stays flat).
    if (sizes[c]! < minArea) {
      sums.push(NaN, NaN);
      continue;
    }
    const mid = (v: Float32Array) => {
      const part = v.subarray(startAt[c]!, startAt[c + 1]!).sort();
      return part[part.length >> 1]!;
    };
    sums.push(mid(va), mid(vb));
  }
  // One colour per area (all its pixels share the palette colour `k`).
  const colours: Array<[number, number, number] | undefined> = new Array(count);
  for (let i = 0; i < n; i++) {
    const c = label[i]!;
    if (c < 0 || Number.isNaN(sums[c * 2])) continue;
    let rgb = colours[c];
    if (!rgb) {
      const k = keys[i]!;
      const [L, pa, pb] = oklab(k >> 16, (k >> 8) & 255, k & 255);
      const a = sums[c * 2]!;
      const b = sums[c * 2 + 1]!;
      // Near-greys (fur, a suit, an old print's paper) are drawn greyer still, not tinted by
      // a camera's cast; warm materials keep theirs; clear colours a little richer.
      const [qa, qb] = areaColour(L, a, b, boost, [pa, pb]);
      rgb = oklabToRgb(L, qa, qb).map((v) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v))) as [
        number,
        number,
        number,
      ];
      colours[c] = rgb;
    }
    cartoon.data[i * 3] = rgb[0];
    cartoon.data[i * 3 + 1] = rgb[1];
    cartoon.data[i * 3 + 2] = rgb[2];
  }
}

/**
 * The cut-out's outer band (`band` pixels inside its edge) in the colours just inside it
 * (session 11): a matte's edge holds a mix of subject and background (sky blue in red hair, a
 * green leaf's tint on grey fur), which the palette would keep as a coloured fringe along the
 * die-cut line. Filled ring by ring from the inside, each pixel the mean of its filled
 * neighbours.
 */
export function defringe(img: RawImage, mask: Mask, band: number): RawImage {
  const { width: w, height: h } = img;
  const n = w * h;
  const inner = erode(mask, Math.max(1, Math.round(band)));
  const filled = new Uint8Array(n);
  for (let i = 0; i < n; i++) filled[i] = inner.data[i] ? 1 : 0;
  const out = Buffer.from(img.data);
  let todo: number[] = [];
  for (let i = 0; i < n; i++) if (mask.data[i] && !filled[i]) todo.push(i);
  while (todo.length) {
    const ring: number[] = [];
    const rest: number[] = [];
    for (const i of todo) {
      const x = i % w;
      let k = 0;
      const sum = [0, 0, 0];
      for (const j of [
        x > 0 ? i - 1 : -1,
        x < w - 1 ? i + 1 : -1,
        i >= w ? i - w : -1,
        i + w < n ? i + w : -1,
      ])
        if (j >= 0 && filled[j]) {
          for (let c = 0; c < 3; c++) sum[c] = sum[c]! + out[j * 3 + c]!;
          k++;
        }
      if (!k) {
        rest.push(i);
        continue;
      }
      ring.push(i);
      for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(sum[c]! / k);
    }
    if (!ring.length) break; // a sliver thinner than the band: left as it is
    for (const i of ring) filled[i] = 1;
    todo = rest;
  }
  return { ...img, data: out };
}
