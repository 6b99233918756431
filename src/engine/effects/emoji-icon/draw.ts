import sharp from "sharp";
import type { Face } from "../../vision/human";
import type { RawImage } from "../../shared/image-io";
import { labOf, oklabToRgb } from "../../shared/pixel-art";
import { PRINT_SKIN_HUE, printTone } from "../../shared/print-ramp";
import type { Glasses } from "../../shared/pixel-face";
import { fillHoles, fillPolygon, forEachInPolygon, type Mask } from "../../shared/mask";
import { components } from "../../shared/components";
import { MIN_PROPORTION, minorSignals } from "../../vision/minor-signal";
import {
  MESH_BROWS,
  MESH_EYES,
  MESH_LIP_LOWER_INNER,
  MESH_LIPS_OUTER,
  MESH_MOUTH_LINE,
  MESH_OVAL,
} from "../../shared/mesh-parts";

/**
 * The emoji itself, drawn rather than posterised: a rounded face from the mesh and the hair as
 * one smoothed mass (session 11), a cap and a beard when there are, each one flat colour read
 * off the photo with one clean shade crescent, its alpha the head's silhouette; then the
 * features drawn from the face mesh as clean vector shapes (eyes with whites, iris and pupil,
 * brows, a nose hint, the mouth with the photo's expression, glasses as clean frames, cheek
 * blush), every colour taken from the photo; a b/w or toned print is hand-coloured (peach
 * skin, brown hair). Everything is drawn at twice the icon's size and scaled down, so every
 * edge is anti-aliased.
 */

type Pt = [number, number];
type Lab = [number, number, number];

export interface IconFace {
  /** The icon's photo (3 channels) and the head's cut-out (0/1), both `side` x `side`. */
  rgb: RawImage;
  shape: Uint8Array;
  /** Pixels of the icon that came from the photo (1) rather than beyond its edge (0). */
  inPhoto: Uint8Array;
  /** The face, its mesh and glasses mapped into the icon's pixels. */
  face: Face;
  glasses: Glasses | null;
}

export const INK: Lab = [0.22, 0.025, 0.0];
/** A channel at or above this on the small copy is clipped (a highlight): not skin's colour. */
const CLIPPED = 246;
/** The skin's areas, as face-mesh points: each cheek (below the eye, beside the nose) and the
 * forehead. */
const SKIN_CHEEK_L = [50, 205, 117, 187, 101];
const SKIN_CHEEK_R = [280, 425, 346, 411, 330];
const SKIN_FOREHEAD = [151, 9, 108, 337];
const clamp = (v: number, a: number, b: number) => Math.min(b, Math.max(a, v));
const hex = (lab: Lab) =>
  "#" +
  oklabToRgb(lab[0], lab[1], lab[2])
    .map((c) =>
      Math.round(clamp(c, 0, 255))
        .toString(16)
        .padStart(2, "0"),
    )
    .join("");
const f = (v: number) => v.toFixed(1);
const lerp = (a: Pt, b: Pt, t: number): Pt => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
const dist = (a: Pt, b: Pt) => Math.hypot(b[0] - a[0], b[1] - a[1]);
const quantile = (v: number[], q: number) => {
  if (!v.length) return NaN;
  const s = [...v].sort((a, b) => a - b);
  return s[clamp(Math.floor(s.length * q), 0, s.length - 1)]!;
};
const median = (v: number[]) => quantile(v, 0.5);

/** A smooth closed path through points (Catmull-Rom as cubic Béziers). */
function smoothClosed(ps: Pt[]): string {
  const n = ps.length;
  let d = `M${f(ps[0]![0])},${f(ps[0]![1])}`;
  for (let i = 0; i < n; i++) {
    const p0 = ps[(i - 1 + n) % n]!;
    const p1 = ps[i]!;
    const p2 = ps[(i + 1) % n]!;
    const p3 = ps[(i + 2) % n]!;
    const c1: Pt = [p1[0] + (p2[0] - p0[0]) / 6, p1[1] + (p2[1] - p0[1]) / 6];
    const c2: Pt = [p2[0] - (p3[0] - p1[0]) / 6, p2[1] - (p3[1] - p1[1]) / 6];
    d += ` C${f(c1[0])},${f(c1[1])} ${f(c2[0])},${f(c2[1])} ${f(p2[0])},${f(p2[1])}`;
  }
  return d + " Z";
}

/** A smooth open path through points. */
function smoothOpen(ps: Pt[]): string {
  let d = `M${f(ps[0]![0])},${f(ps[0]![1])}`;
  for (let i = 0; i + 1 < ps.length; i++) {
    const p0 = ps[Math.max(0, i - 1)]!;
    const p1 = ps[i]!;
    const p2 = ps[i + 1]!;
    const p3 = ps[Math.min(ps.length - 1, i + 2)]!;
    const c1: Pt = [p1[0] + (p2[0] - p0[0]) / 6, p1[1] + (p2[1] - p0[1]) / 6];
    const c2: Pt = [p2[0] - (p3[0] - p1[0]) / 6, p2[1] - (p3[1] - p1[1]) / 6];
    d += ` C${f(c1[0])},${f(c1[1])} ${f(c2[0])},${f(c2[1])} ${f(p2[0])},${f(p2[1])}`;
  }
  return d;
}

/** Separable box blur of a float plane, radius r, repeated twice (close to a Gaussian). */
function blurPlane(src: Float32Array, w: number, h: number, r: number): Float32Array {
  let a = src;
  const tmp = new Float32Array(w * h);
  for (let pass = 0; pass < 2; pass++) {
    const out = new Float32Array(w * h);
    for (let y = 0; y < h; y++) {
      let s = 0;
      for (let x = -r; x <= r; x++) s += a[y * w + clamp(x, 0, w - 1)]!;
      for (let x = 0; x < w; x++) {
        tmp[y * w + x] = s / (2 * r + 1);
        s += a[y * w + Math.min(w - 1, x + r + 1)]! - a[y * w + Math.max(0, x - r)]!;
      }
    }
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let y = -r; y <= r; y++) s += tmp[clamp(y, 0, h - 1) * w + x]!;
      for (let y = 0; y < h; y++) {
        out[y * w + x] = s / (2 * r + 1);
        s += tmp[Math.min(h - 1, y + r + 1) * w + x]! - tmp[Math.max(0, y - r) * w + x]!;
      }
    }
    a = out;
  }
  return a;
}

/** Median OKLab colour of the pixels inside a polygon (optionally only the darkest share). */
function sampleLab(lab: Float32Array, w: number, h: number, poly: Pt[], darkest = 1): Lab | null {
  const px: Lab[] = [];
  forEachInPolygon(poly, w, h, (x, y) => {
    const i = (y * w + x) * 3;
    px.push([lab[i]!, lab[i + 1]!, lab[i + 2]!]);
  });
  if (px.length < 3) return null;
  px.sort((a, b) => a[0] - b[0]);
  const keep = px.slice(0, Math.max(3, Math.round(px.length * darkest)));
  return [median(keep.map((p) => p[0])), median(keep.map((p) => p[1])), median(keep.map((p) => p[2]))];
}

/** 2-means on OKLab samples: the centres and the share of the first. */
function twoMeans(px: Lab[]): { a: Lab; b: Lab; shareA: number } {
  px.sort((p, q) => p[0] - q[0]);
  let a: Lab = [...px[Math.floor(px.length * 0.2)]!];
  let b: Lab = [...px[Math.floor(px.length * 0.8)]!];
  let shareA = 0.5;
  for (let it = 0; it < 8; it++) {
    const sa = [0, 0, 0, 0];
    const sb = [0, 0, 0, 0];
    for (const p of px) {
      const s = dE(p, a) <= dE(p, b) ? sa : sb;
      s[0]! += p[0];
      s[1]! += p[1];
      s[2]! += p[2];
      s[3]! += 1;
    }
    if (sa[3]) a = [sa[0]! / sa[3], sa[1]! / sa[3], sa[2]! / sa[3]];
    if (sb[3]) b = [sb[0]! / sb[3], sb[1]! / sb[3], sb[2]! / sb[3]];
    shareA = sa[3]! / px.length;
  }
  return { a, b, shareA };
}

function dE(p: Lab, q: Lab): number {
  return Math.hypot((p[0] - q[0]) * 0.8, (p[1] - q[1]) * 1.4, (p[2] - q[2]) * 1.4);
}

export interface DrawnIcon {
  /** RGBA at twice the icon's size, before the outline; its alpha is the head's silhouette. */
  rgba: Buffer;
  side: number;
  /** Where the blush was put (icon pixels): the cheek centres, for checking. */
  blush: Pt[];
  /** The flat colours of the face's regions. */
  palette: Lab[];
}

/** Draws the emoji of `icon` (analysed at its own size) at `outSide` pixels square. */
export async function drawEmoji(icon: IconFace, outSide: number): Promise<DrawnIcon> {
  const { rgb, shape, inPhoto, face } = icon;
  const W = rgb.width;
  const H = rgb.height;
  const n = W * H;
  const at = (k: number): Pt => [face.mesh[k]![0], face.mesh[k]![1]];
  const left = at(234);
  const right = at(454);
  const fw = Math.max(dist(left, right), face.box[2] * 0.6);
  const top = at(10);
  const chin = at(152);
  const upLen = dist(top, chin) || 1;
  const up: Pt = [(top[0] - chin[0]) / upLen, (top[1] - chin[1]) / upLen];
  const across: Pt = [-up[1], up[0]];
  const rawLab = labOf(rgb.data, n);
  let inside = 0;
  for (let i = 0; i < n; i++) inside += shape[i]!;
  const shapeLab = new Float32Array(inside * 3);
  for (let i = 0, j = 0; i < n; i++)
    if (shape[i]) {
      shapeLab[j++] = rawLab[i * 3]!;
      shapeLab[j++] = rawLab[i * 3 + 1]!;
      shapeLab[j++] = rawLab[i * 3 + 2]!;
    }
  // A b/w or toned print: the head and the whole cut square (session 11, second pass: a
  // dark-skinned, dark-haired head is nearly one warm hue by itself, and was hand-coloured as a
  // print, peach; the square's backdrop and clothes show a colour photo).
  let inCrop = 0;
  for (let i = 0; i < n; i++) inCrop += inPhoto[i]!;
  const cropLab = new Float32Array(inCrop * 3);
  for (let i = 0, j = 0; i < n; i++)
    if (inPhoto[i]) {
      cropLab[j++] = rawLab[i * 3]!;
      cropLab[j++] = rawLab[i * 3 + 1]!;
      cropLab[j++] = rawLab[i * 3 + 2]!;
    }
  const print = printTone(cropLab, inCrop) ? printTone(shapeLab, inside) : null;
  // Smoothed photo for region colours: texture, dust and scratches gone.
  const r = Math.max(2, Math.round(fw * 0.02));
  const lab = new Float32Array(n * 3);
  for (let c = 0; c < 3; c++) {
    const plane = new Float32Array(n);
    for (let i = 0; i < n; i++) plane[i] = rawLab[i * 3 + c]!;
    const b = blurPlane(plane, W, H, r);
    for (let i = 0; i < n; i++) lab[i * 3 + c] = b[i]!;
  }

  // The face's outline: the mesh's oval grown a little from its centre.
  const ovalRaw = MESH_OVAL.map(at);
  const oc: Pt = [
    ovalRaw.reduce((s, p) => s + p[0], 0) / ovalRaw.length,
    ovalRaw.reduce((s, p) => s + p[1], 0) / ovalRaw.length,
  ];
  const oval = ovalRaw.map((p) => lerp(oc, p, 1.04));
  const polyMask = (poly: Pt[]) => {
    const m: Mask = { data: new Uint8Array(n), width: W, height: H };
    fillPolygon(m, poly);
    return m;
  };
  const ovalMask = polyMask(oval);
  // Near the face: inside the oval grown by a seventh of the face's width.
  const nearMask = polyMask(ovalRaw.map((p) => lerp(oc, p, 1.04 + (0.14 * fw) / Math.max(1, dist(oc, p)))));
  const browMid = lerp(at(105), at(334), 0.5);

  // The skin as the regions' tests see it (hair, cap, beard, the mouth's inside): the cheeks and
  // forehead, hue the median, lightness the 65th percentile, clipped pixels included. Not the
  // drawn colour (below).
  const skinPx: Lab[] = [];
  for (const k of [50, 280, 205, 425, 151, 9, 108, 337, 117, 346]) {
    const [cx, cy] = at(k);
    const rr = fw * 0.035;
    for (let y = Math.floor(cy - rr); y <= cy + rr; y++)
      for (let x = Math.floor(cx - rr); x <= cx + rr; x++) {
        if (x < 0 || y < 0 || x >= W || y >= H || !inPhoto[y * W + x]) continue;
        const i = (y * W + x) * 3;
        skinPx.push([rawLab[i]!, rawLab[i + 1]!, rawLab[i + 2]!]);
      }
  }
  const skinPhoto: Lab = skinPx.length
    ? [
        quantile(
          skinPx.map((p) => p[0]),
          0.65,
        ),
        median(skinPx.map((p) => p[1])),
        median(skinPx.map((p) => p[2])),
      ]
    : [0.75, 0.04, 0.05];

  // Skin (session 11, second pass): read on three areas, each cheek and the forehead, away
  // from eyes, brows and mouth, from the pixels the camera did not clip (a channel at 246 or
  // more: a flash's highlight there is pink-white whatever the skin, and drew brown skin
  // pink-white). The lit area (the highest median of those with enough unclipped pixels) gives
  // the lightness, the median of its pixels: lit, not a highlight, not the shadowed side. The
  // hue and chroma are the median of the lit pixels of all three.
  const areaPx = (ks: number[], keepClipped = false): Lab[] => {
    const px: Lab[] = [];
    const rr = fw * 0.035;
    for (const k of ks) {
      const [cx, cy] = at(k);
      for (let y = Math.floor(cy - rr); y <= cy + rr; y++)
        for (let x = Math.floor(cx - rr); x <= cx + rr; x++) {
          if (x < 0 || y < 0 || x >= W || y >= H || !inPhoto[y * W + x]) continue;
          const i = (y * W + x) * 3;
          if (!keepClipped && Math.max(rgb.data[i]!, rgb.data[i + 1]!, rgb.data[i + 2]!) >= CLIPPED) continue;
          px.push([rawLab[i]!, rawLab[i + 1]!, rawLab[i + 2]!]);
        }
    }
    return px;
  };
  const minPx = Math.max(12, (fw * 0.035) ** 2 * 1.5);
  const skinAreas = [SKIN_CHEEK_L, SKIN_CHEEK_R, SKIN_FOREHEAD];
  let usable = skinAreas.map((ks) => areaPx(ks)).filter((a) => a.length >= minPx);
  // a face clipped all over: its pixels as they are
  if (!usable.length) usable = skinAreas.map((ks) => areaPx(ks, true)).filter((a) => a.length >= minPx);
  const areaL = (a: Lab[]) => median(a.map((p) => p[0]));
  const litArea = usable.length ? usable.reduce((b, a) => (areaL(a) > areaL(b) ? a : b)) : null;
  const litL = litArea ? areaL(litArea) : 0;
  // Lit pixels of every usable area: at or above a tenth below the lit area's lightness.
  const litPx = usable.flat().filter((p) => p[0] >= litL - 0.1);
  const skinLit: Lab = litArea
    ? [litL, median(litPx.map((p) => p[1])), median(litPx.map((p) => p[2]))]
    : [0.75, 0.04, 0.05];

  // The face frame: "up" from the eyes' line, "across" from the eyes' middle.
  const eyeMid = lerp(at(33), at(263), 0.5);
  const upOf = (x: number, y: number) => (x - eyeMid[0]) * up[0] + (y - eyeMid[1]) * up[1];
  const acOf = (x: number, y: number) => (x - eyeMid[0]) * across[0] + (y - eyeMid[1]) * across[1];
  const chinUp = upOf(chin[0], chin[1]);
  const topUp = upOf(top[0], top[1]);
  const browUp = upOf(browMid[0], browMid[1]);
  const faceL = Math.min(acOf(left[0], left[1]), acOf(right[0], right[1]));
  const faceR = Math.max(acOf(left[0], left[1]), acOf(right[0], right[1]));

  // Hair colour bands (session 11): the cut-out beyond the face, above the mid-cheek, not of the
  // skin's colour. Its top (above the forehead) and its sides (beside the eyes and cheeks) are
  // read apart: a top clearly unlike the sides is headwear (a cap over white hair).
  const topPx: Lab[] = [];
  const sidePx: Lab[] = [];
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (!shape[i] || !inPhoto[i] || ovalMask.data[i]) continue;
      const u = upOf(x, y);
      if (u < chinUp * 0.45) continue;
      const p: Lab = [rawLab[i * 3]!, rawLab[i * 3 + 1]!, rawLab[i * 3 + 2]!];
      const sm: Lab = [lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!];
      if (dE(sm, skinPhoto) < 0.08) continue;
      if (u > topUp + fw * 0.04) topPx.push(p);
      else if (u < topUp - fw * 0.1) sidePx.push(p);
    }
  const medLab = (px: Lab[]): Lab => [
    median(px.map((p) => p[0])),
    median(px.map((p) => p[1])),
    median(px.map((p) => p[2])),
  ];
  /** The hair's colour: median lightness, hue from the more colourful half unless dark. */
  const hairOf = (px: Lab[]): Lab => {
    const rich = [...px].sort((p, q) => Math.hypot(q[1], q[2]) - Math.hypot(p[1], p[2]));
    const half = rich.slice(0, Math.ceil(rich.length / 2));
    // the lit strands' lightness for coloured hair (the median is the shadowed strands')
    const L0 = median(px.map((p) => p[0]));
    const L =
      L0 > 0.4
        ? quantile(
            px.map((p) => p[0]),
            0.6,
          )
        : L0;
    const t = clamp((L - 0.3) / 0.15, 0, 1);
    const a0 = median(px.map((p) => p[1]));
    const b0 = median(px.map((p) => p[2]));
    return [L, a0 + (median(half.map((p) => p[1])) - a0) * t, b0 + (median(half.map((p) => p[2])) - b0) * t];
  };
  // The hair's colour from its lit top (the sides are shadowed, and hold the backdrop's edge);
  // headwear when the band splits in two clearly different colours, the top mostly one and
  // the sides mostly the other.
  let hairA: Lab = [Math.min(0.35, skinPhoto[0] - 0.3), 0.02, 0.03];
  let cap: Lab | null = null;
  const all = [...topPx, ...sidePx];
  if (!print && topPx.length > 30 && sidePx.length > 30) {
    const { a, b } = twoMeans([...all]);
    const nearA = (p: Lab) => dE(p, a) <= dE(p, b);
    const topA = topPx.filter(nearA).length / topPx.length;
    const sideA = sidePx.filter(nearA).length / sidePx.length;
    const [capC, hairC, topShare, sideShare] =
      topA >= 0.5 ? [a, b, topA, 1 - sideA] : [b, a, 1 - topA, sideA];
    // the sides' colour must be a hair's: not a bright backdrop the matte let in
    const hairC0 = Math.hypot(hairC[1], hairC[2]);
    const hairLike = hairC0 < 0.09 && (hairC0 < 0.065 || dE(hairC, skinPhoto) > 0.15);
    if (hairLike && dE(capC, hairC) > 0.3 && topShare > 0.7 && sideShare > 0.4) {
      cap = medLab(all.filter((p) => dE(p, capC) <= dE(p, hairC)));
      hairA = hairOf(all.filter((p) => dE(p, hairC) < dE(p, capC)));
    }
  }
  if (!cap && all.length > 20) hairA = hairOf(topPx.length > 50 ? topPx : all);

  // Colours drawn: the photo's, a little brighter and richer (a cartoon's); a print's
  // hand-coloured (peach skin in the print's lightness, brown hair).
  // The skin (session 11, second pass): its own lightness, only light skin lifted a little (up
  // to 0.04, a cartoon's brightness; the old lift with a floor of 0.62 drew dark skin light),
  // its hue kept among skin's (orange-red to yellow: 42 to 80 degrees; a warm flash's cast drew
  // brown skin pink), pale skin's chroma its own (a boost drew it tan).
  const skinL = clamp(skinLit[0] + 0.04 * clamp((skinLit[0] - 0.6) / 0.2, 0, 1), 0.2, 0.92);
  const skinC = Math.hypot(skinLit[1], skinLit[2]) * (skinLit[0] > 0.72 ? 1.0 : 1.1);
  const skinHue = clamp(Math.atan2(skinLit[2], skinLit[1]), (42 * Math.PI) / 180, (80 * Math.PI) / 180);
  const skin: Lab = print
    ? [clamp(skinPhoto[0] * 0.8 + 0.2, 0.74, 0.86), PRINT_SKIN_HUE[0] * 1.3, PRINT_SKIN_HUE[1] * 1.3]
    : [skinL, skinC * Math.cos(skinHue), skinC * Math.sin(skinHue)];
  const hairTone = (h: Lab): Lab => {
    if (print) return [clamp(h[0] * 0.9, 0.25, 0.75), 0.02 + 0.01 * h[0], 0.035 + 0.03 * h[0]];
    const L = clamp(h[0] * 1.08 + 0.03, 0.18, 0.94);
    let C = Math.hypot(h[1], h[2]);
    let hue = Math.atan2(h[2], h[1]);
    // Coloured hair (not dark, not grey): richer, and its hue kept among hair's (red-orange to
    // golden): a greenish photo cast drew honey blonde khaki.
    if (h[0] > 0.76)
      C = Math.min(C, 0.03); // white and grey hair stay white
    else if (h[0] > 0.35 && C > 0.025) {
      C = Math.min(0.2, C * 1.45);
      hue = clamp(hue, (25 * Math.PI) / 180, (78 * Math.PI) / 180);
    }
    return [L, C * Math.cos(hue), C * Math.sin(hue)];
  };
  const hairCol = hairTone(hairA);
  const capCol: Lab | null = cap ? [clamp(cap[0], 0.15, 0.85), cap[1] * 1.2, cap[2] * 1.2] : null;
  const shade: Lab = [skin[0] - 0.07, skin[1] + 0.01, skin[2] + 0.006];

  // The hair mass (session 11): the cut-out beyond the face above the chin, hair-coloured
  // below the brows; below the eyes no wider than the hair at the eyes (a background lump
  // the matte joined to the head is dropped); then smoothed into one rounded shape attached
  // to the face. A fringe: hair-coloured pixels high on the forehead, joined to the rest.
  const hairTarget: Lab = hairA;
  const isHairColour = (p: Lab) => {
    const dh = Math.min(dE(p, hairTarget), cap ? dE(p, cap) : Infinity);
    return dh < dE(p, skinPhoto) && dE(p, skinPhoto) > 0.06;
  };
  let eL = Infinity;
  let eR = -Infinity;
  const raw0 = new Uint8Array(n);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (!shape[i] || !inPhoto[i]) continue;
      const u = upOf(x, y);
      if (u < chinUp + fw * 0.05) continue;
      const p: Lab = [lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!];
      if (ovalMask.data[i]) {
        if (u > browUp + fw * 0.12 && isHairColour(p) && dE(p, skinPhoto) > 0.1) raw0[i] = 1;
        continue;
      }
      // below the eyes, clearly the hair's colour (an ear in shadow is not hair)
      const sure = u > 0 || dE(p, hairTarget) < 0.6 * dE(p, skinPhoto);
      if (u > browUp || (isHairColour(p) && sure)) {
        raw0[i] = 1;
        if (Math.abs(u) < fw * 0.06) {
          const a = acOf(x, y);
          eL = Math.min(eL, a);
          eR = Math.max(eR, a);
        }
      }
    }
  if (!Number.isFinite(eL)) {
    eL = faceL;
    eR = faceR;
  }
  const loL = Math.min(eL, faceL) - fw * 0.04;
  const loR = Math.max(eR, faceR) + fw * 0.04;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (!raw0[i] || upOf(x, y) >= 0) continue;
      const a = acOf(x, y);
      if (a < loL || a > loR) raw0[i] = 0;
    }
  // Each side: hair falling beside the face (it fills the cut-out next to the face at the
  // eyes) is kept below the eyes; otherwise (an ear, short hair) what the cut-out has beside
  // the jaw (an ear in shadow, a dark backdrop) is not hair.
  let shortSides = 0;
  for (const sgn of [-1, 1]) {
    let box = 0;
    let got = 0;
    const edge = sgn < 0 ? -faceL : faceR;
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        const u = upOf(x, y);
        const a = sgn * acOf(x, y);
        if (Math.abs(u) > fw * 0.08 || a < edge || a > edge + fw * 0.1) continue;
        box++;
        got += raw0[i]!;
      }
    if (box > 0 && got < box * 0.5) shortSides++;
    if (box > 0 && got < box * 0.5)
      for (let y = 0; y < H; y++)
        for (let x = 0; x < W; x++) {
          const i = y * W + x;
          if (raw0[i] && !ovalMask.data[i] && upOf(x, y) < -fw * 0.04 && sgn * acOf(x, y) > 0) raw0[i] = 0;
        }
  }
  const hairR = Math.max(2, Math.round(fw * 0.05));
  const blurMask = (m: Uint8Array, rr: number) =>
    blurPlane(
      Float32Array.from(m, (v) => v),
      W,
      H,
      rr,
    );
  let hairBin = Uint8Array.from(blurMask(raw0, hairR), (v) => (v > 0.5 ? 1 : 0));
  {
    // only the parts touching the face's neighbourhood: no stray islands
    const { labels: comp, count } = components(hairBin, W, H);
    const keep = new Uint8Array(count + 1);
    const area = new Float64Array(count + 1);
    for (let i = 0; i < n; i++) if (hairBin[i]) area[comp[i]!] = area[comp[i]!]! + 1;
    for (let i = 0; i < n; i++)
      if (hairBin[i] && nearMask.data[i] && area[comp[i]!]! > fw * fw * 0.03) keep[comp[i]!] = 1;
    hairBin = Uint8Array.from(hairBin, (v, i) => (v && keep[comp[i]!] ? 1 : 0));
    // holes in the hair (not the face) filled
    const both = { data: Uint8Array.from(hairBin, (v, i) => v | ovalMask.data[i]!), width: W, height: H };
    const filled = fillHoles(both);
    for (let i = 0; i < n; i++) if (filled.data[i] && !ovalMask.data[i]) hairBin[i] = 1;
  }
  // A cap: the head above a line across the forehead where the top's colour ends.
  let capBin: Uint8Array | null = null;
  if (cap) {
    const ups: number[] = [];
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        if (!shape[i] || Math.abs(acOf(x, y) - (faceL + faceR) / 2) > fw * 0.3) continue;
        const p: Lab = [lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!];
        if (dE(p, cap) < Math.min(dE(p, skinPhoto), dE(p, hairA))) ups.push(upOf(x, y));
      }
    const capLine = Math.max(browUp + fw * 0.12, ups.length ? quantile(ups, 0.05) : topUp);
    capBin = new Uint8Array(n);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        if ((hairBin[i] || ovalMask.data[i]) && upOf(x, y) > capLine) capBin[i] = 1;
      }
  }
  // A beard: the lower face darker than the skin and nearer the hair's colour, covering a good
  // share of it on both sides of the mouth.
  const lipsPoly = MESH_LIPS_OUTER.map(at);
  const lipsMask = polyMask(lipsPoly);
  const nose = at(2);
  const beardCand = new Uint8Array(n);
  let lowerCount = 0;
  let beardCount = 0;
  let bl = 0;
  let br = 0;
  const m13 = at(13);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (!ovalMask.data[i] || !inPhoto[i] || lipsMask.data[i]) continue;
      if ((x - nose[0]) * up[0] + (y - nose[1]) * up[1] >= 0) continue;
      lowerCount++;
      const p: Lab = [lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!];
      if (p[0] < skinPhoto[0] - 0.1 && dE(p, hairA) < dE(p, skinPhoto)) {
        beardCand[i] = 1;
        beardCount++;
        if ((x - m13[0]) * across[0] + (y - m13[1]) * across[1] < 0) bl++;
        else br++;
      }
    }
  // ... and the chin under the lower lip, within the mouth's width (a jaw's shadow or hair
  // over the cheeks is not a beard).
  let chinN = 0;
  let chinB = 0;
  const lip17 = at(17);
  const mouthHalf = dist(at(61), at(291)) / 2;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (!ovalMask.data[i]) continue;
      const u = upOf(x, y);
      if (u > upOf(lip17[0], lip17[1]) || u < chinUp + fw * 0.04) continue;
      if (Math.abs((x - m13[0]) * across[0] + (y - m13[1]) * across[1]) > mouthHalf) continue;
      chinN++;
      chinB += beardCand[i]!;
    }
  const beard =
    !print &&
    lowerCount > 0 &&
    beardCount / lowerCount > 0.3 &&
    Math.min(bl, br) > 0.3 * Math.max(bl, br) &&
    chinN > 0 &&
    chinB / chinN > 0.22 &&
    dE(hairA, skinPhoto) > 0.15;
  // The beard's shape: its candidates smoothed and closed into one area of the lower face,
  // the lips left clear.
  const beardBin = new Uint8Array(n);
  if (beard) {
    const soft = blurMask(beardCand, Math.round(hairR * 1.5));
    const lipsBig = polyMask(lipsPoly.map((p) => lerp(lerp(at(13), at(14), 0.5), p, 1.15)));
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        if (
          soft[i]! > 0.3 &&
          ovalMask.data[i] &&
          !lipsBig.data[i] &&
          (x - nose[0]) * up[0] + (y - nose[1]) * up[1] < -fw * 0.03
        )
          beardBin[i] = 1;
      }
  }
  let beardCol: Lab = hairCol;
  if (beard) {
    const bpx: Lab[] = [];
    for (let i = 0; i < n; i++) if (beardCand[i]) bpx.push([lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!]);
    beardCol = hairTone(medLab(bpx));
  }

  // The drawing's size; the soft planes (hair, cap, beard) scaled up smoothly, each edge a
  // short anti-aliased ramp.
  const S = outSide;
  const SH = Math.round((outSide * H) / W);
  const UP = S / W;
  const softR = Math.max(1, Math.round(fw * 0.015));
  const planes = [hairBin, capBin ?? new Uint8Array(n), beardBin].map((m) => blurMask(m, softR));
  const packed = Buffer.alloc(n * 3);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < 3; k++) packed[i * 3 + k] = Math.round(clamp(planes[k]![i]!, 0, 1) * 255);
  const upBuf = await sharp(packed, { raw: { width: W, height: H, channels: 3 } })
    .resize(S, SH, { kernel: "cubic" })
    .raw()
    .toBuffer();
  const G = (2 * (2 * softR + 1) * UP) / 1.5;
  const ramp = (v: number) => clamp((v / 255 - 0.5) * G + 0.5, 0, 1);
  const hairUp = new Float32Array(S * SH);
  const capUp = new Float32Array(S * SH);
  const beardUp = new Float32Array(S * SH);
  for (let j = 0; j < S * SH; j++) {
    hairUp[j] = ramp(upBuf[j * 3]!);
    capUp[j] = ramp(upBuf[j * 3 + 1]!);
    beardUp[j] = ramp(upBuf[j * 3 + 2]!);
  }
  // The face: the mesh's oval smoothed into a rounded emoji face, one soft shade crescent on
  // the side away from the light, a thin ink line round it.
  // Each oval point pushed out to the mesh's reach in its direction: on a turned face the far
  // cheek's bulge lies beyond the oval ring.
  const meshPts = face.mesh.map((p): Pt => [p[0]!, p[1]!]);
  let fo = oval.map((o): Pt => {
    const th = Math.atan2(o[1] - oc[1], o[0] - oc[0]);
    let r = dist(oc, o);
    for (const p of meshPts) {
      let d = Math.atan2(p[1] - oc[1], p[0] - oc[0]) - th;
      d = Math.atan2(Math.sin(d), Math.cos(d));
      if (Math.abs(d) < 0.1) r = Math.max(r, dist(oc, p) * 1.04);
    }
    return [oc[0] + Math.cos(th) * r, oc[1] + Math.sin(th) * r];
  });
  const reach = fo;
  for (let pass = 0; pass < 3; pass++)
    fo = fo.map((p, i) => {
      const a = fo[(i - 1 + fo.length) % fo.length]!;
      const b = fo[(i + 1) % fo.length]!;
      return [(a[0] + 2 * p[0] + b[0]) / 4, (a[1] + 2 * p[1] + b[1]) / 4];
    });
  // grown evenly until no point is inside the mesh's reach (smoothing pulls the chin and jaw
  // in): the curve stays smooth, the face stays clear of the outline
  const grow =
    fo.reduce((m, p, i) => Math.max(m, dist(oc, reach[i]!) / Math.max(1e-6, dist(oc, p))), 1) * 1.02;
  fo = fo.map((p) => lerp(oc, p, Math.min(grow, 1.12)));
  const facePath = smoothClosed(fo);
  const lit: Pt = [-across[0] * fw * 0.07 + up[0] * fw * 0.03, -across[1] * fw * 0.07 + up[1] * fw * 0.03];
  const lineW = Math.max(0.6, fw * 0.012);
  const faceSvg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${S}" height="${SH}" viewBox="0 0 ${W} ${H}">` +
    `<defs><clipPath id="fc"><path d="${facePath}"/></clipPath></defs>` +
    `<path d="${facePath}" fill="${hex(shade)}"/>` +
    `<g clip-path="url(#fc)"><path transform="translate(${f(lit[0])} ${f(lit[1])})" d="${facePath}" fill="${hex(skin)}"/></g>` +
    `<path d="${facePath}" fill="none" stroke="${hex(INK)}" stroke-width="${f(lineW)}"/></svg>`;
  const faceLayer = await sharp(Buffer.from(faceSvg)).raw().toBuffer();
  // Hair: one flat colour, one clean shade crescent along its edge away from the light.
  const sh = [Math.round(-lit[0] * UP * 1.4), Math.round(-lit[1] * UP * 1.4)];
  const hairShadeCol = [hairCol[0] - 0.09, hairCol[1] * 1.05, hairCol[2] * 1.05] as Lab;
  const rgbOfLab = (l: Lab) => oklabToRgb(l[0], l[1], l[2]);
  const hairRgb = rgbOfLab(hairCol);
  const hairShRgb = rgbOfLab(hairShadeCol);
  // Short hair (session 11, second pass): a few light strokes swept up from the hairline to
  // the crown, so the flat dome reads as hair, not a knit cap.
  const strokes: Pt[][] = [];
  if (shortSides === 2 && !cap && !print) {
    const R = dist(oc, top);
    const th0 = Math.atan2(-up[1], -up[0]) + Math.PI; // the direction "up", as an angle
    for (const d of [-0.9, -0.5, -0.1, 0.3]) {
      const line: Pt[] = [];
      for (let q = 0; q <= 10; q++) {
        const s = q / 10;
        const th = th0 + d + 0.4 * s;
        const rr = R + fw * (0.08 + 0.2 * s);
        line.push([oc[0] + Math.cos(th) * rr, oc[1] + Math.sin(th) * rr]);
      }
      strokes.push(line);
    }
  }
  const strokeW = fw * 0.02;
  const strokeAt = (x: number, y: number): number => {
    let best = Infinity;
    for (const line of strokes)
      for (let q = 0; q < line.length - 1; q++) {
        const a = line[q]!;
        const b = line[q + 1]!;
        const vx = b[0] - a[0];
        const vy = b[1] - a[1];
        const t = clamp(((x - a[0]) * vx + (y - a[1]) * vy) / (vx * vx + vy * vy || 1), 0, 1);
        // tapered: thinner at both ends
        const w = strokeW * Math.sin(Math.PI * clamp((q + t) / (line.length - 1), 0.08, 0.92));
        best = Math.min(best, Math.hypot(x - a[0] - vx * t, y - a[1] - vy * t) - w);
      }
    return clamp(0.5 - best * UP, 0, 1);
  };
  const hairHiRgb = rgbOfLab([hairCol[0] + 0.15, hairCol[1], hairCol[2]]);
  const capRgb = capCol ? rgbOfLab(capCol) : hairRgb;
  const beardRgb = rgbOfLab(beardCol);
  const inkRgb = oklabToRgb(...INK);
  const rgba = Buffer.alloc(S * SH * 4);
  const px = [0, 0, 0];
  const over = (c: readonly number[], a: number) => {
    if (a <= 0) return;
    for (let k = 0; k < 3; k++) px[k] = px[k]! * (1 - a) + c[k]! * a;
  };
  const brimW = Math.max(2, Math.round(lineW * UP * 1.6));
  const fringeFrom = browUp + fw * 0.06;
  const fringeTo = browUp + fw * 0.16;
  for (let y = 0; y < SH; y++)
    for (let x = 0; x < S; x++) {
      const j = y * S + x;
      const ha = hairUp[j]!;
      const fa = faceLayer[j * 4 + 3]! / 255;
      const alpha = Math.max(ha, fa);
      if (alpha <= 0) continue;
      const sx = x + sh[0]!;
      const sy = y + sh[1]!;
      const beyond = sx < 0 || sy < 0 || sx >= S || sy >= SH ? 0 : hairUp[sy * S + sx]!;
      const hs = ha * (1 - beyond);
      px[0] = hairRgb[0];
      px[1] = hairRgb[1];
      px[2] = hairRgb[2];
      over(hairShRgb, hs);
      if (strokes.length && ha > 0 && fa < 1) over(hairHiRgb, strokeAt((x + 0.5) / UP, (y + 0.5) / UP) * ha);
      over([faceLayer[j * 4]!, faceLayer[j * 4 + 1]!, faceLayer[j * 4 + 2]!], fa);
      if (beard) over(beardRgb, beardUp[j]! * fa);
      // the fringe: hair drawn over the face high on the forehead
      const u = upOf((x + 0.5) / UP, (y + 0.5) / UP);
      if (u > fringeFrom && fa > 0) {
        const t = clamp((u - fringeFrom) / (fringeTo - fringeFrom), 0, 1);
        over(hairRgb, ha * t);
        over(hairShRgb, hs * t);
      }
      if (capCol) {
        over(capRgb, capUp[j]!);
        // the cap's lower edge: a brim line
        const below = y + brimW < SH ? capUp[(y + brimW) * S + x]! : 0;
        over(inkRgb, capUp[j]! * (1 - below) * fa);
      }
      rgba[j * 4] = Math.round(clamp(px[0]!, 0, 255));
      rgba[j * 4 + 1] = Math.round(clamp(px[1]!, 0, 255));
      rgba[j * 4 + 2] = Math.round(clamp(px[2]!, 0, 255));
      rgba[j * 4 + 3] = Math.round(alpha * 255);
    }
  // The features, drawn as vectors at twice the size.
  const child = minorSignals(face).proportion < MIN_PROPORTION;
  const svg = features(icon, {
    rawLab,
    W,
    H,
    fw,
    up,
    across,
    skin,
    skinRef: clamp(skinPhoto[0] * 0.8 + 0.2, 0.62, 0.92),
    shade,
    hairCol,
    print: !!print,
    beard,
    child,
  });
  const layer = await sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${S}" height="${SH}" viewBox="0 0 ${W} ${H}">${svg.body}</svg>`,
    ),
  )
    .raw()
    .toBuffer();
  // Over the regions, inside the cut-out only.
  for (let j = 0; j < S * SH; j++) {
    const a = layer[j * 4 + 3]! / 255;
    if (a <= 0 || !rgba[j * 4 + 3]) continue;
    for (let c = 0; c < 3; c++)
      rgba[j * 4 + c] = Math.round(rgba[j * 4 + c]! * (1 - a) + layer[j * 4 + c]! * a);
  }
  const palette = [skin, shade, hairCol, ...(capCol ? [capCol] : []), ...(beard ? [beardCol] : [])];
  return { rgba, side: S, blush: svg.blush, palette };
}

interface Ctx {
  rawLab: Float32Array;
  W: number;
  H: number;
  fw: number;
  up: Pt;
  across: Pt;
  skin: Lab;
  /** The photo's skin lightness, lifted, that the mouth's open and teeth tests compare with
   * (the drawn skin before session 11's second pass; a dark skin drawn dark must not read every
   * mouth as open). */
  skinRef: number;
  shade: Lab;
  hairCol: Lab;
  print: boolean;
  beard: boolean;
  /** The mesh's proportions say "maybe a child" (vision/minor-signal): lighter, higher brows, larger eyes. */
  child: boolean;
}

/** SVG of the features, in the icon's pixels. */
function features(icon: IconFace, c: Ctx): { body: string; blush: Pt[] } {
  const { face, glasses } = icon;
  const { rawLab, W, H, fw, up } = c;
  const at = (k: number): Pt => [face.mesh[k]![0], face.mesh[k]![1]];
  const ink = hex(INK);
  const parts: string[] = [];
  const defs: string[] = [];
  const yaw = face.rotation.yaw;

  // Blush first (under the features): on each cheek, between the eye's lower lid and the
  // jaw, pulled towards the face's middle; none on a cheek turned away.
  const blush: Pt[] = [];
  const noseTip = at(1);
  [
    [205, 50, 234],
    [425, 280, 454],
  ].forEach(([a, b, side], k) => {
    const cheek = lerp(at(a!), at(b!), 0.5);
    const edge = at(side!);
    // The cheek's visible width: from the nose tip to the face's side on this side.
    const room = dist(noseTip, edge);
    const other = dist(noseTip, at(k === 0 ? 454 : 234));
    if (room < 0.45 * other || Math.abs(yaw) > 0.7) return;
    let p = lerp(cheek, edge, 0.15);
    // never on the nose: at least a fifth of the face from the nose tip
    if (dist(p, noseTip) < fw * 0.2) p = lerp(noseTip, p, (fw * 0.2) / Math.max(1, dist(p, noseTip)));
    p = [p[0] - up[0] * fw * 0.02, p[1] - up[1] * fw * 0.02];
    blush.push(p);
    const rx = Math.min(fw * 0.1, room * 0.3);
    parts.push(
      `<ellipse cx="${f(p[0])}" cy="${f(p[1])}" rx="${f(rx)}" ry="${f(rx * 0.6)}" fill="#ff8296" fill-opacity="0.45"/>`,
    );
  });

  // Brows: the mesh's brow, thickened, in the hair's colour deepened.
  // Each brow's darkness read on the photo (a child's faint brow stays light), its hue the hair's.
  const browCol = (poly: Pt[]): Lab => {
    const b = sampleLab(rawLab, W, H, poly, 0.5) ?? [c.hairCol[0], 0, 0];
    // a child's brows are light and fine (session 11: heavy dark brows made children frown)
    const L = clamp(Math.min(b[0], c.skin[0] - 0.12) - (c.child ? -0.04 : 0.06), 0.15, c.child ? 0.62 : 0.6);
    return c.print ? [L, 0.02, 0.035] : [L, c.hairCol[1], c.hairCol[2]];
  };
  MESH_BROWS.forEach((b) => {
    const upper = b.upper.map(at);
    const lower = b.lower.map(at);
    // both edges run from the brow's outer end to its inner end
    let midLine = upper.map((p, i) => lerp(p, lower[i]!, 0.5));
    if (c.child) {
      // a soft, level arch raised above the eye (an open, unworried look): both ends at the
      // higher end's height, its middle a little higher still
      const o = midLine[0]!;
      const e = midLine[midLine.length - 1]!;
      const h = (p: Pt) => p[0] * up[0] + p[1] * up[1];
      const top = Math.max(h(o), h(e)) + fw * 0.02;
      const lift = (p: Pt, by: number): Pt => [p[0] + up[0] * by, p[1] + up[1] * by];
      const o2 = lift(o, top - h(o));
      const e2 = lift(e, top - h(e));
      midLine = [o2, lift(lerp(o2, e2, 0.5), fw * 0.018), e2];
    }
    const th = c.child
      ? clamp(dist(upper[2]!, lower[2]!) * 0.8, fw * 0.022, fw * 0.03)
      : clamp(dist(upper[2]!, lower[2]!) * 1.1, fw * 0.03, fw * 0.05);
    parts.push(
      `<path d="${smoothOpen(midLine)}" fill="none" stroke="${hex(browCol([...upper, ...[...lower].reverse()]))}" stroke-width="${f(th)}" stroke-linecap="round" stroke-linejoin="round"/>`,
    );
  });

  // Eyes: white almond opened up (an emoji's big eyes), iris in the photo's eye colour,
  // pupil, a catch-light, a bold upper lash line.
  // A broad open smile (teeth showing, corners lifted) pushes the cheeks up: the eyes get a
  // smiling lower lid (session 11: a squinting smile was drawn as staring eyes; the mesh's
  // lids barely close on a squint).
  const sm = {
    cl: at(61),
    cr: at(291),
    mid: lerp(at(13), at(14), 0.5),
  };
  const smw = dist(sm.cl, sm.cr) || 1;
  const cornersUp =
    (lerp(sm.cl, sm.cr, 0.5)[0] - sm.mid[0]) * up[0] + (lerp(sm.cl, sm.cr, 0.5)[1] - sm.mid[1]) * up[1];
  // Session 11, second pass: the corners' lift is the smile's cue, the lips' parting only a
  // helper (a parting of 0.12 of the mouth's width drew one grin squinting and the same grin on
  // a slightly different copy of the photo staring): corners lifted a tenth of the mouth's
  // width, or a twenty-fifth with the lips parted.
  const parted = dist(at(13), at(14)) / smw;
  const smiling = !c.child && (cornersUp > smw * 0.1 || (parted > 0.08 && cornersUp > smw * 0.04));
  MESH_EYES.forEach((e, k) => {
    const o = at(e.outer);
    const inn = at(e.inner);
    const ew = dist(o, inn);
    if (ew < 3) return;
    const u: Pt = [(inn[0] - o[0]) / ew, (inn[1] - o[1]) / ew];
    let nn: Pt = [-u[1], u[0]];
    if (nn[0] * up[0] + nn[1] * up[1] > 0) nn = [-nn[0], -nn[1]]; // down the face
    const upper = e.upper.map(at);
    const lower = e.lower.map(at);
    const contour = [o, ...upper, inn, ...[...lower].reverse()];
    const cc = lerp(o, inn, 0.5);
    const opening = Math.max(1, (dist(upper[3]!, lower[3]!) as number) || 1);
    // A closed (blinking, smiling) eye stays a curve; an open one a big oval.
    const closed = opening < ew * 0.12;
    // The iris's colour: the eye's mid-dark pixels (not the pupil and lashes, not the white),
    // their hue kept and deepened (session 11: the darkest third drew blue eyes black).
    const irisPx: Lab[] = [];
    forEachInPolygon(contour, W, H, (x, y) => {
      const i = (y * W + x) * 3;
      irisPx.push([rawLab[i]!, rawLab[i + 1]!, rawLab[i + 2]!]);
    });
    irisPx.sort((p, q) => p[0] - q[0]);
    const mid = irisPx.slice(Math.floor(irisPx.length * 0.15), Math.ceil(irisPx.length * 0.5));
    const iris: Lab | null =
      mid.length >= 3
        ? [median(mid.map((p) => p[0])), median(mid.map((p) => p[1])), median(mid.map((p) => p[2]))]
        : null;
    const col: Lab = c.print
      ? [0.38, -0.01, -0.02]
      : iris
        ? [clamp(iris[0] + 0.1, 0.32, 0.6), iris[1] * 2, iris[2] * 2]
        : [0.35, 0.01, 0.02];
    const ang = (Math.atan2(u[1], u[0]) * 180) / Math.PI;
    // Its size: a child's eyes larger; its opening the photo's (a squint stays narrow).
    const grow = c.child ? 1.15 : 1;
    const rx = ew * 0.56 * grow;
    const ry = clamp(opening * 1.5, ew * 0.24, ew * 0.5) * grow;
    const centre: Pt = [cc[0] + nn[0] * ry * 0.05, cc[1] + nn[1] * ry * 0.05];
    const lw = Math.max(1.2, fw * 0.02);
    if (closed) {
      const a = lerp(centre, [centre[0] - u[0] * rx, centre[1] - u[1] * rx], 1);
      const b: Pt = [centre[0] + u[0] * rx, centre[1] + u[1] * rx];
      const ctl: Pt = [centre[0] + nn[0] * ry * 0.6, centre[1] + nn[1] * ry * 0.6];
      parts.push(
        `<path d="M${f(a[0])},${f(a[1])} Q${f(ctl[0])},${f(ctl[1])} ${f(b[0])},${f(b[1])}" fill="none" stroke="${ink}" stroke-width="${f(lw)}" stroke-linecap="round"/>`,
      );
      return;
    }
    // Where the photo's iris is along the eye: the darkness-weighted centre.
    let sw = 0;
    let st = 0;
    const L0 = (sampleLab(rawLab, W, H, contour) ?? [0.5])[0];
    forEachInPolygon(contour, W, H, (x, y) => {
      const wgt = Math.max(0, L0 + 0.05 - rawLab[(y * W + x) * 3]!) ** 2;
      sw += wgt;
      st += wgt * ((x + 0.5 - cc[0]) * u[0] + (y + 0.5 - cc[1]) * u[1]);
    });
    const along = clamp(sw > 0 ? st / sw : 0, -0.2 * ew, 0.2 * ew);
    const ir = Math.min(ry * 0.92, rx * 0.7);
    const ic: Pt = [centre[0] + u[0] * along * 1.2, centre[1] + u[1] * along * 1.2];
    const id = `eye${k}`;
    defs.push(
      `<clipPath id="${id}"><ellipse cx="${f(centre[0])}" cy="${f(centre[1])}" rx="${f(rx)}" ry="${f(ry)}" transform="rotate(${f(ang)} ${f(centre[0])} ${f(centre[1])})"/></clipPath>`,
    );
    parts.push(
      `<ellipse cx="${f(centre[0])}" cy="${f(centre[1])}" rx="${f(rx)}" ry="${f(ry)}" transform="rotate(${f(ang)} ${f(centre[0])} ${f(centre[1])})" fill="#ffffff" stroke="${ink}" stroke-width="${f(lw * 0.8)}"/>`,
      `<g clip-path="url(#${id})"><circle cx="${f(ic[0])}" cy="${f(ic[1])}" r="${f(ir)}" fill="${hex(col)}"/>` +
        `<circle cx="${f(ic[0])}" cy="${f(ic[1])}" r="${f(ir * 0.55)}" fill="${ink}"/>` +
        `<circle cx="${f(ic[0] - ir * 0.35)}" cy="${f(ic[1] - ir * 0.38)}" r="${f(ir * 0.3)}" fill="#ffffff"/></g>`,
      // upper lash line: the top half of the oval, bolder
      `<path d="M${f(centre[0] - u[0] * rx)},${f(centre[1] - u[1] * rx)} A${f(rx)},${f(ry)} ${f(ang)} 0 1 ${f(centre[0] + u[0] * rx)},${f(centre[1] + u[1] * rx)}" fill="none" stroke="${ink}" stroke-width="${f(lw * 1.3)}" stroke-linecap="round"/>`,
    );
    if (smiling) {
      // the smiling lower lid: a skin-coloured cheek rising over the eye's lower third
      const lidC: Pt = [centre[0] + nn[0] * ry * 1.35, centre[1] + nn[1] * ry * 1.35];
      parts.push(
        `<g clip-path="url(#${id}o)"><ellipse cx="${f(lidC[0])}" cy="${f(lidC[1])}" rx="${f(rx * 1.3)}" ry="${f(ry * 0.95)}" transform="rotate(${f(ang)} ${f(lidC[0])} ${f(lidC[1])})" fill="${hex(c.skin)}" stroke="${ink}" stroke-width="${f(lw)}"/></g>`,
      );
      defs.push(
        `<clipPath id="${id}o"><ellipse cx="${f(centre[0])}" cy="${f(centre[1])}" rx="${f(rx + lw)}" ry="${f(ry + lw)}" transform="rotate(${f(ang)} ${f(centre[0])} ${f(centre[1])})"/></clipPath>`,
      );
    }
  });

  // Nose: a short soft curve under its tip, in the skin's shade deepened.
  {
    const tip = at(2);
    const nl = lerp(tip, at(98), 0.6);
    const nr = lerp(tip, at(327), 0.6);
    const dip: Pt = [tip[0] + up[0] * fw * 0.01, tip[1] + up[1] * fw * 0.01];
    parts.push(
      `<path d="M${f(nl[0])},${f(nl[1])} Q${f(dip[0])},${f(dip[1])} ${f(nr[0])},${f(nr[1])}" fill="none" stroke="${hex([c.shade[0] - 0.12, c.shade[1] + 0.01, c.shade[2]])}" stroke-width="${f(Math.max(1.2, fw * 0.018))}" stroke-linecap="round"/>`,
    );
  }

  // Mouth: the photo's expression. Open: the inner mouth, a little larger, dark with its
  // teeth; closed: lips in their colour and the line between them, its curve from the photo's
  // corners, a little stronger.
  const lips = MESH_LIPS_OUTER.map(at);
  const cl = at(61);
  const cr = at(291);
  const mw = dist(cl, cr);
  const mc = lerp(at(13), at(14), 0.5);
  const gap = dist(at(13), at(14));
  const lw = Math.max(1.4, fw * 0.02);
  const lipPhoto = sampleLab(rawLab, W, H, lips) ?? [c.skin[0] - 0.15, 0.08, 0.03];
  const lipCol: Lab = c.print
    ? [c.skin[0] - 0.16, 0.09, 0.04]
    : [clamp(lipPhoto[0], c.skin[0] - 0.22, c.skin[0] - 0.1), Math.max(0.06, lipPhoto[1] * 1.3), lipPhoto[2]];
  const scaleAbout = (ps: Pt[], s: number): Pt[] => ps.map((p) => lerp(mc, p, s));
  const innerAll = [
    cl,
    ...MESH_MOUTH_LINE.slice(1, -1).map(at),
    cr,
    ...MESH_LIP_LOWER_INNER.slice(1, -1).map(at),
  ];
  const insideL = (sampleLab(rawLab, W, H, innerAll) ?? [0, 0, 0])[0];
  if (gap > mw * 0.1 || (gap > mw * 0.05 && insideL > c.skinRef - 0.25)) {
    const inner = scaleAbout(
      [...MESH_MOUTH_LINE.slice(1, -1), ...MESH_LIP_LOWER_INNER.slice(1, -1)].map(at),
      1.1,
    );
    const all = [
      cl,
      ...MESH_MOUTH_LINE.slice(1, -1).map(at),
      cr,
      ...MESH_LIP_LOWER_INNER.slice(1, -1).map(at),
    ];
    const inside = sampleLab(rawLab, W, H, all) ?? [0.3, 0, 0];
    const teeth = inside[0] > c.skinRef - 0.35;
    defs.push(`<clipPath id="mouth"><path d="${smoothClosed(inner)}"/></clipPath>`);
    const upperY = MESH_MOUTH_LINE.map(at);
    parts.push(
      `<path d="${smoothClosed(inner)}" fill="#6a1f2c"/>`,
      teeth
        ? `<g clip-path="url(#mouth)"><path d="${smoothOpen(scaleAbout(upperY, 1.1))} L${f(mc[0] - up[0] * gap * 0.15 + c.across[0] * mw)},${f(mc[1] - up[1] * gap * 0.15 + c.across[1] * mw)} L${f(mc[0] - up[0] * gap * 0.15 - c.across[0] * mw)},${f(mc[1] - up[1] * gap * 0.15 - c.across[1] * mw)} Z" fill="#ffffff"/></g>`
        : "",
      `<path d="${smoothClosed(inner)}" fill="none" stroke="${ink}" stroke-width="${f(lw)}" stroke-linejoin="round"/>`,
    );
  } else {
    parts.push(`<path d="${smoothClosed(scaleAbout(lips, 1.0))}" fill="${hex(lipCol)}"/>`);
    // The line: the mesh's own line between the lips, its bend away from the straight line
    // between the corners a little stronger (session 11: a fixed curve through the middle
    // turned the Migrant Mother's worry into a smile).
    const line = [61, 81, 13, 311, 291].map(at);
    const a = lerp(mc, cl, 1.05);
    const b = lerp(mc, cr, 1.05);
    const ab = dist(a, b) || 1;
    const nrm: Pt = [-(b[1] - a[1]) / ab, (b[0] - a[0]) / ab];
    const pts = line.map((p, i): Pt => {
      const t = i / (line.length - 1);
      const base = lerp(a, b, t);
      const off = (p[0] - base[0]) * nrm[0] + (p[1] - base[1]) * nrm[1];
      const k = clamp(off * 1.4, -mw * 0.12, mw * 0.12);
      return [base[0] + nrm[0] * k, base[1] + nrm[1] * k];
    });
    parts.push(
      `<path d="${smoothOpen(pts)}" fill="none" stroke="${ink}" stroke-width="${f(lw)}" stroke-linecap="round" stroke-linejoin="round"/>`,
    );
  }

  // Glasses: clean frames along the rims found on the photo, a bridge between them.
  if (glasses) {
    const frame: Lab = glasses.dark
      ? [clamp(glasses.lab[0], 0.15, 0.4), glasses.lab[1], glasses.lab[2]]
      : [0.55, 0, 0];
    const gw = Math.max(1.5, fw * 0.022);
    for (const rim0 of glasses.rims) {
      // the rim found on the photo, its wobble smoothed out (session 11)
      let rim = rim0.map((p): Pt => [p[0], p[1]]);
      for (let pass = 0; pass < 3; pass++)
        rim = rim.map((p, i): Pt => {
          const a = rim[(i - 1 + rim.length) % rim.length]!;
          const b = rim[(i + 1) % rim.length]!;
          return [(a[0] + 2 * p[0] + b[0]) / 4, (a[1] + 2 * p[1] + b[1]) / 4];
        });
      parts.push(
        `<path d="${smoothClosed(rim)}" fill="#ffffff" fill-opacity="0.12" stroke="${hex(frame)}" stroke-width="${f(gw)}" stroke-linejoin="round"/>`,
      );
    }
    const [p, q] = glasses.bridge;
    parts.push(
      `<path d="M${f(p[0])},${f(p[1])} L${f(q[0])},${f(q[1])}" stroke="${hex(frame)}" stroke-width="${f(gw)}" stroke-linecap="round"/>`,
    );
  }
  return { body: `<defs>${defs.join("")}</defs>${parts.join("")}`, blush };
}
