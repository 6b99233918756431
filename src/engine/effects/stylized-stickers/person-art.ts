import sharp from "sharp";
import type { Face } from "../../vision/human";
import type { RawImage } from "../../shared/image-io";
import { fillPolygon, forEachInPolygon, inPolygon, type Mask } from "../../shared/mask";
import { oklab, oklabToRgb } from "../../shared/pixel-art";
import { blurField } from "../../shared/clay/blur";
import { components } from "../../shared/components";
import { boxMean } from "../../shared/portrait/matte";
import {
  MESH_BROWS,
  MESH_EYES,
  MESH_LIP_LOWER_INNER,
  MESH_LIPS_OUTER,
  MESH_MOUTH_LINE,
  MESH_NOSE_BOTTOM,
  MESH_OVAL,
} from "../../shared/mesh-parts";

/**
 * The person drawn as a cartoon sticker: the face's skin in three soft cel tones made from the
 * face's own colour (shading from the photo's light, heavily smoothed, so no posterised bands),
 * then the features placed from the face mesh and drawn, not posterised: eyes with a dark iris
 * in the photo's eye colour and a white catch-light, a dark upper lash line, brows in the
 * photo's brow colour, a small nose, the mouth with the lips' own colour and a softly smiling
 * line, and blush ovals kept inside the face oval. Hair, clothes, glasses and beards stay as
 * the flat cartoon areas underneath. A feature whose surroundings are not skin (a hand or a
 * camera over the eye, a fringe over a brow) is left as the cartoon has it.
 */

type Pt = [number, number];
type Lab = [number, number, number];

/** Cheek points (two per cheek) for the blush. */
const CHEEKS = [
  [50, 205],
  [280, 425],
] as const;

const INK: Lab = oklab(52, 34, 40);
const PINK: readonly [number, number, number] = [255, 120, 146];

const clamp = (v: number, a: number, b: number) => (v < a ? a : v > b ? b : v);
const lerp = (a: Pt, b: Pt, t: number): Pt => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
const hex = (rgb: readonly number[]) =>
  "#" + rgb.map((v) => clamp(Math.round(v), 0, 255).toString(16).padStart(2, "0")).join("");
const labHex = (l: Lab) => hex(oklabToRgb(l[0], l[1], l[2]));
const f = (v: number) => v.toFixed(2);

function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[clamp(Math.round(p * (s.length - 1)), 0, s.length - 1)]!;
}

/** A polygon shrunk (t < 1) or grown (t > 1) about its centroid. */
function scaled(poly: Pt[], t: number): Pt[] {
  const cx = poly.reduce((s, p) => s + p[0], 0) / poly.length;
  const cy = poly.reduce((s, p) => s + p[1], 0) / poly.length;
  return poly.map(([x, y]) => [cx + (x - cx) * t, cy + (y - cy) * t]);
}

function polyMask(poly: Pt[], width: number, height: number): Uint8Array {
  const m: Mask = { data: new Uint8Array(width * height), width, height };
  fillPolygon(m, poly);
  return m.data;
}

/** A smooth closed SVG path through the points (quadratic curves between midpoints). */
function closedPath(pts: Pt[]): string {
  const n = pts.length;
  const mid = (i: number) => lerp(pts[i % n]!, pts[(i + 1) % n]!, 0.5);
  let d = `M${f(mid(0)[0])},${f(mid(0)[1])}`;
  for (let i = 1; i <= n; i++) {
    const c = pts[i % n]!;
    const m = mid(i);
    d += ` Q${f(c[0])},${f(c[1])} ${f(m[0])},${f(m[1])}`;
  }
  return d + " Z";
}

/** A smooth open SVG path through the points. */
function openPath(pts: Pt[]): string {
  if (pts.length < 3) return `M${pts.map((p) => `${f(p[0])},${f(p[1])}`).join(" L")}`;
  let d = `M${f(pts[0]![0])},${f(pts[0]![1])}`;
  for (let i = 1; i < pts.length - 1; i++) {
    const m = lerp(pts[i]!, pts[i + 1]!, 0.5);
    const end = i === pts.length - 2 ? pts[i + 1]! : m;
    d += ` Q${f(pts[i]![0])},${f(pts[i]![1])} ${f(end[0])},${f(end[1])}`;
  }
  return d;
}

/**
 * The face's own skin: a Gaussian over its OKLab colours (mean and inverse covariance), so
 * auburn hair of nearly the skin's hue but darker is not skin while the face's shadow side is.
 */
export interface SkinModel {
  ref: Lab;
  inv: number[];
  /** The darkest lightness still skin on the face (its shadow side, not a beard). */
  floor: number;
  /** Cheek-to-cheek width in image pixels. */
  width: number;
  /** The lit side's lightness (60th percentile of the samples): the cartoon's base tone. */
  lit?: number;
}

/** Squared Mahalanobis distance above which a colour is not the face's skin. */
const SKIN_LIMIT = 12;
/** The same on the face and neck, for colour alone (a redder forehead, a warm shadow). */
const FACE_LIMIT = 20;
/** Above the face oval, how much darker than the skin's mean a pixel may be and stay skin. */
const FOREHEAD_DROP = 0.12;

function gaussian(samples: Lab[]): { mean: Lab; inv: number[] } | null {
  if (samples.length < 10) return null;
  const mean: Lab = [0, 0, 0];
  for (const p of samples) for (let c = 0; c < 3; c++) mean[c] = mean[c]! + p[c]! / samples.length;
  const cov = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  for (const p of samples)
    for (let r = 0; r < 3; r++)
      for (let c = 0; c < 3; c++)
        cov[r * 3 + c] = cov[r * 3 + c]! + ((p[r]! - mean[r]!) * (p[c]! - mean[c]!)) / samples.length;
  // Floors: a very even face must still allow its own shading and a little colour change.
  cov[0] = Math.max(cov[0]!, 0.035 ** 2);
  cov[4] = Math.max(cov[4]!, 0.009 ** 2);
  cov[8] = Math.max(cov[8]!, 0.009 ** 2);
  const [a, b, c, d, e, f2, g, h, k] = cov as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const det = a * (e * k - f2 * h) - b * (d * k - f2 * g) + c * (d * h - e * g);
  if (!(Math.abs(det) > 1e-18)) return null;
  const inv = [
    (e * k - f2 * h) / det,
    (c * h - b * k) / det,
    (b * f2 - c * e) / det,
    (f2 * g - d * k) / det,
    (a * k - c * g) / det,
    (c * d - a * f2) / det,
    (d * h - e * g) / det,
    (b * g - a * h) / det,
    (a * e - b * d) / det,
  ];
  return { mean, inv };
}

function mahalanobis(m: { ref: Lab; inv: number[] }, l: number, a: number, b: number): number {
  const v = [l - m.ref[0], a - m.ref[1], b - m.ref[2]];
  let s = 0;
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) s += v[r]! * m.inv[r * 3 + c]! * v[c]!;
  return s;
}

/**
 * The face's skin colour, read on the upper face (forehead and cheeks above the nose's base,
 * away from eyes and brows: a beard or a moustache does not count), from `lab` (OKLab, n x 3).
 * Twice: the second pass leaves out what the first found far from skin (glasses, a fringe).
 */
export function skinModel(
  lab: Float32Array,
  width: number,
  height: number,
  face: Face,
  d: Pt,
): SkinModel | null {
  const at = (k: number): Pt => [face.mesh[k]![0] + d[0], face.mesh[k]![1] + d[1]];
  const fw = Math.max(Math.hypot(at(454)[0] - at(234)[0], at(454)[1] - at(234)[1]), face.box[2] * 0.6);
  const oval = scaled(MESH_OVAL.map(at), 0.78);
  const below = at(2)[1];
  const avoid = [
    ...MESH_EYES.map((e) =>
      scaled([at(e.outer), ...e.upper.map(at), at(e.inner), ...e.lower.map(at).reverse()], 1.8),
    ),
    ...MESH_BROWS.map((b) => scaled([...b.upper.map(at), ...b.lower.map(at).reverse()], 1.5)),
  ];
  const all: Lab[] = [];
  // Rows down to `below` only.
  const rows = Math.min(height, Math.ceil(below) + 1);
  const step = Math.max(1, Math.round(fw / 120));
  forEachInPolygon(
    oval,
    width,
    rows,
    (x, y) => {
      if (avoid.some((p) => inPolygon(x, y, p))) return;
      const i = (y * width + x) * 3;
      all.push([lab[i]!, lab[i + 1]!, lab[i + 2]!]);
    },
    { at: 0, step },
  );
  if (all.length < 30) return null;
  const med: Lab = [0, 1, 2].map((c) =>
    percentile(
      all.map((p) => p[c]!),
      0.5,
    ),
  ) as Lab;
  // First pass: the samples near the median colour; second: the Gaussian of those.
  const near = all.filter(
    (p) => Math.abs(p[0] - med[0]) < 0.12 && Math.hypot(p[1] - med[1], p[2] - med[2]) < 0.04,
  );
  const first = gaussian(near.length >= 30 ? near : all);
  if (!first) return null;
  const kept = all.filter((p) => mahalanobis({ ref: first.mean, inv: first.inv }, ...p) < 9);
  const second = gaussian(kept.length >= 30 ? kept : near) ?? first;
  const lights = (kept.length >= 30 ? kept : all).map((p) => p[0]);
  const floor = Math.max(second.mean[0] - 0.26, percentile(lights, 0.03) - 0.08);
  return { ref: second.mean, inv: second.inv, floor, width: fw, lit: percentile(lights, 0.6) };
}

export const isSkin = (m: SkinModel, l: number, a: number, b: number) =>
  mahalanobis(m, l, a, b) <= SKIN_LIMIT;

/** Skin on the face itself: the skin's colour (a, b) at any lightness from deep shadow to highlight. */
export function isFaceSkin(m: SkinModel, l: number, a: number, b: number): boolean {
  if (l > m.ref[0] + 0.16 || l < m.ref[0] - 0.26) return false;
  // Below the face's usual shadows only what keeps the skin's full colour (a shadowed cheek,
  // not the greyer brown of a beard).
  if (l < m.floor && Math.hypot(a, b) < Math.hypot(m.ref[1], m.ref[2])) return false;
  // The colour part of the Gaussian (a, b), its inverse from the 3 x 3 one's Schur complement.
  const [i00, i01, i02, , i11, i12, , , i22] = m.inv as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const da = a - m.ref[1];
  const db = b - m.ref[2];
  // Conditional on the lightness being free: the (a, b) block minus the lightness coupling.
  const qa = i11 - (i01 * i01) / i00;
  const qab = i12 - (i01 * i02) / i00;
  const qb = i22 - (i02 * i02) / i00;
  return qa * da * da + 2 * qab * da * db + qb * db * db <= FACE_LIMIT;
}

/** Every pixel of a 3-channel image in OKLab. */
export function labImage(img: RawImage): Float32Array {
  const n = img.width * img.height;
  const out = new Float32Array(n * 3);
  const cache = new Map<number, Lab>();
  for (let i = 0; i < n; i++) {
    const r = img.data[i * 3]!;
    const g = img.data[i * 3 + 1]!;
    const b = img.data[i * 3 + 2]!;
    const key = (r << 16) | (g << 8) | b;
    let v = cache.get(key);
    if (!v) {
      v = oklab(r, g, b);
      if (cache.size < 200_000) cache.set(key, v);
    }
    out[i * 3] = v[0];
    out[i * 3 + 1] = v[1];
    out[i * 3 + 2] = v[2];
  }
  return out;
}

export interface PersonArtInput {
  /** The subject's crop (3 channels), photo colours. */
  photo: RawImage;
  /** The same crop, flattened (cartoonise): drawn on in place. */
  cartoon: RawImage;
  /** The subject on the crop. */
  mask: Mask;
  faces: Face[];
  /** Moves mesh points (source pixels) onto the crop. */
  offset: Pt;
}

/** Paints every face of the sticker as described above (the cartoon is changed in place). */
export async function drawPeople(input: PersonArtInput): Promise<void> {
  const { photo, cartoon, mask, faces, offset } = input;
  const { width, height } = photo;
  // A lightly smoothed copy for reading colours (skin pores and noise do not count).
  const soft = await sharp(photo.data, { raw: { width, height, channels: 3 } })
    .blur(1.2)
    .raw()
    .toBuffer();
  const lab = labImage({ data: soft, width, height, channels: 3 });
  for (const face of faces) {
    if (face.mesh.length < 468) continue;
    const model = skinModel(lab, width, height, face, offset);
    if (!model) continue;
    const { skin, open } = drawSkin(cartoon, lab, mask, face, offset, model);
    await drawFeatures(cartoon, lab, mask, face, offset, model, skin, open);
  }
}

/**
 * The face's skin, and the skin joined to it (ears, neck, a bare chest), in three tones of
 * its own colour: shadow, mid and light, from the photo's lightness blurred over a fifteenth
 * of the face, so the shading comes in a few large soft shapes.
 */
function drawSkin(
  img: RawImage,
  lab: Float32Array,
  mask: Mask,
  face: Face,
  d: Pt,
  m: SkinModel,
): { skin: Uint8Array; open: boolean[] } {
  const { width, height } = img;
  const n = width * height;
  const at = (k: number): Pt => [face.mesh[k]![0] + d[0], face.mesh[k]![1] + d[1]];
  const fw = m.width;
  const oval = MESH_OVAL.map(at);
  const ovalMask = polyMask(oval, width, height);
  // Skin-like pixels of the subject, speckles removed (blurred and thresholded).
  // Above the eyes, skin ends at the face oval (what lies beyond is hair of the skin's hue).
  const grown = polyMask(scaled(oval, 1.06), width, height);
  const forehead = polyMask(scaled(oval, 1.3), width, height);
  const eyes = lerp(at(33), at(263), 0.5);
  const top = at(10);
  const chin = at(152);
  const upLen = Math.hypot(top[0] - chin[0], top[1] - chin[1]) || 1;
  const up: Pt = [(top[0] - chin[0]) / upLen, (top[1] - chin[1]) / upLen];
  // Beyond the face oval (and its forehead) skin is looked for only on a colour photo: on a
  // grey print a neck, a collar and a pale dress are the same greys.
  const colourful = Math.hypot(m.ref[1], m.ref[2]) > 0.025;
  const raw = new Float32Array(n);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!mask.data[i]) continue;
      const rise = (x - eyes[0]) * up[0] + (y - eyes[1]) * up[1];
      const side = Math.abs((x - chin[0]) * up[1] - (y - chin[1]) * up[0]);
      const drop = (chin[0] - x) * up[0] + (chin[1] - y) * up[1];
      if (grown[i] || (colourful && drop > 0 && drop < fw * 0.45 && side < fw * 0.7)) {
        // On the face and the neck just under it, the shadow side counts: only the colour
        // is checked, with a floor of lightness.
        if (!isFaceSkin(m, lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!)) continue;
      } else if (!colourful && !(rise > 0 && forehead[i])) continue;
      else if (colourful && rise > 0 && forehead[i]) {
        // The forehead up to the hairline (session 11): by colour, like the face, so its lit
        // top or the shadow under a fringe is skin too and no seam runs along the mesh's
        // oval; hair of the skin's hue is darker than the skin's shadow side.
        if (!isFaceSkin(m, lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!)) continue;
        if (lab[i * 3]! < m.ref[0] - FOREHEAD_DROP) continue;
      } else if (!isSkin(m, lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!)) continue;
      else if (rise > 0 && !forehead[i]) continue;
      raw[i] = 1;
    }
  // The feature zones (eyes, brows, nostrils, lips) are repainted as skin and drawn anew.
  const zones = featureZones(at);
  const open = zones.map((z) => surroundedBySkin(raw, z, width, height));
  zones.forEach((z, k) => {
    if (!open[k]) return;
    const zm = polyMask(z, width, height);
    for (let i = 0; i < n; i++) if (zm[i] && mask.data[i]) raw[i] = 1;
  });
  // A majority over a small window: specks go, a glasses frame stays.
  const blurred = boxMean(raw, width, height, Math.max(1, Math.round(fw * 0.005)));
  const skin = new Uint8Array(n);
  // Beyond the face (hairline, neck, ears) the skin's edge is rounded more.
  const rounded = blurField(raw, width, height, Math.max(1, fw * 0.015));
  for (let i = 0; i < n; i++) skin[i] = (grown[i] ? blurred[i]! : rounded[i]!) >= 0.5 && mask.data[i] ? 1 : 0;
  // Only the skin joined to this face (its oval's core).
  const core = polyMask(scaled(oval, 0.7), width, height);
  const { labels, count } = components(skin, width, height);
  const keep = new Uint8Array(count + 1);
  for (let i = 0; i < n; i++) if (core[i] && skin[i]) keep[labels[i]!] = 1;
  // Small holes in the face's skin (a mole, a glint) are filled; glasses and beards stay.
  const holes = new Uint8Array(n);
  for (let i = 0; i < n; i++) holes[i] = !skin[i] || !keep[labels[i]!] ? 1 : 0;
  const holeParts = components(holes, width, height);
  const size = new Int32Array(holeParts.count + 1);
  for (let i = 0; i < n; i++) if (holes[i]) size[holeParts.labels[i]!]!++;
  const small = fw * fw * 0.004;
  for (let i = 0; i < n; i++) {
    if (skin[i] && keep[labels[i]!]) continue;
    skin[i] = holes[i] && ovalMask[i] && mask.data[i] && size[holeParts.labels[i]!]! < small ? 1 : 0;
  }

  // Shading: the photo's lightness over the skin only (normalised blur), in three tones.
  const lum = new Float32Array(n);
  const w = new Float32Array(n);
  for (let i = 0; i < n; i++)
    if (skin[i]) {
      lum[i] = lab[i * 3]!;
      w[i] = 1;
    }
  const sigma = Math.max(1.5, fw * 0.035);
  const bl = blurField(lum, width, height, sigma);
  const bw = blurField(w, width, height, sigma);
  const shade = new Float32Array(n);
  const sample: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!skin[i]) continue;
    shade[i] = bl[i]! / Math.max(1e-3, bw[i]!);
    if (ovalMask[i] && i % 7 === 0) sample.push(shade[i]!);
  }
  const low = percentile(sample, 0.2);
  const high = percentile(sample, 0.9);
  const tone = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (skin[i]) tone[i] = shade[i]! < low ? 0 : shade[i]! > high ? 2 : 1;
  // Islands of a tone smaller than a 100th of the face go to the mid tone.
  for (const t of [0, 2]) {
    const is = new Uint8Array(n);
    for (let i = 0; i < n; i++) is[i] = skin[i] && tone[i] === t ? 1 : 0;
    const parts = components(is, width, height);
    const area = new Int32Array(parts.count + 1);
    for (let i = 0; i < n; i++) if (is[i]) area[parts.labels[i]!]!++;
    for (let i = 0; i < n; i++) if (is[i] && area[parts.labels[i]!]! < fw * fw * 0.01) tone[i] = 1;
  }
  const palette = skinTones(m);
  // Anti-aliased borders: a pixel next to another tone (or the cartoon) is their 3 x 3 mean.
  const out = Buffer.from(img.data);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!skin[i]) continue;
      let edge = false;
      for (const j of [i - 1, i + 1, i - width, i + width])
        if (j < 0 || j >= n || !skin[j] || tone[j] !== tone[i]) edge = true;
      const own = palette[tone[i]!]!;
      if (!edge) {
        out[i * 3] = own[0];
        out[i * 3 + 1] = own[1];
        out[i * 3 + 2] = own[2];
        continue;
      }
      const sum = [0, 0, 0];
      let k = 0;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          const yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue;
          const j = yy * width + xx;
          if (!mask.data[j]) continue;
          const c = skin[j]
            ? palette[tone[j]!]!
            : [img.data[j * 3]!, img.data[j * 3 + 1]!, img.data[j * 3 + 2]!];
          for (let c3 = 0; c3 < 3; c3++) sum[c3] = sum[c3]! + c[c3]!;
          k++;
        }
      for (let c3 = 0; c3 < 3; c3++) out[i * 3 + c3] = Math.round(sum[c3]! / k);
    }
  // A thin line where the skin meets hair or clothes inside the sticker, in a deep skin shade.
  const line = palette[0]!.map((v) => Math.round(v * 0.55));
  const lw = Math.max(1, Math.round(fw * 0.006));
  const border = new Uint8Array(n);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!skin[i]) continue;
      for (const j of [x > 0 ? i - 1 : -1, x < width - 1 ? i + 1 : -1, i - width, i + width])
        if (j >= 0 && j < n && mask.data[j] && !skin[j] && !ovalMask[j]) border[i] = 1;
    }
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      if (!border[y * width + x]) continue;
      for (let dy = -lw + 1; dy < lw; dy++)
        for (let dx = -lw + 1; dx < lw; dx++) {
          const xx = x + dx;
          const yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= width || yy >= height || dx * dx + dy * dy >= lw * lw) continue;
          const j = yy * width + xx;
          if (!skin[j]) continue;
          out[j * 3] = line[0]!;
          out[j * 3 + 1] = line[1]!;
          out[j * 3 + 2] = line[2]!;
        }
    }
  out.copy(img.data);
  return { skin, open };
}

/** Shadow, mid and light skin tones from the face's own colour (brighter, as a cartoon's). */
export function skinTones(m: SkinModel): Array<[number, number, number]> {
  const [L, a, b] = m.ref;
  const chroma = Math.hypot(a, b);
  // A warm shadow on coloured skin; a grey or sepia print keeps its own hue.
  const warm = clamp(chroma / 0.05, 0, 1) * 0.012;
  // The base tone is the lit side's (session 11): a half-shaded face (an old print lit from
  // one side) is not painted in its mean, a darker grey than the face the photo shows.
  const base = Math.max(L, Math.min(L + 0.08, m.lit ?? L));
  const mid: Lab = [clamp(base + 0.06, 0.35, 0.9), a * 1.2, b * 1.15];
  const shadow: Lab = [mid[0] - 0.085, mid[1] + warm, mid[2] + warm * 0.3];
  const light: Lab = [Math.min(0.95, mid[0] + 0.05), mid[1] * 0.92, mid[2] * 0.92];
  return [shadow, mid, light].map(
    (l) => oklabToRgb(l[0], l[1], l[2]).map((v) => clamp(Math.round(v), 0, 255)) as [number, number, number],
  );
}

/** Eyes, brows, lips, nose (in this order): where features are drawn over repainted skin. */
function featureZones(at: (k: number) => Pt): Pt[][] {
  const zones: Pt[][] = [];
  for (const e of MESH_EYES)
    zones.push(scaled([at(e.outer), ...e.upper.map(at), at(e.inner), ...e.lower.map(at).reverse()], 1.45));
  for (const b of MESH_BROWS) zones.push(scaled([...b.upper.map(at), ...b.lower.map(at).reverse()], 1.35));
  zones.push(scaled(MESH_LIPS_OUTER.map(at), 1.12));
  zones.push(scaled([...MESH_NOSE_BOTTOM.map(at), at(4), at(1)], 1.2));
  return zones;
}

/** Whether the ring around a zone (its polygon grown by half) is mostly skin. */
function surroundedBySkin(skin: Float32Array, zone: Pt[], width: number, height: number): boolean {
  const outer = scaled(zone, 1.6);
  let all = 0;
  let yes = 0;
  forEachInPolygon(
    outer,
    width,
    height,
    (x, y) => {
      if (inPolygon(x, y, zone)) return;
      all++;
      if (skin[y * width + x]) yes++;
    },
    { at: 0 },
  );
  return all > 0 && yes / all >= 0.3;
}

/** The median OKLab colour of the polygon's pixels, or of its darkest (or lightest) share. */
function sampleIn(
  lab: Float32Array,
  width: number,
  height: number,
  poly: Pt[],
  darkest = 1,
  lightFirst = false,
): Lab | null {
  const px: Lab[] = [];
  forEachInPolygon(poly, width, height, (x, y) => {
    const i = (y * width + x) * 3;
    px.push([lab[i]!, lab[i + 1]!, lab[i + 2]!]);
  });
  if (!px.length) return null;
  px.sort((a, b) => (lightFirst ? b[0] - a[0] : a[0] - b[0]));
  const use = px.slice(0, Math.max(1, Math.round(px.length * darkest)));
  return [
    percentile(
      use.map((p) => p[0]),
      0.5,
    ),
    percentile(
      use.map((p) => p[1]),
      0.5,
    ),
    percentile(
      use.map((p) => p[2]),
      0.5,
    ),
  ];
}

/** Rasterises an SVG fragment over the region and blends it onto the image where `clip` allows. */
async function paint(
  img: RawImage,
  region: { x0: number; y0: number; w: number; h: number },
  body: string,
  clip: (i: number) => number,
): Promise<void> {
  const { x0, y0, w, h } = region;
  if (w < 1 || h < 1) return;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="${x0} ${y0} ${w} ${h}">${body}</svg>`;
  const layer = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (layer.info.width !== w || layer.info.height !== h)
    throw new Error("person-art: layer has the wrong size");
  const data = layer.data;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const k = (y * w + x) * 4;
      if (!data[k + 3]) continue;
      const i = (y0 + y) * img.width + x0 + x;
      const a = (data[k + 3]! / 255) * clip(i);
      if (a <= 0) continue;
      for (let c = 0; c < 3; c++)
        img.data[i * 3 + c] = Math.round(img.data[i * 3 + c]! * (1 - a) + data[k + c]! * a);
    }
}

async function drawFeatures(
  img: RawImage,
  lab: Float32Array,
  mask: Mask,
  face: Face,
  d: Pt,
  m: SkinModel,
  skin: Uint8Array,
  open: boolean[],
): Promise<void> {
  const { width, height } = img;
  const at = (k: number): Pt => [face.mesh[k]![0] + d[0], face.mesh[k]![1] + d[1]];
  const fw = m.width;
  const sample = (poly: Pt[], darkest = 1) => sampleIn(lab, width, height, poly, darkest);
  const ink = labHex(INK);
  const oval = MESH_OVAL.map(at);
  // The face's up direction (chin to forehead) and the region the features are drawn in.
  const top = at(10);
  const chin = at(152);
  const upLen = Math.hypot(top[0] - chin[0], top[1] - chin[1]) || 1;
  const up: Pt = [(top[0] - chin[0]) / upLen, (top[1] - chin[1]) / upLen];
  const xs = oval.map((p) => p[0]);
  const ys = oval.map((p) => p[1]);
  const pad = fw * 0.15;
  const rx0 = clamp(Math.floor(Math.min(...xs) - pad), 0, width - 1);
  const ry0 = clamp(Math.floor(Math.min(...ys) - pad), 0, height - 1);
  const region = {
    x0: rx0,
    y0: ry0,
    w: clamp(Math.ceil(Math.max(...xs) + pad), 0, width) - rx0,
    h: clamp(Math.ceil(Math.max(...ys) + pad), 0, height) - ry0,
  };

  // Blush: soft pink ovals on the cheeks, moved inside the face oval, clipped to its skin.
  if (Math.abs(face.rotation.yaw) < 0.6) {
    const inner = scaled(oval, 0.9);
    const ovalMask = polyMask(inner, width, height);
    let blush = "";
    CHEEKS.forEach(([a, b], k) => {
      let [cx, cy] = lerp(at(a), at(b), 0.5);
      cy += fw * 0.02;
      let rw = fw * 0.12;
      const rh = fw * 0.07;
      // The oval's extent on the blush's row.
      const cuts: number[] = [];
      for (let i = 0; i < inner.length; i++) {
        const [ax, ay] = inner[i]!;
        const [bx, by] = inner[(i + 1) % inner.length]!;
        if (ay <= cy === by <= cy) continue;
        cuts.push(ax + ((cy - ay) / (by - ay)) * (bx - ax));
      }
      if (cuts.length < 2) return;
      const xl = Math.min(...cuts);
      const xr = Math.max(...cuts);
      if (k === 0 && cx - rw < xl) cx = Math.min(cx + fw * 0.08, xl + rw);
      if (k === 1 && cx + rw > xr) cx = Math.max(cx - fw * 0.08, xr - rw);
      rw = Math.min(rw, k === 0 ? cx - xl : xr - cx);
      if (rw < fw * 0.05) return;
      blush += `<ellipse cx="${f(cx)}" cy="${f(cy)}" rx="${f(rw)}" ry="${f(rh)}" fill="${hex(PINK)}"/>`;
    });
    const soft = f(fw * 0.018);
    await paint(
      img,
      region,
      `<defs><filter id="b" x="-50%" y="-50%" width="200%" height="200%"><feGaussianBlur stdDeviation="${soft}"/></filter></defs><g filter="url(#b)" opacity="0.5">${blush}</g>`,
      (i) => (skin[i] && ovalMask[i] ? 1 : 0),
    );
  }

  const parts: string[] = [];
  const defs: string[] = [];
  // Brows: the mesh's brow shape in the photo's brow colour, deepened.
  MESH_BROWS.forEach((b, k) => {
    if (!open[2 + k]) return;
    const poly = [...b.upper.map(at), ...b.lower.map(at).reverse()];
    const c = sample(poly, 0.4) ?? [0.3, 0, 0];
    const col: Lab = [clamp(Math.min(c[0] * 0.8, m.ref[0] - 0.22), 0.18, 0.6), c[1], c[2]];
    parts.push(
      `<path d="${closedPath(poly)}" fill="${labHex(col)}" stroke="${labHex(col)}" stroke-width="${f(fw * 0.01)}" stroke-linejoin="round"/>`,
    );
  });

  // Eyes: the mesh's eye shape, opened a little (kawaii), a large iris in the photo's eye
  // colour looking where the photo's iris is, a dark pupil, a white catch-light, lash lines.
  MESH_EYES.forEach((e, k) => {
    if (!open[k]) return;
    const outer = at(e.outer);
    const innerC = at(e.inner);
    const ew = Math.hypot(innerC[0] - outer[0], innerC[1] - outer[1]);
    if (ew < 5) return;
    const u: Pt = [(innerC[0] - outer[0]) / ew, (innerC[1] - outer[1]) / ew];
    let nn: Pt = [-u[1], u[0]];
    if (nn[1] < 0) nn = [-nn[0], -nn[1]];
    const upper = [outer, ...e.upper.map(at), innerC];
    const lower = [innerC, ...e.lower.map(at).reverse(), outer];
    const contour = [...upper, ...lower.slice(1, -1)];
    const c = lerp(outer, innerC, 0.5);
    const opening = Math.max(
      1e-3,
      (at(e.lower[3]!)[0] - at(e.upper[3]!)[0]) * nn[0] + (at(e.lower[3]!)[1] - at(e.upper[3]!)[1]) * nn[1],
    );
    const su = 1.15;
    const sn = clamp((0.4 * ew) / opening, 1.35, 2.2);
    const mid =
      contour.reduce((s, p) => s + ((p[0] - c[0]) * nn[0] + (p[1] - c[1]) * nn[1]), 0) / contour.length;
    const centre: Pt = [c[0] + nn[0] * mid, c[1] + nn[1] * mid];
    const tf = (p: Pt): Pt => {
      const du = (p[0] - centre[0]) * u[0] + (p[1] - centre[1]) * u[1];
      const dn = (p[0] - centre[0]) * nn[0] + (p[1] - centre[1]) * nn[1];
      return [centre[0] + u[0] * du * su + nn[0] * dn * sn, centre[1] + u[1] * du * su + nn[1] * dn * sn];
    };
    const shape = contour.map(tf);
    // Where the photo's iris is along the eye: the darkness-weighted centre.
    let sw = 0;
    let st = 0;
    const L0 = (sample(contour) ?? [0.5])[0];
    forEachInPolygon(contour, width, height, (x, y) => {
      const wgt = Math.max(0, L0 + 0.05 - lab[(y * width + x) * 3]!) ** 2;
      sw += wgt;
      st += wgt * ((x + 0.5 - centre[0]) * u[0] + (y + 0.5 - centre[1]) * u[1]);
    });
    const along = clamp(sw > 0 ? st / sw : 0, -0.2 * ew, 0.2 * ew) * su;
    const r = 0.32 * ew;
    const h2 = opening * sn;
    const ic: Pt = [
      centre[0] + u[0] * along + nn[0] * h2 * 0.08,
      centre[1] + u[1] * along + nn[1] * h2 * 0.08,
    ];
    const irisLab = sample(contour, 0.3) ?? [0.35, 0, 0];
    const irisL = clamp(irisLab[0], 0.28, 0.48);
    const deep = labHex([irisL - 0.13, irisLab[1] * 1.3, irisLab[2] * 1.3]);
    const pale = labHex([irisL + 0.1, irisLab[1] * 1.5, irisLab[2] * 1.5]);
    const id = `e${k}`;
    defs.push(
      `<clipPath id="${id}c"><path d="${closedPath(shape)}"/></clipPath>`,
      `<linearGradient id="${id}g" x1="0" y1="0" x2="0" y2="1"><stop offset="0.2" stop-color="${deep}"/><stop offset="1" stop-color="${pale}"/></linearGradient>`,
    );
    const upperS = upper.map(tf);
    const lowerS = lower.map(tf);
    // The lash line runs a little past the outer corner, rising.
    const o = upperS[0]!;
    const flick: Pt = [
      o[0] - u[0] * ew * 0.12 - nn[0] * ew * 0.07,
      o[1] - u[1] * ew * 0.12 - nn[1] * ew * 0.07,
    ];
    parts.push(
      `<path d="${closedPath(shape)}" fill="#fbf8f5"/>`,
      `<g clip-path="url(#${id}c)"><ellipse cx="${f(ic[0])}" cy="${f(ic[1])}" rx="${f(r)}" ry="${f(r * 1.1)}" fill="url(#${id}g)"/>` +
        `<circle cx="${f(ic[0])}" cy="${f(ic[1])}" r="${f(r * 0.48)}" fill="#22181c"/>` +
        `<circle cx="${f(ic[0] - r * 0.36)}" cy="${f(ic[1] - r * 0.38)}" r="${f(r * 0.32)}" fill="#ffffff"/>` +
        `<circle cx="${f(ic[0] + r * 0.36)}" cy="${f(ic[1] + r * 0.36)}" r="${f(r * 0.13)}" fill="#ffffff"/></g>`,
      `<path d="${openPath([flick, ...upperS])}" fill="none" stroke="${ink}" stroke-width="${f(Math.max(1.5, fw * 0.022))}" stroke-linecap="round" stroke-linejoin="round"/>`,
      `<path d="${openPath(lowerS.slice(0, -1))}" fill="none" stroke="${ink}" stroke-opacity="0.55" stroke-width="${f(Math.max(1, fw * 0.008))}" stroke-linecap="round"/>`,
    );
  });

  // Nose: a short soft curve under its tip.
  const tones = skinTones(m);
  const shadowLab = oklab(...tones[0]!);
  if (open[5]) {
    const tip = at(2);
    const nl = lerp(tip, at(98), 0.5);
    const nr = lerp(tip, at(327), 0.5);
    const dip: Pt = [tip[0] - up[0] * fw * 0.015, tip[1] - up[1] * fw * 0.015];
    parts.push(
      `<path d="M${f(nl[0])},${f(nl[1])} Q${f(dip[0])},${f(dip[1])} ${f(nr[0])},${f(nr[1])}" fill="none" stroke="${labHex([shadowLab[0] - 0.14, shadowLab[1] * 1.2, shadowLab[2] * 1.2])}" stroke-width="${f(Math.max(1.2, fw * 0.013))}" stroke-linecap="round"/>`,
    );
  }

  // Mouth: the lips in their own colour, the line between them gently smiling; an open mouth
  // shows its teeth (or its dark inside).
  const lips = MESH_LIPS_OUTER.map(at);
  const innerMouth = [...MESH_MOUTH_LINE.slice(1, -1), ...MESH_LIP_LOWER_INNER.slice(1, -1)].map(at);
  const gap = Math.hypot(at(13)[0] - at(14)[0], at(13)[1] - at(14)[1]);
  if (open[4]) {
    const lip = sample(lips) ?? shadowLab;
    const lipCol: Lab = [clamp(lip[0], m.ref[0] - 0.2, m.ref[0] - 0.05), lip[1] * 1.15 + 0.01, lip[2] * 1.05];
    parts.push(`<path d="${closedPath(lips)}" fill="${labHex(lipCol)}" fill-opacity="0.9"/>`);
  }
  const lw = f(Math.max(1.5, fw * 0.014));
  if (gap > fw * 0.035) {
    // Teeth: the lighter part of the open mouth nearly as light as the skin and greyer than
    // it; else the mouth's dark inside.
    const all = sample(innerMouth) ?? [0.3, 0, 0];
    const inside = sampleIn(lab, width, height, innerMouth, 0.4, true) ?? all;
    const teeth =
      inside[0] > m.ref[0] - 0.15 && Math.hypot(inside[1], inside[2]) < Math.hypot(m.ref[1], m.ref[2]) + 0.01;
    const fill = teeth ? "#fffdf8" : "#5b2129";
    parts.push(
      `<path d="${closedPath(innerMouth)}" fill="${fill}" stroke="${ink}" stroke-width="${lw}" stroke-linejoin="round"/>`,
    );
  } else {
    // The photo's own mouth line (session 11): a frown, a worried or a neutral mouth stays as
    // photographed; the mesh line is only smoothed, never lifted into a smile.
    const line = smileLine(MESH_MOUTH_LINE.map(at), up, fw);
    parts.push(
      `<path d="${openPath(line)}" fill="none" stroke="${ink}" stroke-width="${lw}" stroke-linecap="round" stroke-linejoin="round"/>`,
    );
  }
  await paint(img, region, `<defs>${defs.join("")}</defs>${parts.join("")}`, (i) => (mask.data[i] ? 1 : 0));
}

/**
 * The closed mouth's line as the photo has it (session 11): each point's height above or below
 * the mouth's middle (mesh 13, along the face's `up` axis) stretched by a third, so a frown, a
 * worried or a neutral mouth reads as such at sticker size and a smile stays a smile. Nothing is
 * added: a straight mouth stays straight (the old gentle smile turned every face cheerful).
 */
export function smileLine(line: Pt[], up: Pt, fw: number): Pt[] {
  const c = line[Math.floor(line.length / 2)]!;
  return line.map(([x, y]) => {
    const h = clamp((x - c[0]) * up[0] + (y - c[1]) * up[1], -fw * 0.06, fw * 0.06);
    return [x + up[0] * h * 0.35, y + up[1] * h * 0.35];
  });
}

/**
 * Where each ear sits, from the face mesh: an ellipse beside the face's side (mesh 234 and 454),
 * between brow and nose base, in image pixels (`[cx, cy, rx, ry, angle]`, angle of the face's
 * up axis from the image's). A turned face's far ear is usually hidden: its zone holds no skin.
 */
export function earZones(face: Face): Array<[number, number, number, number, number]> {
  const at = (k: number): Pt => [face.mesh[k]![0], face.mesh[k]![1]];
  const l = at(234);
  const r = at(454);
  const fw = Math.max(Math.hypot(r[0] - l[0], r[1] - l[1]), face.box[2] * 0.6);
  const mid = lerp(l, r, 0.5);
  const top = at(10);
  const chin = at(152);
  const upLen = Math.hypot(top[0] - chin[0], top[1] - chin[1]) || 1;
  const up: Pt = [(top[0] - chin[0]) / upLen, (top[1] - chin[1]) / upLen];
  const angle = Math.atan2(up[0], -up[1]);
  return [l, r].map((side) => {
    const dx = side[0] - mid[0];
    const dy = side[1] - mid[1];
    const len = Math.hypot(dx, dy) || 1;
    // Out from the face by a twelfth of its width, level with the eyes' lower lids.
    const c: Pt = [
      side[0] + (dx / len) * fw * 0.08 + up[0] * fw * 0.02,
      side[1] + (dy / len) * fw * 0.08 + up[1] * fw * 0.02,
    ];
    return [c[0], c[1], fw * 0.11, fw * 0.2, angle];
  });
}

/**
 * The person's cut-out with the face and its ears made whole: the face oval from the mesh,
 * and in each ear's zone (`earZones`) the pixels of the face's own skin colour joined to it,
 * so a matte that cut an ear away (the selfie model's edge) does not leave the head lopsided.
 */
export async function withEars(src: RawImage, faces: Face[], person: Mask): Promise<Mask> {
  const { width, height } = src;
  const out: Mask = { data: Uint8Array.from(person.data), width, height };
  const soft = await sharp(src.data, { raw: { width, height, channels: 3 } })
    .blur(1.2)
    .raw()
    .toBuffer();
  const lab = labImage({ data: soft, width, height, channels: 3 });
  for (const face of faces) {
    if (face.mesh.length < 468) continue;
    fillPolygon(
      out,
      MESH_OVAL.map((k): Pt => [face.mesh[k]![0], face.mesh[k]![1]]),
    );
    const model = skinModel(lab, width, height, face, [0, 0]);
    if (!model) continue;
    for (const [cx, cy, rx, ry, angle] of earZones(face)) {
      const cos = Math.cos(angle);
      const sin = Math.sin(angle);
      const reach = Math.max(rx, ry);
      const add = new Uint8Array(width * height);
      for (let y = Math.max(0, Math.floor(cy - reach)); y <= Math.min(height - 1, Math.ceil(cy + reach)); y++)
        for (
          let x = Math.max(0, Math.floor(cx - reach));
          x <= Math.min(width - 1, Math.ceil(cx + reach));
          x++
        ) {
          // In the face's frame: u across, v along its up axis.
          const u = (x - cx) * cos + (y - cy) * sin;
          const v = -(x - cx) * sin + (y - cy) * cos;
          if ((u / rx) ** 2 + (v / ry) ** 2 > 1) continue;
          const i = y * width + x;
          if (isFaceSkin(model, lab[i * 3]!, lab[i * 3 + 1]!, lab[i * 3 + 2]!)) add[i] = 1;
        }
      // Only the ear's skin touching the person (not a skin-coloured wall beyond a gap).
      const { labels, count } = components(add, width, height);
      const touch = new Uint8Array(count + 1);
      for (let y = 0; y < height; y++)
        for (let x = 0; x < width; x++) {
          const i = y * width + x;
          if (!add[i]) continue;
          for (const j of [x > 0 ? i - 1 : -1, x < width - 1 ? i + 1 : -1, i - width, i + width])
            if (j >= 0 && j < add.length && out.data[j]) touch[labels[i]!] = 1;
        }
      for (let i = 0; i < add.length; i++) if (add[i] && touch[labels[i]!]) out.data[i] = 1;
    }
  }
  return out;
}
