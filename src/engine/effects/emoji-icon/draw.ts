import sharp from "sharp";
import type { Face } from "../../vision/human";
import type { RawImage } from "../../shared/image-io";
import { labOf, oklabToRgb } from "../../shared/pixel-art";
import { PRINT_SKIN_HUE, printTone } from "../../shared/print-ramp";
import type { Glasses } from "../../shared/pixel-face";
import { fillPolygon, forEachInPolygon, type Mask } from "../../shared/mask";
import { components } from "../../shared/components";
import {
  MESH_BROWS,
  MESH_EYES,
  MESH_LIP_LOWER_INNER,
  MESH_LIPS_OUTER,
  MESH_MOUTH_LINE,
  MESH_OVAL,
} from "../../shared/mesh-parts";

/**
 * The emoji itself, drawn rather than posterised: a few flat regions read off the photo (hair,
 * skin, a second hair/headwear tone, a beard) with one soft skin shade, then the features drawn
 * from the face mesh as clean vector shapes (eyes with whites, iris and pupil, bold brows, a
 * nose hint, the mouth with the photo's expression, glasses as clean frames, cheek blush), every
 * colour taken from the photo; a b/w or toned print is hand-coloured (peach skin, brown hair).
 * Everything is drawn at twice the icon's size and scaled down, so every edge is anti-aliased.
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
const median = (v: number[]) => {
  if (!v.length) return NaN;
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

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

/** Regions of the icon (label values). */
const OUT = 0;
const HAIR = 1;
const HAIR2 = 2;
const SKIN = 3;
const SHADE = 4;
const BEARD = 5;
const HAIR_SHADE = 6;

export interface DrawnIcon {
  /** RGBA at twice the icon's size, before the outline. */
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
  const print = printTone(shapeLab, inside);
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
  const aboveBrow = (x: number, y: number) => (x - browMid[0]) * up[0] + (y - browMid[1]) * up[1];

  // Skin: the cheeks and forehead (median), away from eyes, brows and mouth.
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
    ? [median(skinPx.map((p) => p[0])), median(skinPx.map((p) => p[1])), median(skinPx.map((p) => p[2]))]
    : [0.75, 0.04, 0.05];

  // The hair (and headwear) pixels: in the cut-out beyond the face, and above the brows inside
  // it, not of the skin's colour.
  const cand: number[] = [];
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (!shape[i] || !inPhoto[i]) continue;
      const inFace = ovalMask.data[i] === 1;
      if (inFace && aboveBrow(x, y) < fw * 0.08) continue;
      // below the mouth and beyond the face: neck and collar, not hair
      if (!inFace && (x - at(13)[0]) * up[0] + (y - at(13)[1]) * up[1] < 0) continue;
      cand.push(i);
    }
  const hairPx: Lab[] = [];
  for (const i of cand) {
    const p: Lab = [lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!];
    if (dE(p, skinPhoto) > 0.07 && i % 3 === 0) hairPx.push(p);
  }
  // One hair colour (the median), and a second flat colour only for something clearly not the
  // same hair (a cap, a scarf); the hair's own shadows become one hair shade.
  let hairA: Lab = [Math.min(0.35, skinPhoto[0] - 0.3), 0.02, 0.03];
  let hairB: Lab | null = null;
  if (hairPx.length > 20) {
    const { a, b, shareA } = twoMeans(hairPx);
    const smallShare = Math.min(shareA, 1 - shareA);
    if (dE(a, b) > 0.3 && smallShare > 0.2) {
      hairA = shareA >= 0.5 ? a : b;
      hairB = shareA >= 0.5 ? b : a;
    } else {
      // Its hue from the more colourful half (lit strands; shadows and a grey backdrop the
      // matte let in are greyer), its lightness from all.
      const rich = [...hairPx].sort((p, q) => Math.hypot(q[1], q[2]) - Math.hypot(p[1], p[2]));
      const half = rich.slice(0, Math.ceil(rich.length / 2));
      const L = median(hairPx.map((p) => p[0]));
      // dark hair has no hue to speak of: the colourful half would be noise or a reddish rim
      const t = clamp((L - 0.3) / 0.15, 0, 1);
      const a0 = median(hairPx.map((p) => p[1]));
      const b0 = median(hairPx.map((p) => p[2]));
      hairA = [
        L,
        a0 + (median(half.map((p) => p[1])) - a0) * t,
        b0 + (median(half.map((p) => p[2])) - b0) * t,
      ];
    }
  }

  // Colours drawn: the photo's, a little brighter and richer (a cartoon's); a print's
  // hand-coloured (peach skin in the print's lightness, brown hair).
  const skinL = clamp(skinPhoto[0] * 0.85 + 0.16, 0.62, 0.9);
  const skin: Lab = print
    ? [clamp(skinL, 0.74, 0.86), PRINT_SKIN_HUE[0] * 1.3, PRINT_SKIN_HUE[1] * 1.3]
    : [skinL, skinPhoto[1] * 1.25, skinPhoto[2] * 1.25];
  const hairTone = (h: Lab): Lab =>
    print
      ? [clamp(h[0] * 0.9, 0.25, 0.75), 0.02 + 0.01 * h[0], 0.035 + 0.03 * h[0]]
      : [
          clamp(h[0] * 1.05 + 0.02, 0.18, 0.92),
          h[1] * (h[0] > 0.4 ? 1.35 : 1),
          h[2] * (h[0] > 0.4 ? 1.35 : 1),
        ];
  const hairCol = hairTone(hairA);
  const hair2Col = hairB ? hairTone(hairB) : null;
  const shade: Lab = [skin[0] - 0.075, skin[1] + 0.012, skin[2] + 0.004];

  // Labels at the icon's size, from the smoothed photo.
  const labels = new Uint8Array(n);
  const lipsPoly = MESH_LIPS_OUTER.map(at);
  const nose = at(2);
  const lowerFace = (x: number, y: number) => (x - nose[0]) * up[0] + (y - nose[1]) * up[1] < 0;
  const choices: Array<[number, Lab]> = [
    [SKIN, skinPhoto],
    [HAIR, hairA],
  ];
  if (hairB) choices.push([HAIR2, hairB]);
  const nearest = (p: Lab) => {
    let best = choices[0]!;
    for (const c of choices) if (dE(p, c[1]) < dE(p, best[1])) best = c;
    return best[0];
  };
  const nearFace = (i: number) => nearMask.data[i] === 1;
  const lipsMask = polyMask(lipsPoly);
  const skinLs: number[] = [];
  const beardCand = new Uint8Array(n);
  let lowerCount = 0;
  let beardCount = 0;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (!shape[i]) continue;
      const inFace = ovalMask.data[i] === 1;
      const p: Lab = [lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!];
      if (!inPhoto[i]) labels[i] = inFace ? SKIN : HAIR;
      else if (inFace && aboveBrow(x, y) < fw * 0.08) {
        labels[i] = SKIN;
        if (lowerFace(x, y) && !lipsMask.data[i]) {
          lowerCount++;
          // Darker than the skin and nearer the hair's colour than the skin's: beard.
          if (p[0] < skinPhoto[0] - 0.1 && dE(p, hairA) < dE(p, skinPhoto)) {
            beardCand[i] = 1;
            beardCount++;
          }
        }
      } else {
        labels[i] = nearest(p);
        // Skin beyond the face: only ears and neck beside it (near the oval), clearly skin.
        if (labels[i] === SKIN && (!nearFace(i) || dE(p, skinPhoto) > 0.08)) labels[i] = HAIR;
        if (labels[i] === HAIR && p[0] < hairA[0] - 0.1) labels[i] = HAIR_SHADE;
      }
      if (labels[i] === SKIN && inFace && inPhoto[i]) skinLs.push(p[0]);
    }
  // A beard: a good share of the lower face, on both sides of the mouth.
  let beard = false;
  if (!print && lowerCount > 0 && beardCount / lowerCount > 0.3) {
    let l = 0;
    let rr = 0;
    const m = at(13);
    for (let i = 0; i < n; i++)
      if (beardCand[i]) {
        const side = ((i % W) - m[0]) * across[0] + (Math.floor(i / W) - m[1]) * across[1];
        if (side < 0) l++;
        else rr++;
      }
    beard = Math.min(l, rr) > 0.3 * Math.max(l, rr);
  }
  if (beard) for (let i = 0; i < n; i++) if (beardCand[i]) labels[i] = BEARD;
  // Hair islands inside the skin (a shadow on the forehead, a print's stain) become skin: hair
  // is what reaches the cut-out's edge.
  {
    const hairMask = Uint8Array.from(labels, (v) => (v === HAIR || v === HAIR2 || v === HAIR_SHADE ? 1 : 0));
    const { labels: comp, count } = components(hairMask, W, H);
    const edge = new Uint8Array(count + 1);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        if (!hairMask[i]) continue;
        if (
          x === 0 ||
          y === 0 ||
          x === W - 1 ||
          y === H - 1 ||
          !shape[i - 1] ||
          !shape[i + 1] ||
          !shape[i - W] ||
          !shape[i + W]
        )
          edge[comp[i]!] = 1;
      }
    for (let i = 0; i < n; i++) if (hairMask[i] && !edge[comp[i]!]) labels[i] = SKIN;
  }
  // One soft shade: the skin's darkest fifth (the photo's light, heavily smoothed).
  const shadeL = skinLs.length ? [...skinLs].sort((a, b) => a - b)[Math.floor(skinLs.length * 0.2)]! : -1;
  const Lplane = new Float32Array(n);
  for (let i = 0; i < n; i++) Lplane[i] = lab[i * 3]!;
  const Ls = blurPlane(Lplane, W, H, Math.max(3, Math.round(fw * 0.04)));
  for (let i = 0; i < n; i++) if (labels[i] === SKIN && inPhoto[i] && Ls[i]! < shadeL) labels[i] = SHADE;

  // Majority smoothing at the drawing's size: each label's share blurred and scaled up
  // (smoothly, by sharp), the largest wins.
  const S = outSide;
  const SH = Math.round((outSide * H) / W);
  const UP = S / W;
  const big = new Uint8Array(S * SH);
  const colours: Record<number, Lab> = {
    [HAIR]: hairCol,
    [HAIR_SHADE]: [hairCol[0] - 0.08, hairCol[1], hairCol[2]],
    [SKIN]: skin,
    [SHADE]: shade,
    [BEARD]: hairCol,
  };
  if (hair2Col) colours[HAIR2] = hair2Col;
  if (beard) {
    const bpx: Lab[] = [];
    for (let i = 0; i < n; i++)
      if (labels[i] === BEARD) bpx.push([lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!]);
    colours[BEARD] = hairTone([
      median(bpx.map((p) => p[0])),
      median(bpx.map((p) => p[1])),
      median(bpx.map((p) => p[2])),
    ]);
  }
  const rad = Math.max(1, Math.round(fw * 0.025));
  const order = [HAIR, HAIR2, HAIR_SHADE, SKIN, SHADE, BEARD];
  const packed = [Buffer.alloc(n * 3), Buffer.alloc(n * 3)];
  order.forEach((lv, k) => {
    if (!labels.includes(lv)) return;
    const ind = new Float32Array(n);
    for (let i = 0; i < n; i++) ind[i] = labels[i] === lv ? 1 : 0;
    const soft = blurPlane(ind, W, H, lv === SHADE || lv === HAIR_SHADE ? rad * 2 : rad);
    // the shades are drawn only where clearly theirs: large, simple shapes
    const floor = lv === SHADE || lv === HAIR_SHADE ? 0.6 : 0;
    const plane = packed[Math.floor(k / 3)]!;
    for (let i = 0; i < n; i++) plane[i * 3 + (k % 3)] = soft[i]! > floor ? Math.round(soft[i]! * 255) : 0;
  });
  const ups = await Promise.all(
    packed.map((b) =>
      sharp(b, { raw: { width: W, height: H, channels: 3 } })
        .resize(S, SH, { kernel: "cubic" })
        .raw()
        .toBuffer(),
    ),
  );
  for (let j = 0; j < S * SH; j++) {
    let best = 0;
    let bestV = 0;
    for (let k = 0; k < order.length; k++) {
      const v = ups[Math.floor(k / 3)]![j * 3 + (k % 3)]!;
      if (v > bestV) {
        bestV = v;
        best = order[k]!;
      }
    }
    big[j] = best;
  }
  // Paint the regions, with a thin ink line where hair meets skin.
  const rgba = Buffer.alloc(S * SH * 4);
  const rgbOf: Record<number, [number, number, number]> = {};
  for (const [k, v] of Object.entries(colours)) rgbOf[Number(k)] = oklabToRgb(v[0], v[1], v[2]);
  const inkRgb = oklabToRgb(...INK);
  const isSkin = (v: number) => v === SKIN || v === SHADE;
  const lineR = Math.max(1, Math.round(fw * UP * 0.004));
  // Hair grown by the line's width (separable max): skin under it is the line.
  const hairNear = new Uint8Array(S * SH);
  const tmp = new Uint8Array(S * SH);
  for (let j = 0; j < S * SH; j++)
    tmp[j] = big[j] === HAIR || big[j] === HAIR2 || big[j] === HAIR_SHADE ? 1 : 0;
  for (let y = 0; y < SH; y++)
    for (let x = 0; x < S; x++)
      if (tmp[y * S + x])
        for (let dx = Math.max(0, x - lineR); dx <= Math.min(S - 1, x + lineR); dx++)
          hairNear[y * S + dx] = 1;
  tmp.set(hairNear);
  for (let y = 0; y < SH; y++)
    for (let x = 0; x < S; x++)
      if (tmp[y * S + x])
        for (let dy = Math.max(0, y - lineR); dy <= Math.min(SH - 1, y + lineR); dy++)
          hairNear[dy * S + x] = 1;
  for (let j = 0; j < S * SH; j++) {
    const v = big[j]!;
    if (v === OUT) continue;
    const c = isSkin(v) && hairNear[j] ? inkRgb : rgbOf[v]!;
    rgba[j * 4] = c[0];
    rgba[j * 4 + 1] = c[1];
    rgba[j * 4 + 2] = c[2];
    rgba[j * 4 + 3] = 255;
  }

  // The features, drawn as vectors at twice the size.
  const svg = features(icon, { rawLab, W, H, fw, up, across, skin, shade, hairCol, print: !!print, beard });
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
  const palette = [
    skin,
    shade,
    hairCol,
    ...(hair2Col ? [hair2Col] : []),
    ...(beard ? [colours[BEARD]!] : []),
  ];
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
  shade: Lab;
  hairCol: Lab;
  print: boolean;
  beard: boolean;
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
    const L = clamp(Math.min(b[0], c.skin[0] - 0.12) - 0.06, 0.15, 0.6);
    return c.print ? [L, 0.02, 0.035] : [L, c.hairCol[1], c.hairCol[2]];
  };
  MESH_BROWS.forEach((b) => {
    const upper = b.upper.map(at);
    const lower = b.lower.map(at);
    // both edges run from the brow's outer end to its inner end
    const midLine = upper.map((p, i) => lerp(p, lower[i]!, 0.5));
    const th = clamp(dist(upper[2]!, lower[2]!) * 1.3, fw * 0.035, fw * 0.06);
    parts.push(
      `<path d="${smoothOpen(midLine)}" fill="none" stroke="${hex(browCol([...upper, ...[...lower].reverse()]))}" stroke-width="${f(th)}" stroke-linecap="round" stroke-linejoin="round"/>`,
    );
  });

  // Eyes: white almond opened up (an emoji's big eyes), iris in the photo's eye colour,
  // pupil, a catch-light, a bold upper lash line.
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
    const iris = sampleLab(rawLab, W, H, contour, 0.35);
    const col: Lab = c.print
      ? [0.38, -0.01, -0.02]
      : iris
        ? [clamp(iris[0], 0.25, 0.5), iris[1] * 1.5, iris[2] * 1.5]
        : [0.35, 0.01, 0.02];
    const ang = (Math.atan2(u[1], u[0]) * 180) / Math.PI;
    const rx = ew * 0.56;
    const ry = clamp(opening * 1.4, ew * 0.38, ew * 0.5);
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
  // Corners above the middle (in the face's frame): a smile.
  const lift = ((mc[0] - lerp(cl, cr, 0.5)[0]) * up[0] + (mc[1] - lerp(cl, cr, 0.5)[1]) * up[1]) * -1;
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
  if (gap > mw * 0.1 || (gap > mw * 0.05 && insideL > c.skin[0] - 0.25)) {
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
    const teeth = inside[0] > c.skin[0] - 0.35;
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
    // The line: corner to corner through the middle, its bend the photo's, a little stronger.
    const bend = clamp(lift * 1.5, -mw * 0.12, mw * 0.22);
    const a = lerp(mc, cl, 1.05);
    const b = lerp(mc, cr, 1.05);
    // The curve's middle at the mouth's middle, lowered by the bend (a smile) or raised.
    const target: Pt = [mc[0] - up[0] * bend * 0.5, mc[1] - up[1] * bend * 0.5];
    const ab = lerp(a, b, 0.5);
    const m: Pt = [2 * target[0] - ab[0], 2 * target[1] - ab[1]];
    parts.push(
      `<path d="M${f(a[0])},${f(a[1])} Q${f(m[0])},${f(m[1])} ${f(b[0])},${f(b[1])}" fill="none" stroke="${ink}" stroke-width="${f(lw)}" stroke-linecap="round"/>`,
    );
  }

  // Glasses: clean frames along the rims found on the photo, a bridge between them.
  if (glasses) {
    const frame: Lab = glasses.dark
      ? [clamp(glasses.lab[0], 0.15, 0.4), glasses.lab[1], glasses.lab[2]]
      : [0.55, 0, 0];
    const gw = Math.max(1.5, fw * 0.022);
    for (const rim of glasses.rims)
      parts.push(
        `<path d="${smoothClosed(rim)}" fill="#ffffff" fill-opacity="0.12" stroke="${hex(frame)}" stroke-width="${f(gw)}" stroke-linejoin="round"/>`,
      );
    const [p, q] = glasses.bridge;
    parts.push(
      `<path d="M${f(p[0])},${f(p[1])} L${f(q[0])},${f(q[1])}" stroke="${hex(frame)}" stroke-width="${f(gw)}" stroke-linecap="round"/>`,
    );
  }
  return { body: `<defs>${defs.join("")}</defs>${parts.join("")}`, blush };
}
