import type { RawImage } from "../../shared/image-io";
import sharp from "sharp";
import { fillPolygon, forEachInPolygon } from "../../shared/mask";
import {
  MESH_BROWS,
  MESH_EYES,
  MESH_LIPS_OUTER,
  MESH_LIP_LOWER_INNER,
  MESH_MOUTH_LINE,
  MESH_OVAL,
} from "../../shared/mesh-parts";
import { findGlasses, type Glasses } from "../../shared/pixel-face";
import { featureBoxes } from "../../shared/face-features";
import { inPolygon } from "../../shared/mask";
import { sobel } from "../../shared/edges";
import type { Face } from "../../vision/human";
import { meshProportion } from "../../vision/minor-signal";

/**
 * A face drawn as a pen artist draws it, from the face mesh rather than from the photo's
 * edges: inside the face (its mesh oval, shrunk so the jaw's own line stays) the photo's lines
 * go (skin texture, stubble, wrinkles, the reflections in glasses, a watermark's letters),
 * except long, straight-running ones (a glasses frame, a fold); the eyes (upper lid, a lighter
 * lower lid, the iris where the eye opening is darkest), the brows (tapered strokes), the nose's
 * base and the lips are drawn as smooth curves through the mesh points (`faceSvg`), with widths
 * from the face's size. Faces too small to draw this way (a group on an old print), or turned
 * too far for the mesh to be trusted, keep the photo's lines.
 */

export type Pt = [number, number];

/** Face width (in the photo's pixels) below which the mesh drawing is not used. */
const MIN_FACE = 70;
/** Head turn (yaw, radians) beyond which the mesh drawing is not used. */
const MAX_YAW = 0.6;
/** The face's inside: its oval moved in by this share of the face's width (the rest is the jaw's own line). */
const INSIDE = 0.05;
/** The band round the face: out to this share of its width beyond the oval. */
const BAND = 0.06;
/** The neck: down to this share of the face box's height below the chin. */
const NECK = 0.4;
/** Round the eyes of a face with character, the box traced finely (`faceZones`: 7), padded by this share of its width. */
const LINED_EYE = 0.02;
/** The head round the face (hair, a cap): an ellipse of these radii (shares of the face box). */
const HEAD = 0.85;

/** A face drawn from the mesh, with its glasses when it wears some (drawn from their rims). */
export interface DrawnFace {
  face: Face;
  glasses: Glasses | null;
  /** How child-like the face's proportions are, 0 (an adult's) to 1 (a small child's): `youth`. */
  youth: number;
  /** An adult's face with some lines of its own (`character` from CREASED up): its creases are kept (`faceZones`: 5). */
  creased: boolean;
}

/**
 * Character (`character`) from which an adult's face drawn from the mesh keeps its own shorter
 * creases (session 11): the furrow between the brows, a fold beside the mouth (the worried
 * Migrant Mother: 0.06; smooth young faces 0.02, a freckled one 0.10, where no skin line is
 * long and straight enough to stay).
 */
const CREASED = 0.04;

/**
 * How child-like a face's proportions are (session 11), 0 to 1: the mouth's and the nose's
 * widths over the distance between the eyes' centres, on the mesh (a child's mouth and nose are
 * small next to its eyes: children 1.29-1.41 on the scoring set, adults mostly 1.44-1.70, two
 * of the five women on an old group print 1.38, drawn as children; the same measure as
 * vision/minor-signal.ts). 1 at ADULT - YOUTH_SPAN and below, 0 at ADULT and above. A child's
 * face is drawn with fewer, lighter lines (`faceSvg`) and none of the photo's lines inside it
 * (`faceZones`: 4).
 */
export function youth(face: Face): number {
  return Math.max(0, Math.min(1, (ADULT - meshProportion(face)) / YOUTH_SPAN));
}

/** The mouth-and-nose proportion (`youth`) at and above which a face is drawn as an adult's. */
const ADULT = 1.44;
/** Below ADULT by this much, a face is drawn as a small child's. */
const YOUTH_SPAN = 0.08;

/**
 * Faces drawn from the mesh: large and frontal enough, and without character the mesh would
 * lose (`character`: wrinkles, a beard or stubble keep the photo's own lines, as an older or
 * bearded face drawn from the mesh reads as a young, smooth stranger).
 */
export async function meshFaces(faces: Face[], src: RawImage): Promise<DrawnFace[]> {
  const drawn: DrawnFace[] = [];
  for (const face of faces) {
    if (face.mesh.length < 468 || face.box[2] < MIN_FACE || Math.abs(face.rotation?.yaw ?? 0) > MAX_YAW)
      continue;
    const { skin } = await character(face, src);
    if (skin > MAX_CHARACTER) continue;
    const glasses = await glassesOf(face, src);
    drawn.push({
      face,
      glasses: glasses && symmetricRims(face, glasses),
      youth: youth(face),
      creased: skin >= CREASED,
    });
  }
  return drawn;
}

/**
 * Faces large and frontal enough for the mesh but with too much character to be drawn from it
 * (`meshFaces` left them out: wrinkles, letters printed over the skin), and no beard: they keep
 * the photo's lines, traced from the photo flattened further, and inside them only a few long,
 * deliberate ones off the features (`faceZones`: 6 and 7, session 11). A bearded face keeps all
 * its lines (the beard is its likeness).
 */
export function characterFaces(faces: Face[], drawn: DrawnFace[], src: RawImage): Face[] {
  return faces.filter(
    (f) =>
      f.mesh.length >= 468 &&
      f.box[2] >= MIN_FACE &&
      Math.abs(f.rotation?.yaw ?? 0) <= MAX_YAW &&
      !drawn.some((d) => d.face === f) &&
      chinOverCheeks(f, src) >= BEARD,
  );
}

/** The chin's grey over the cheeks' below which a face is bearded (its beard's lines are its likeness: kept). */
const BEARD = 0.8;

/** The photo's mean grey between the lower lip and the chin over the cheeks' (a beard darkens the chin). */
export function chinOverCheeks(f: Face, src: RawImage): number {
  const r = Math.max(1, Math.round(f.box[2] * 0.05));
  const at = (i: number, j: number) =>
    greyAt(src, (f.mesh[i]![0] + f.mesh[j]![0]) / 2, (f.mesh[i]![1] + f.mesh[j]![1]) / 2, r);
  const chin = at(17, 152);
  const cheeks = (at(50, 50) + at(280, 280)) / 2;
  return cheeks > 0 ? chin / cheeks : 1;
}

/**
 * Both lenses of a pair of glasses the same shape: the rim lying nearer its eye's size (the
 * better found) mirrored about the face's midline (the line through the forehead's top and the
 * chin on the mesh) for the other.
 */
export function symmetricRims(face: Face, g: Glasses): Glasses {
  if (g.rims.length !== 2) return g;
  const [a, b] = [face.mesh[10]!, face.mesh[152]!];
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy || 1;
  const mirror = ([x, y]: Pt): Pt => {
    const t = ((x - a[0]) * dx + (y - a[1]) * dy) / len2;
    const px = a[0] + t * dx;
    const py = a[1] + t * dy;
    return [2 * px - x, 2 * py - y];
  };
  // Each rim's fit: its box's size against its eye's width (a lens spans about 1.6 eyes).
  const fit = (rim: Pt[]) => {
    const xs = rim.map((p) => p[0]);
    const ys = rim.map((p) => p[1]);
    const rw = Math.max(...xs) - Math.min(...xs);
    const rh = Math.max(...ys) - Math.min(...ys);
    const cx = (Math.max(...xs) + Math.min(...xs)) / 2;
    const eye = MESH_EYES.map((e) => face.mesh[e.outer]!).map((o, k) => {
      const i = face.mesh[MESH_EYES[k]!.inner]!;
      return { x: (o[0] + i[0]) / 2, w: Math.hypot(o[0] - i[0], o[1] - i[1]) };
    });
    const near = eye.reduce((best, e) => (Math.abs(e.x - cx) < Math.abs(best.x - cx) ? e : best));
    return Math.abs(Math.log(rw / (1.6 * near.w || 1))) + Math.abs(Math.log(rh / (1.1 * near.w || 1)));
  };
  const best = fit(g.rims[0]!) <= fit(g.rims[1]!) ? g.rims[0]! : g.rims[1]!;
  return { ...g, rims: [best, best.map(mirror)] };
}

/** Face width (pixels) at which a face's skin is measured for character. */
const CHARACTER_FACE = 160;
/** Sobel magnitude (0..255 grey, at CHARACTER_FACE) of a strong edge in the skin: a wrinkle, a beard's hairs. */
const STRONG = 90;
/** Share of the skin between the features in strong edges above which a face keeps the photo's lines. */
export const MAX_CHARACTER = 0.12;

/**
 * A face's character: the share of its skin between the features (its mesh oval shrunk to 0.85,
 * the eyes, brows, nose and mouth left out) lying on strong edges, measured with the face
 * CHARACTER_FACE wide: wrinkles, a beard or stubble score high, smooth young skin low.
 */
export async function character(face: Face, src: RawImage): Promise<{ skin: number; mouth: number }> {
  const [bx, by, bw, bh] = face.box;
  const x0 = Math.max(0, Math.floor(bx));
  const y0 = Math.max(0, Math.floor(by));
  const x1 = Math.min(src.width, Math.ceil(bx + bw));
  const y1 = Math.min(src.height, Math.ceil(by + bh));
  if (x1 - x0 < 8 || y1 - y0 < 8) return { skin: 0, mouth: 0 };
  const k = CHARACTER_FACE / bw;
  const W = Math.max(8, Math.round((x1 - x0) * k));
  const H = Math.max(8, Math.round((y1 - y0) * k));
  const grey = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 })
    .resize(W, H, { fit: "fill" })
    .greyscale()
    .raw()
    .toBuffer();
  const { mag } = sobel(grey, W, H);
  const sx = W / (x1 - x0);
  const sy = H / (y1 - y0);
  const oval = MESH_OVAL.map((i) => [(face.mesh[i]![0] - x0) * sx, (face.mesh[i]![1] - y0) * sy] as Pt);
  const cx = oval.reduce((a, q) => a + q[0], 0) / oval.length;
  const cy = oval.reduce((a, q) => a + q[1], 0) / oval.length;
  const inner = oval.map(([x, y]) => [cx + (x - cx) * 0.85, cy + (y - cy) * 0.85] as Pt);
  const boxes = featureBoxes(face, 0.06).map(
    ([x, y, w, h]) => [(x - x0) * sx, (y - y0) * sy, (x + w - x0) * sx, (y + h - y0) * sy] as const,
  );
  const lips = MESH_LIPS_OUTER.map((i) => [(face.mesh[i]![0] - x0) * sx, (face.mesh[i]![1] - y0) * sy] as Pt);
  let skin = 0;
  let strong = 0;
  let mouth = 0;
  let mouthStrong = 0;
  for (let y = 1; y < H - 1; y++)
    for (let x = 1; x < W - 1; x++) {
      if (inPolygon(x + 0.5, y + 0.5, lips)) {
        mouth++;
        if (mag[y * W + x]! > STRONG) mouthStrong++;
      }
      if (!inPolygon(x + 0.5, y + 0.5, inner)) continue;
      if (boxes.some(([xa, ya, xb, yb]) => x >= xa && x < xb && y >= ya && y < yb)) continue;
      skin++;
      if (mag[y * W + x]! > STRONG) strong++;
    }
  return { skin: skin ? strong / skin : 0, mouth: mouth ? mouthStrong / mouth : 0 };
}

/** An eye's opening: the lids' distance at the middle over the eye's width (a squint is small). */
export function eyeOpening(face: Face, eye: (typeof MESH_EYES)[number]): number {
  const at = (i: number) => face.mesh[i]!;
  const width = Math.hypot(at(eye.outer)[0] - at(eye.inner)[0], at(eye.outer)[1] - at(eye.inner)[1]) || 1;
  const [u, l] = [at(eye.upper[3]!), at(eye.lower[3]!)];
  return Math.hypot(u[0] - l[0], u[1] - l[1]) / width;
}

/** Face width (photo pixels) at which glasses are looked for: a larger face is shrunk to it first (the search's cost grows with the face's area). */
const GLASSES_FACE = 220;

/** A face's glasses (shared/pixel-face.ts), found on the photo shrunk so the face is at most GLASSES_FACE wide. */
async function glassesOf(face: Face, src: RawImage): Promise<Glasses | null> {
  const s = Math.min(1, GLASSES_FACE / face.box[2]);
  if (s === 1) return findGlasses(face, src);
  const width = Math.max(1, Math.round(src.width * s));
  const height = Math.max(1, Math.round(src.height * s));
  const data = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .resize(width, height, { fit: "fill" })
    .raw()
    .toBuffer();
  const sx = width / src.width;
  const sy = height / src.height;
  const small: Face = {
    ...face,
    box: [face.box[0] * sx, face.box[1] * sy, face.box[2] * sx, face.box[3] * sy],
    mesh: face.mesh.map(([x, y, z]) => [x * sx, y * sy, z] as [number, number, number]),
  };
  const g = findGlasses(small, { data, width, height });
  if (!g) return null;
  const up = ([x, y]: Pt): Pt => [x / sx, y / sy];
  return { ...g, rims: g.rims.map((rim) => rim.map(up)), bridge: [up(g.bridge[0]), up(g.bridge[1])] };
}

/** The youth (`youth`) at and above which none of the photo's lines stay inside a face. */
const CHILD = 0.5;

/**
 * At w x h (photo pixels times `scale`): 2 inside a face drawn from the mesh (4 inside a child's,
 * 5 inside an adult's with creases of its own: `creased`), 1 on the band round it (its own
 * line, a beard's or hair's edge, where only long, straight-running pieces stay; the neck under
 * the chin too), 3 the head round that (hair: only long, flowing pieces stay), 0 elsewhere.
 */
export function faceZones(
  faces: DrawnFace[],
  w: number,
  h: number,
  scale: number,
  lined: Face[] = [],
): Uint8Array {
  const mask = new Uint8Array(w * h);
  // A face with character keeping the photo's lines (session 11): 6 inside its mesh oval, traced
  // from the photo flattened further, where only long, straight-running lines stay off the
  // features (a fold, not a wrinkle's scribble or a letter printed over it); 7 round its eyes.
  for (const f of lined) {
    const m = { data: new Uint8Array(w * h), width: w, height: h };
    fillPolygon(m, insideOval(f, scale, 0));
    for (let i = 0; i < m.data.length; i++) if (m.data[i]) mask[i] = 6;
    // Its eyes (7): traced finely, as any face's features (the flattening melts them).
    const pad = f.box[2] * scale * LINED_EYE;
    for (const eye of MESH_EYES) {
      const pts = [eye.outer, eye.inner, ...eye.upper, ...eye.lower].map((i) => f.mesh[i]!);
      const xa = Math.max(0, Math.floor(Math.min(...pts.map((p) => p[0])) * scale - pad));
      const xb = Math.min(w, Math.ceil(Math.max(...pts.map((p) => p[0])) * scale + pad));
      const ya = Math.max(0, Math.floor(Math.min(...pts.map((p) => p[1])) * scale - pad));
      const yb = Math.min(h, Math.ceil(Math.max(...pts.map((p) => p[1])) * scale + pad));
      for (let y = ya; y < yb; y++)
        for (let x = xa; x < xb; x++) if (mask[y * w + x] === 6) mask[y * w + x] = 7;
    }
  }
  for (const { face: f, youth: young, creased: lined } of faces) {
    const youthful = young >= CHILD;
    const creased = lined && !youthful;
    const oval = MESH_OVAL.map((i) => [f.mesh[i]![0] * scale, f.mesh[i]![1] * scale] as Pt);
    const cx = oval.reduce((s, p) => s + p[0], 0) / oval.length;
    const cy = oval.reduce((s, p) => s + p[1], 0) / oval.length;
    // Shrunk by a share of the face's width, so the jaw's own line (and a beard's edge) stays.
    const moved = (d: number) =>
      oval.map(([x, y]) => {
        const r = Math.hypot(x - cx, y - cy) || 1;
        return [x - ((x - cx) / r) * d, y - ((y - cy) / r) * d] as Pt;
      });
    const fw = f.box[2] * scale;
    // The head round it (hair, a cap): an ellipse over the face box, raised.
    const [bx, by, bw, bh] = f.box.map((v) => v * scale) as [number, number, number, number];
    const head: Pt[] = [];
    for (let a = 0; a < 48; a++) {
      const t = (a / 48) * 2 * Math.PI;
      head.push([bx + bw / 2 + Math.cos(t) * bw * HEAD, by + bh * 0.35 + Math.sin(t) * bh * HEAD]);
    }
    const fill = (poly: Pt[], value: number, over: (v: number) => boolean) => {
      const m = { data: new Uint8Array(w * h), width: w, height: h };
      fillPolygon(m, poly);
      for (let i = 0; i < m.data.length; i++) if (m.data[i] && over(mask[i]!)) mask[i] = value;
    };
    fill(head, 3, (v) => v === 0);
    // The neck under the chin (wrinkles, a shadow's ragged edge): as the band round the face.
    const chin = f.mesh[152]![1] * scale;
    const neck: Pt[] = [
      [bx + bw * 0.15, chin - bh * 0.1],
      [bx + bw * 0.85, chin - bh * 0.1],
      [bx + bw * 0.85, chin + bh * NECK],
      [bx + bw * 0.15, chin + bh * NECK],
    ];
    fill(neck, 1, (v) => v === 0 || v === 3);
    fill(moved(-fw * BAND), 1, (v) => v !== 2);
    // A child's face (session 11): 4, where none of the photo's lines stay (a child has no
    // folds: a long line there is a shadow's edge, the nose's side or a crease of the print).
    // An adult's face with creases of its own (session 11): 5, where shorter creases stay.
    fill(moved(fw * INSIDE), youthful ? 4 : creased ? 5 : 2, () => true);
  }
  return mask;
}

/** A face's mesh oval at `scale`, moved in by `by` of the face's width (negative: out). */
function insideOval(f: Face, scale: number, by = INSIDE): Pt[] {
  const oval = MESH_OVAL.map((i) => [f.mesh[i]![0] * scale, f.mesh[i]![1] * scale] as Pt);
  const cx = oval.reduce((s, p) => s + p[0], 0) / oval.length;
  const cy = oval.reduce((s, p) => s + p[1], 0) / oval.length;
  const d = f.box[2] * scale * by;
  return oval.map(([x, y]) => {
    const r = Math.hypot(x - cx, y - cy) || 1;
    return [x - ((x - cx) / r) * d, y - ((y - cy) / r) * d] as Pt;
  });
}

/** A smooth open (or closed) path through the points (Catmull-Rom as cubic Béziers). */
function smooth(pts: Pt[], closed = false): string {
  const n = pts.length;
  const at = (i: number): Pt => (closed ? pts[(i + n) % n]! : pts[Math.max(0, Math.min(n - 1, i))]!);
  const f = (v: number) => v.toFixed(1);
  let d = `M${f(pts[0]![0])},${f(pts[0]![1])}`;
  const last = closed ? n : n - 1;
  for (let i = 0; i < last; i++) {
    const [p0, p1, p2, p3] = [at(i - 1), at(i), at(i + 1), at(i + 2)];
    const c1: Pt = [p1[0] + (p2[0] - p0[0]) / 6, p1[1] + (p2[1] - p0[1]) / 6];
    const c2: Pt = [p2[0] - (p3[0] - p1[0]) / 6, p2[1] - (p3[1] - p1[1]) / 6];
    d += `C${f(c1[0])},${f(c1[1])} ${f(c2[0])},${f(c2[1])} ${f(p2[0])},${f(p2[1])}`;
  }
  return closed ? d + "Z" : d;
}

/** A closed outline's points averaged with their neighbours (a fitted rim's wobble smoothed). */
function steady(pts: Pt[], reach = 3): Pt[] {
  const n = pts.length;
  return pts.map((_, i) => {
    let sx = 0;
    let sy = 0;
    for (let k = -reach; k <= reach; k++) {
      const q = pts[(i + k + n) % n]!;
      sx += q[0];
      sy += q[1];
    }
    return [sx / (2 * reach + 1), sy / (2 * reach + 1)] as Pt;
  });
}

/** The iris's centre: the middle of the darkest third of the eye opening (the gaze), in photo pixels. */
function irisCentre(src: RawImage, eye: Pt[]): Pt {
  const values: Array<[number, number]> = [];
  forEachInPolygon(eye, src.width, src.height, (x, y) => {
    const i = y * src.width + x;
    values.push([i, src.data[i * 3]! + src.data[i * 3 + 1]! + src.data[i * 3 + 2]!]);
  });
  const cx = eye.reduce((s, p) => s + p[0], 0) / eye.length;
  const cy = eye.reduce((s, p) => s + p[1], 0) / eye.length;
  if (values.length < 12) return [cx, cy];
  values.sort((a, b) => a[1] - b[1]);
  const dark = values.slice(0, Math.ceil(values.length / 3));
  let sx = 0;
  let sy = 0;
  for (const [i] of dark) {
    sx += i % src.width;
    sy += Math.floor(i / src.width);
  }
  return [sx / dark.length, cy * 0.6 + (sy / dark.length) * 0.4];
}

/** The photo's grey (0..255) averaged over a (2r+1)² box round (x, y), photo pixels. */
function greyAt(src: RawImage, x: number, y: number, r: number): number {
  const cx = Math.round(x);
  const cy = Math.round(y);
  let sum = 0;
  let n = 0;
  for (let yy = cy - r; yy <= cy + r; yy++) {
    if (yy < 0 || yy >= src.height) continue;
    for (let xx = cx - r; xx <= cx + r; xx++) {
      if (xx < 0 || xx >= src.width) continue;
      const i = (yy * src.width + xx) * 3;
      sum += src.data[i]! + src.data[i + 1]! + src.data[i + 2]!;
      n++;
    }
  }
  return n ? sum / (3 * n) : 255;
}

/** Offsets made steady: a median of three, then two passes of a [1, 2, 1] average (ends pinned when asked). */
function steadyOffsets(d: number[], pinned: boolean): number[] {
  let v = d.map((_, i) => {
    if (i === 0 || i === d.length - 1) return d[i]!;
    return [d[i - 1]!, d[i]!, d[i + 1]!].sort((a, b) => a - b)[1]!;
  });
  for (let pass = 0; pass < 2; pass++)
    v = v.map((x, i) => {
      if (i === 0 || i === v.length - 1) return pinned ? 0 : (2 * x + v[i === 0 ? 1 : i - 1]!) / 3;
      return (v[i - 1]! + 2 * x + v[i + 1]!) / 4;
    });
  return v;
}

/** The straight line (least squares over the index) through offsets: a shift and a slope, no wobble. */
function lineFit(d: number[], maxTurn: number): number[] {
  const n = d.length;
  const mx = (n - 1) / 2;
  const my = d.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  d.forEach((v, k) => {
    sxy += (k - mx) * (v - my);
    sxx += (k - mx) ** 2;
  });
  const turn = Math.max(-maxTurn, Math.min(maxTurn, (sxx ? sxy / sxx : 0) * (n - 1)));
  return d.map((_, k) => my + (turn / Math.max(1, n - 1)) * (k - mx));
}

/** The unit normal to the line a -> b, pointing down the image. */
function downNormal(a: Pt, b: Pt): Pt {
  const len = Math.hypot(b[0] - a[0], b[1] - a[1]) || 1;
  const n: Pt = [-(b[1] - a[1]) / len, (b[0] - a[0]) / len];
  return n[1] < 0 ? [-n[0], -n[1]] : n;
}

/**
 * The mesh's lids, lips and brows moved onto the photo's own features (photo pixels, by mesh
 * index), so the drawing keeps the person's expression while its lines stay the mesh's clean
 * curves: each upper lid point slides along the eye's normal to the photo's lash line (the
 * strongest light-above, dark-below step near it: a squint stays a squint), each lower lid
 * point to the bottom of the dark opening, the line between the lips to the mouth's darkest
 * line (the corners' height: a smile, a frown; for an open mouth only the corners), the rest of
 * the lips following, and each brow to its dark band (its angle: a worried face). Every shift
 * is bounded and smoothed along the curve, and a point with no clear edge near it stays put.
 */
export function shapeByPhoto(
  face: Face,
  src: RawImage,
  glasses: boolean,
): { points: Map<number, Pt>; brows: number[] } {
  const at = (i: number): Pt => [face.mesh[i]![0], face.mesh[i]![1]];
  const out = new Map<number, Pt>();
  const brows = [1, 1];
  const fw = face.box[2];
  const move = (i: number, n: Pt, t: number) => {
    const q = out.get(i) ?? at(i);
    out.set(i, [q[0] + n[0] * t, q[1] + n[1] * t]);
  };
  // Best offset along n in [from, to] (photo pixels) by a score, with a pull towards the mesh.
  const search = (q: Pt, n: Pt, from: number, to: number, score: (t: number) => number, pull: number) => {
    let best = 0;
    let bestScore = -Infinity;
    for (let t = Math.ceil(from); t <= Math.floor(to); t++) {
      const v = score(t) - pull * Math.abs(t);
      if (v > bestScore) {
        bestScore = v;
        best = t;
      }
    }
    return { t: best, score: bestScore };
  };
  const along = (q: Pt, n: Pt, t: number, r: number) => greyAt(src, q[0] + n[0] * t, q[1] + n[1] * t, r);

  for (const eye of MESH_EYES) {
    const o = at(eye.outer);
    const inn = at(eye.inner);
    const ew = Math.hypot(inn[0] - o[0], inn[1] - o[1]);
    if (ew < 6) continue;
    const n = downNormal(o, inn);
    const r = Math.max(0, Math.round(ew * 0.03));
    const s = Math.max(1, Math.round(ew * 0.06));
    const step = (q: Pt, t: number, sign: number) => {
      let above = 0;
      let below = 0;
      for (let j = 1; j <= s; j++) {
        above += along(q, n, t - j, r);
        below += along(q, n, t + j - 1, r);
      }
      return (sign * (above - below)) / s;
    };
    // Upper lid: down to the lash line (a squint), never onto the lower lid.
    const up = eye.upper.map((i, k) => {
      const q = at(i);
      const room = (at(eye.lower[k]!)[0] - q[0]) * n[0] + (at(eye.lower[k]!)[1] - q[1]) * n[1];
      const found = search(
        q,
        n,
        -0.12 * ew,
        Math.min(0.3 * ew, room - 0.08 * ew),
        (t) => step(q, t, 1),
        30 / ew,
      );
      return found.score > LID_STEP ? found.t : 0;
    });
    const upper = steadyOffsets([0, ...up, 0], true).slice(1, -1);
    eye.upper.forEach((i, k) => move(i, n, upper[k]!));
    // Lower lid: the bottom of the dark opening, below the (moved) upper lid.
    const low = eye.lower.map((i, k) => {
      if (k === 0 || k === eye.lower.length - 1) return 0;
      const q = at(i);
      const u = out.get(eye.upper[k]!)!;
      const room = (q[0] - u[0]) * n[0] + (q[1] - u[1]) * n[1];
      const found = search(
        q,
        n,
        Math.max(-0.12 * ew, -room + 0.08 * ew),
        0.1 * ew,
        (t) => step(q, t, -1),
        30 / ew,
      );
      return found.score > LID_STEP ? found.t : 0;
    });
    const lower = steadyOffsets([0, ...low, 0], true).slice(1, -1);
    eye.lower.forEach((i, k) => move(i, n, lower[k]!));
  }

  // The mouth: the line between the lips onto the photo's darkest line (only the corners when open).
  const l = at(MESH_MOUTH_LINE[0]!);
  const rr = at(MESH_MOUTH_LINE[MESH_MOUTH_LINE.length - 1]!);
  const mw = Math.hypot(rr[0] - l[0], rr[1] - l[1]);
  if (mw >= 8) {
    const n = downNormal(l, rr);
    const r = Math.max(0, Math.round(mw * 0.02));
    const open = Math.hypot(at(13)[0] - at(14)[0], at(13)[1] - at(14)[1]) > fw * 0.02;
    const d = MESH_MOUTH_LINE.map((i, k) => {
      if (open && k !== 0 && k !== MESH_MOUTH_LINE.length - 1) return NaN;
      const q = at(i);
      const line = (t: number) => along(q, n, t, r);
      let mean = 0;
      let cnt = 0;
      for (let t = Math.ceil(-0.1 * mw); t <= 0.1 * mw; t++, cnt++) mean += line(t);
      mean /= cnt || 1;
      const found = search(q, n, -0.1 * mw, 0.1 * mw, (t) => -line(t), 40 / mw);
      return mean + found.score > MOUTH_DARK ? found.t : 0;
    });
    // An open mouth: the corners' shift spread along the line.
    const last = d.length - 1;
    const filled = d.map((v, k) => (Number.isNaN(v) ? d[0]! + ((d[last]! - d[0]!) * k) / last : v));
    const shift = steadyOffsets(filled, false);
    // Every lip point moves as the mouth line does at its place along the mouth.
    const ux = (rr[0] - l[0]) / mw;
    const uy = (rr[1] - l[1]) / mw;
    const shiftAt = (q: Pt) => {
      const x = Math.max(0, Math.min(1, ((q[0] - l[0]) * ux + (q[1] - l[1]) * uy) / mw)) * last;
      const a = Math.floor(x);
      const b = Math.min(last, a + 1);
      return shift[a]! + (shift[b]! - shift[a]!) * (x - a);
    };
    const lips = new Set([...MESH_LIPS_OUTER, ...MESH_LIP_LOWER_INNER]);
    MESH_MOUTH_LINE.forEach((i, k) => {
      lips.delete(i);
      move(i, n, shift[k]!);
    });
    for (const i of lips) move(i, n, shiftAt(at(i)));
  }

  // Brows onto their dark band (a worried brow's slope); not with glasses, whose frame runs there.
  if (!glasses)
    for (const [bi, brow] of MESH_BROWS.entries()) {
      const a = at(brow.lower[0]!);
      const b = at(brow.lower[brow.lower.length - 1]!);
      const n = downNormal(a, b);
      // Up to 5 % of the face's width up (a raised brow), 1.5 % down (towards the lid's shadow).
      const [upReach, downReach] = [fw * 0.05, fw * 0.015];
      const r = Math.max(0, Math.round(fw * 0.012));
      let contrast = 0;
      const d = brow.upper.map((iu, k) => {
        const u = at(iu);
        const lo = at(brow.lower[k]!);
        const m: Pt = [(u[0] + lo[0]) / 2, (u[1] + lo[1]) / 2];
        let mean = 0;
        let cnt = 0;
        for (let t = Math.ceil(-upReach); t <= downReach; t++, cnt++) mean += along(m, n, t, r);
        mean /= cnt || 1;
        const found = search(m, n, -upReach, downReach, (t) => -along(m, n, t, r), 40 / fw);
        contrast += mean + found.score;
        return mean + found.score > BROW_DARK ? found.t : 0;
      });
      // A faint brow (a baby's, a fair one) drawn thinner: its weight from its darkness.
      brows[bi] = Math.max(BROW_THIN, Math.min(1, contrast / brow.upper.length / BROW_FULL));
      // The brow keeps the mesh's shape: only its height and slope follow the photo (a line fit,
      // its ends turned at most 3 % of the face's width against each other).
      const shift = lineFit(d, fw * 0.03);
      brow.upper.forEach((i, k) => move(i, n, shift[k]!));
      brow.lower.forEach((i, k) => move(i, n, shift[k]!));
    }
  return { points: out, brows };
}

/** Grey step (levels) of a lash line: below it a lid stays where the mesh put it. */
const LID_STEP = 12;
/** How much darker (levels) than its surroundings the mouth's line must be to move the mesh's. */
const MOUTH_DARK = 10;
/** How much darker (levels) than its surroundings a brow's band must be to move the mesh's. */
const BROW_DARK = 10;
/** A brow this much darker (levels) than its surroundings is drawn at full weight. */
const BROW_FULL = 40;
/** The lightest brow's weight (share of the full one). */
const BROW_THIN = 0.45;

/** The jaw in MESH_OVAL, from below one ear round the chin to below the other. */
const JAW = MESH_OVAL.slice(10, 27);

/**
 * The jaw's runs (photo pixels) where the drawing has no line of its own near the mesh's jaw
 * (a soft, shadowless cheek): `lines` is the drawing at w x h (photo pixels times `scale`).
 * A run must span at least three mesh points; it is drawn with a little overlap.
 */
export function missingJaw(
  faces: DrawnFace[],
  lines: Uint8Array,
  w: number,
  h: number,
  scale: number,
): Pt[][] {
  const runs: Pt[][] = [];
  for (const { face: f, youth: y } of faces) {
    const r = Math.max(2, Math.round(f.box[2] * scale * JAW_REACH));
    const pts = roundJaw(f, y);
    const missing = pts.map(([px, py]) => {
      const x0 = Math.round(px * scale);
      const y0 = Math.round(py * scale);
      if (x0 < 0 || y0 < 0 || x0 >= w || y0 >= h) return false;
      for (let dy = -r; dy <= r; dy++)
        for (let dx = -r; dx <= r; dx++) {
          const x = x0 + dx;
          const y = y0 + dy;
          if (x >= 0 && y >= 0 && x < w && y < h && lines[y * w + x]) return false;
        }
      return true;
    });
    for (let i = 0; i < pts.length;) {
      if (!missing[i]) {
        i++;
        continue;
      }
      let j = i;
      while (j + 1 < pts.length && missing[j + 1]) j++;
      if (j - i >= 2) runs.push(pts.slice(Math.max(0, i - 1), Math.min(pts.length, j + 2)));
      i = j + 1;
    }
  }
  return runs;
}

/**
 * The mesh's jaw (photo pixels), a child's rounded (session 11): each point moved towards the
 * ellipse through the cheeks (points 234 and 454) and the chin (152), centred between the
 * cheeks, by up to half the way (`youth`), so full cheeks and a small round chin replace an
 * adult's angular jaw.
 */
export function roundJaw(f: Face, y: number): Pt[] {
  const pts = JAW.map((i) => [f.mesh[i]![0], f.mesh[i]![1]] as Pt);
  if (y <= 0) return pts;
  const [a, b, chin] = [f.mesh[234]!, f.mesh[454]!, f.mesh[152]!];
  const c: Pt = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
  const rx = Math.hypot(b[0] - a[0], b[1] - a[1]) / 2;
  // The face's axes: across (cheek to cheek) and down (towards the chin).
  const ux: Pt = [(b[0] - a[0]) / (2 * rx || 1), (b[1] - a[1]) / (2 * rx || 1)];
  const uy: Pt = [-ux[1], ux[0]];
  const down = (chin[0] - c[0]) * uy[0] + (chin[1] - c[1]) * uy[1];
  const dir = down < 0 ? -1 : 1;
  const ry = Math.abs(down);
  if (rx < 4 || ry < 4) return pts;
  return pts.map(([px, py]) => {
    const u = ((px - c[0]) * ux[0] + (py - c[1]) * ux[1]) / rx;
    const v = (((px - c[0]) * uy[0] + (py - c[1]) * uy[1]) * dir) / ry;
    const len = Math.hypot(u, v) || 1;
    const [eu, ev] = [u / len, v / len];
    const ex = c[0] + ux[0] * eu * rx + uy[0] * ev * ry * dir;
    const ey = c[1] + ux[1] * eu * rx + uy[1] * ev * ry * dir;
    return [px + (ex - px) * 0.5 * y, py + (ey - py) * 0.5 * y] as Pt;
  });
}

/** The width (photo pixels) of the face whose box is nearest a point. */
function faceWidthNear(faces: DrawnFace[], [x, y]: Pt): number {
  let best = faces[0]!.face.box[2];
  let bestD = Infinity;
  for (const { face } of faces) {
    const [bx, by, bw, bh] = face.box;
    const d = Math.hypot(bx + bw / 2 - x, by + bh / 2 - y);
    if (d < bestD) {
      bestD = d;
      best = bw;
    }
  }
  return best;
}

/** Share of the face's width within which a line of the drawing counts as the jaw's. */
const JAW_REACH = 0.05;

/**
 * The faces' features as an SVG (outW x outH) of near-black strokes; `scale` maps photo pixels
 * to output pixels.
 */
export function faceSvg(
  faces: DrawnFace[],
  src: RawImage,
  scale: number,
  outW: number,
  outH: number,
  jaw: Pt[][] = [],
): string {
  const parts: string[] = [];
  // The jaw where the photo gave no line, as wide as the drawing's thin lines (finer on a small face).
  for (const run of jaw) {
    const width = Math.min(
      Math.max(1.6, (outW / 800) * 1.8),
      Math.max(1.1, faceWidthNear(faces, run[0]!) * scale * 0.008),
    );
    parts.push(
      `<path d="${smooth(run.map(([x, y]) => [x * scale, y * scale] as Pt))}" fill="none" stroke="#141414" stroke-width="${width.toFixed(2)}" stroke-linecap="round"/>`,
    );
  }
  let clip = 0;
  for (const { face: f, glasses, youth: y } of faces) {
    const shaped = shapeByPhoto(f, src, !!glasses);
    const p = (i: number): Pt => {
      const q = shaped.points.get(i) ?? [f.mesh[i]![0], f.mesh[i]![1]];
      return [q[0] * scale, q[1] * scale];
    };
    const fw = f.box[2] * scale;
    // A child's face (session 11, `youth`): finer lines, larger irises with a catch-light, a
    // short light lower lid, lighter brows, only the nose's tip, a small mouth without the
    // lips' outlines (an adult's drawn lips read as lipstick on a child).
    const base = Math.max(1.3, Math.min(2.6, fw * 0.0075)) * (1 - 0.15 * y);
    const stroke = (d: string, width: number) =>
      parts.push(
        `<path d="${d}" fill="none" stroke="#141414" stroke-width="${width.toFixed(2)}" stroke-linecap="round" stroke-linejoin="round"/>`,
      );

    for (const eye of MESH_EYES) {
      const upper = [eye.outer, ...eye.upper, eye.inner].map(p);
      stroke(smooth(upper), base * 1.15);
      // The lower lid lighter, its middle only (an artist leaves the corners open).
      stroke(smooth(eye.lower.slice(y >= CHILD ? 2 : 1, y >= CHILD ? 5 : 6).map(p)), base * (0.6 - 0.15 * y));
      // The iris, clipped by the lids, with its pupil.
      const opening = [eye.outer, ...eye.upper, eye.inner, ...[...eye.lower].reverse()].map(p);
      const width = Math.hypot(p(eye.outer)[0] - p(eye.inner)[0], p(eye.outer)[1] - p(eye.inner)[1]);
      const inPhoto = irisCentre(
        src,
        opening.map(([x, y]) => [x / scale, y / scale]),
      );
      const [ix, iy] = [inPhoto[0] * scale, inPhoto[1] * scale];
      const r = width * (0.21 + 0.06 * y);
      const id = `e${clip++}`;
      const pupil = r * (0.42 + 0.08 * y);
      // A catch-light in a child's pupil: a paper dot up and to the side, cut out of the pupil
      // (the SVG's alpha is the ink, so a white dot over it would still be ink).
      const disc = (x: number, yy: number, rr: number) =>
        `M${(x - rr).toFixed(1)},${yy.toFixed(1)}a${rr.toFixed(1)},${rr.toFixed(1)} 0 1,0 ${(2 * rr).toFixed(1)},0a${rr.toFixed(1)},${rr.toFixed(1)} 0 1,0 ${(-2 * rr).toFixed(1)},0Z`;
      const glint = y >= CHILD ? disc(ix + pupil * 0.35, iy - pupil * 0.35, pupil * 0.36) : "";
      parts.push(
        `<clipPath id="${id}"><path d="${smooth(opening, true)}"/></clipPath>`,
        `<g clip-path="url(#${id})"><circle cx="${ix.toFixed(1)}" cy="${iy.toFixed(1)}" r="${r.toFixed(1)}" fill="none" stroke="#141414" stroke-width="${(base * 0.8).toFixed(2)}"/>` +
          `<path d="${disc(ix, iy, pupil)}${glint}" fill="#141414" fill-rule="evenodd"/></g>`,
      );
    }

    // Brows: a tapered shape along the brow's middle, thickest a little inside its middle.
    const taper = [0.08, 0.15, 0.19, 0.19, 0.15];
    for (const [b, brow] of MESH_BROWS.entries()) {
      const weight = shaped.brows[b]! * (1 - 0.15 * y);
      const up = brow.upper.map(p);
      const lo = brow.lower.map(p);
      const mid = up.map((u, k) => [(u[0] + lo[k]![0]) / 2, (u[1] + lo[k]![1]) / 2] as Pt);
      const top = mid.map(
        (m, k) =>
          [
            m[0] + (up[k]![0] - m[0]) * taper[k]! * 2 * weight,
            m[1] + (up[k]![1] - m[1]) * taper[k]! * 2 * weight,
          ] as Pt,
      );
      const bottom = mid.map(
        (m, k) =>
          [
            m[0] + (lo[k]![0] - m[0]) * taper[k]! * 2 * weight,
            m[1] + (lo[k]![1] - m[1]) * taper[k]! * 2 * weight,
          ] as Pt,
      );
      parts.push(
        `<path d="${smooth([...top, ...bottom.reverse()], true)}" fill="#141414" stroke="#141414" stroke-width="${(base * 0.5).toFixed(2)}" stroke-linejoin="round"/>`,
      );
    }

    // The nose: its base, wing to wing, and the wings' lower curves (a child's: the tip's
    // underside and the nostrils' small curves only).
    const between = (a: number, b: number): Pt => [(p(a)[0] + p(b)[0]) / 2, (p(a)[1] + p(b)[1]) / 2];
    if (y >= CHILD) {
      stroke(smooth([between(97, 2), p(2), between(2, 326)]), base * 0.6);
      stroke(smooth([64, 98].map(p)), base * 0.7);
      stroke(smooth([294, 327].map(p)), base * 0.7);
    } else {
      stroke(smooth([between(97, 2), p(2), between(2, 326)]), base * 0.7);
      stroke(smooth([129, 64, 98].map(p)), base);
      stroke(smooth([358, 294, 327].map(p)), base);
    }

    // Lips: the line between them bold, the upper lip's top and the lower lip's bottom lighter;
    // a child's mouth line without its corners and only a short light stroke under the lower lip.
    const outer = MESH_LIPS_OUTER.map(p);
    if (y >= CHILD) {
      stroke(smooth(MESH_MOUTH_LINE.slice(1, -1).map(p)), base * 1.05);
      stroke(smooth(outer.slice(14, 17)), base * 0.5);
    } else {
      stroke(smooth(MESH_MOUTH_LINE.map(p)), base * 1.1);
      stroke(smooth(outer.slice(0, 11)), base * 0.65);
      stroke(smooth(outer.slice(12, 19)), base * 0.65);
    }
    // Glasses: each lens's rim and the bridge, as the photo's frame lines were dropped.
    if (glasses) {
      for (const rim of glasses.rims)
        stroke(
          smooth(
            steady(rim).map(([x, y]) => [x * scale, y * scale] as Pt),
            true,
          ),
          base * 1.1,
        );
      const [a, b] = glasses.bridge;
      stroke(
        `M${(a[0] * scale).toFixed(1)},${(a[1] * scale).toFixed(1)}L${(b[0] * scale).toFixed(1)},${(b[1] * scale).toFixed(1)}`,
        base * 1.1,
      );
    }
    // An open mouth: the lower lip's inner edge too.
    const gap = Math.hypot(p(13)[0] - p(14)[0], p(13)[1] - p(14)[1]);
    if (gap > fw * 0.02) stroke(smooth(MESH_LIP_LOWER_INNER.map(p)), base * 0.8);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${outW}" height="${outH}">${parts.join("")}</svg>`;
}
