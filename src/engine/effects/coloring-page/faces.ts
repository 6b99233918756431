import sharp from "sharp";
import { forEachPiece8 } from "../../shared/components";
import { polygonMask } from "../../shared/hair/hair-region";
import type { RawImage } from "../../shared/image-io";
import { boxMask, featureBoxes } from "../../shared/face-features";
import { oklab } from "../../shared/pixel-art";
import { findGlasses, type Glasses } from "../../shared/pixel-face";
import {
  MESH_BROWS,
  MESH_EYES,
  MESH_LIP_LOWER_INNER,
  MESH_LIPS_OUTER,
  MESH_MOUTH_LINE,
  MESH_OVAL,
} from "../../shared/mesh-parts";
import type { Face } from "../../vision/human";
import { meshProportion } from "../../vision/minor-signal";

/**
 * A coloring page's faces drawn on purpose from the face mesh instead of traced from the
 * photo's edges. Traced, a face's features come out as the photo's shading: eyes as ragged
 * loops or missing on a soft or small face, the shadow beside the nose and under the lip as
 * slabs, wrinkles and beard stubble as scribble. Here the inside of each face is cleared of
 * the photo's short lines (long ones stay: a pair of glasses, a lock of hair across the brow)
 * and the features are drawn as a colouring book draws them: each eye a closed almond with a
 * round iris and a black pupil, each brow a closed shape (a stroke when thin), the nose's
 * wings as curls, the mouth its line and a curve under the lower lip (and the teeth's area
 * when it is open), its bend amplified. A child's face is softer (larger eyes, thin brows, a
 * small nose), an older one has the folds beside the mouth (`faceLook`, session 11). Around
 * the face (the hair), pieces must be long: a few flowing strands inside the hair's outline,
 * not curls and stubble as scribble.
 */

type Pt = [number, number];

/** Faces smaller than this (oval width, drawing px) keep the traced lines: no room to draw. */
const MIN_FACE = 36;
/** Inside the face, a traced piece coming in from outside stays only when at least this share of the face long. */
const LONG_INSIDE = 0.5;
/** Around the face (hair), a traced piece stays only when at least this share of the face long. */
const LONG_HAIR = 0.45;

/** The face's oval width in the photo's pixels. */
function ovalWidth(face: Face): number {
  const xs = MESH_OVAL.map((i) => face.mesh[i]![0]);
  return Math.max(...xs) - Math.min(...xs);
}

/**
 * How a face is drawn (session 11): a child's face softer (larger eyes and irises, thin brows, a
 * small nose, the mouth a line), an older face with the folds from nose to mouth.
 */
export interface FaceLook {
  child: boolean;
  older: boolean;
}

/** A face the page draws from the mesh, its glasses when the photo shows a frame, and its look. */
export interface DrawnFace {
  face: Face;
  glasses: Glasses | null;
  look?: FaceLook;
}

/** Below this proportion a face reads as a child's, unless the age model says 40 or more. */
const CHILD_PROPORTION = 1.37;
/** The age model under this: a child. */
const CHILD_AGE = 15;
/** The age model at least this: an older face (the folds beside the mouth drawn). */
const OLDER_AGE = 50;

/**
 * A face's look: a child by the age model or the mesh's proportions (the age model alone
 * calls a baby 36), older by the age model.
 */
export function faceLook(face: Face): FaceLook {
  const age = face.age;
  const child =
    (age !== undefined && age < CHILD_AGE) ||
    (meshProportion(face) < CHILD_PROPORTION && (age === undefined || age < 40));
  const older = !child && age !== undefined && age >= OLDER_AGE;
  return { child, older };
}

/** findGlasses reads the frame at this face width (px) at most: the same frame, a fraction of the time. */
const GLASSES_FACE = 200;

/**
 * The faces the page draws from the mesh: a full mesh, big enough on the page (`toDrawing`:
 * photo to drawing px), with their glasses (read on a copy of the face at most GLASSES_FACE
 * wide: on a 2 MP portrait, a second at full size).
 */
export async function drawnFaces(faces: Face[], photo: RawImage, toDrawing: number): Promise<DrawnFace[]> {
  const out: DrawnFace[] = [];
  for (const face of faces) {
    if (face.mesh.length < 468 || ovalWidth(face) * toDrawing < MIN_FACE) continue;
    out.push({ face, glasses: await glassesOf(face, photo), look: faceLook(face) });
  }
  return out;
}

async function glassesOf(face: Face, photo: RawImage): Promise<Glasses | null> {
  const f = Math.min(1, GLASSES_FACE / ovalWidth(face));
  if (f >= 1) return findGlasses(face, photo);
  const [bx, by, bw, bh] = face.box;
  const x0 = Math.max(0, Math.floor(bx - bw * 0.3));
  const y0 = Math.max(0, Math.floor(by - bh * 0.3));
  const x1 = Math.min(photo.width, Math.ceil(bx + bw * 1.3));
  const y1 = Math.min(photo.height, Math.ceil(by + bh * 1.3));
  const cw = Math.max(1, Math.round((x1 - x0) * f));
  const ch = Math.max(1, Math.round((y1 - y0) * f));
  const data = await sharp(photo.data, { raw: { width: photo.width, height: photo.height, channels: 3 } })
    .extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 })
    .resize(cw, ch, { fit: "fill" })
    .raw()
    .toBuffer();
  const small: Face = {
    ...face,
    box: [(bx - x0) * f, (by - y0) * f, bw * f, bh * f],
    mesh: face.mesh.map(([x, y, z]) => [(x - x0) * f, (y - y0) * f, z * f]),
  };
  const g = findGlasses(small, { data, width: cw, height: ch });
  if (!g) return null;
  const back = ([x, y]: Pt): Pt => [x / f + x0, y / f + y0];
  return { ...g, rims: g.rims.map((rim) => rim.map(back)), bridge: [back(g.bridge[0]), back(g.bridge[1])] };
}

/**
 * Clears (in place) the traced lines the drawn faces replace, at the lines' working size
 * (`scale` from photo to working px): inside each face's oval (shrunk by 12 % toward its
 * centre, so the jaw and the hairline stay) every piece but a long one coming in from outside
 * (a lock of hair, a hand), and on the features and the glasses every piece; in the head's
 * zone around it (the hair, the ears), within the person, every piece shorter than LONG_HAIR
 * of the face.
 */
export function clearTracedFaces(
  lines: Uint8Array,
  w: number,
  h: number,
  drawn: DrawnFace[],
  scale: number,
  subject: Uint8Array | null,
  rgb: Uint8Array | null = null,
): void {
  for (const { face, glasses } of drawn) {
    const fw = ovalWidth(face) * scale;
    const skin = rgb ? skinOf(face, rgb, w, h, scale, fw) : null;
    const traced = skin ? lines.slice() : lines;
    // The features and the glasses: nothing traced stays there (they are drawn).
    const boxes = featureBoxes(face, 0.05);
    for (const rim of glasses?.rims ?? []) {
      const xs = rim.map((p) => p[0]);
      const ys = rim.map((p) => p[1]);
      const pad = (fw / scale) * 0.04;
      boxes.push([
        Math.min(...xs) - pad,
        Math.min(...ys) - pad,
        Math.max(...xs) - Math.min(...xs) + 2 * pad,
        Math.max(...ys) - Math.min(...ys) + 2 * pad,
      ]);
    }
    const features = boxMask(boxes, w, h, scale);
    for (let i = 0; i < w * h; i++) if (features[i]) lines[i] = 0;
    // Session 11: the middle of the face (from the eyes' centres down to the mouth's corners and
    // the upper lip) is drawn, never traced: a shadow under the nose joined to the hair's
    // outline was kept as a long piece coming in from outside and read as a moustache.
    const pt = (i: number): Pt => [face.mesh[i]![0] * scale, face.mesh[i]![1] * scale];
    const centre = (a: number, b: number): Pt => [(pt(a)[0] + pt(b)[0]) / 2, (pt(a)[1] + pt(b)[1]) / 2];
    const middle = polygonMask([centre(33, 133), centre(362, 263), pt(291), pt(0), pt(61)], w, h);
    for (let i = 0; i < w * h; i++) if (middle[i]) lines[i] = 0;
    const oval = MESH_OVAL.map((i) => [face.mesh[i]![0] * scale, face.mesh[i]![1] * scale] as Pt);
    const cx = oval.reduce((s, p) => s + p[0], 0) / oval.length;
    const cy = oval.reduce((s, p) => s + p[1], 0) / oval.length;
    const inner = polygonMask(
      oval.map(([x, y]) => [cx + (x - cx) * 0.88, cy + (y - cy) * 0.88] as Pt),
      w,
      h,
    );
    // The head's zone: an ellipse round the oval, 1.7 times as wide and reaching 60 % of the
    // face's height above its top (hair), down to the brows.
    const top = Math.min(...oval.map((p) => p[1]));
    const chin = Math.max(...oval.map((p) => p[1]));
    const fh = chin - top;
    const hx = cx;
    const hy = (top - 0.6 * fh + chin) / 2;
    const rx = fw * 0.85;
    const ry = (chin - (top - 0.6 * fh)) / 2;
    const x0 = Math.max(0, Math.floor(hx - rx));
    const x1 = Math.min(w - 1, Math.ceil(hx + rx));
    const y0 = Math.max(0, Math.floor(hy - ry));
    // Down to the brows only: below them beside the face are the ears (kept as traced).
    const brows = ((face.mesh[105]![1] + face.mesh[334]![1]) / 2) * scale;
    const y1 = Math.min(h - 1, Math.ceil(brows));
    const zone = new Uint8Array(w * h);
    for (let y = y0; y <= y1; y++)
      for (let x = x0; x <= x1; x++)
        if (((x - hx) / rx) ** 2 + ((y - hy) / ry) ** 2 <= 1 && (!subject || subject[y * w + x]! >= 128))
          zone[y * w + x] = 1;
    forEachPiece8(lines, w, h, (piece) => {
      let nIn = 0;
      let nZone = 0;
      let px0 = w;
      let px1 = 0;
      let py0 = h;
      let py1 = 0;
      for (const p of piece) {
        if (inner[p]) nIn++;
        else if (zone[p]) nZone++;
        const x = p % w;
        const y = (p - x) / w;
        px0 = Math.min(px0, x);
        px1 = Math.max(px1, x);
        py0 = Math.min(py0, y);
        py1 = Math.max(py1, y);
      }
      if (!nIn && !nZone) return;
      const extent = Math.max(px1 - px0, py1 - py0);
      // Inside the face only a line coming in from outside stays (a lock of hair across the
      // brow, a hand at the chin): most of it outside the face, and long.
      const entering = nIn < piece.length * 0.6 && extent >= LONG_INSIDE * fw;
      if (nIn && !entering) for (const p of piece) if (inner[p]) lines[p] = 0;
      // Around the face: a strand is long and flowing (its ends far apart for its length);
      // curls, stubble and a cap's badge are scribble.
      const span = Math.hypot(px1 - px0, py1 - py0);
      if (nZone > piece.length / 2 && (piece.length < LONG_HAIR * fw || span < piece.length * 0.4))
        for (const p of piece) if (zone[p] && !inner[p]) lines[p] = 0;
    });
    if (!skin) continue;
    // The hairline: the skin's boundary above the brows (short dark hair is traced as a row of
    // short, ragged pieces across the forehead, each dropped above), drawn as one smooth line
    // where the photo has edges along it. A beard: its edge against the skin below the nose,
    // not its texture. Off the features (the brows' own outline) and the glasses.
    const nose = face.mesh[2]![1] * scale;
    // The lips (drawn from the mesh), a little grown: the beard's edge round them stays.
    const lips = MESH_LIPS_OUTER.map((i) => [face.mesh[i]![0] * scale, face.mesh[i]![1] * scale] as Pt);
    const lx = lips.reduce((s, p) => s + p[0], 0) / lips.length;
    const ly = lips.reduce((s, p) => s + p[1], 0) / lips.length;
    const mouth = polygonMask(
      lips.map(([x, y]) => [lx + (x - lx) * 1.15, ly + (y - ly) * 1.3] as Pt),
      w,
      h,
    );
    const want = new Uint8Array(w * h);
    for (let i = 0; i < w * h; i++) {
      if (!skin.edge[i]) continue;
      const y = Math.floor(i / w);
      if (
        y <= brows ? !features[i] && (inner[i] || zone[i]) : skin.beard && inner[i] && y > nose && !mouth[i]
      )
        want[i] = 1;
    }
    const d = Math.max(2, Math.round(fw / 80));
    const hairlines: number[][] = [];
    forEachPiece8(want, w, h, (piece) => {
      if (piece.length < EDGE_MIN * fw) return;
      let near = 0;
      for (const p of piece) {
        const x = p % w;
        const y = (p - x) / w;
        search: for (let yy = Math.max(0, y - d); yy <= Math.min(h - 1, y + d); yy++)
          for (let xx = Math.max(0, x - d); xx <= Math.min(w - 1, x + d); xx++)
            if (traced[yy * w + xx]) {
              near++;
              break search;
            }
      }
      if (near < piece.length * EDGE_TRACED) return;
      // The traced copy beside it goes (no doubled, ragged line).
      for (const p of piece) {
        const x = p % w;
        const y = (p - x) / w;
        for (let yy = Math.max(0, y - d); yy <= Math.min(h - 1, y + d); yy++)
          for (let xx = Math.max(0, x - d); xx <= Math.min(w - 1, x + d); xx++)
            if (inner[yy * w + xx] || zone[yy * w + xx]) lines[yy * w + xx] = 0;
      }
      for (const p of piece) lines[p] = 1;
      if (y0OfPiece(piece, w) <= brows) hairlines.push(Array.from(piece));
    });
    // Session 11: the hairline's ends closed onto the head's or the face's outline when the gap
    // is small (the skin's boundary stops at the brows' height, or where the photo has no edge,
    // short of the temples' line: hair and face were one region to colour).
    closeHairline(lines, w, h, hairlines, { fw, subject, face, glasses, scale });
  }
}

/** The topmost row of a piece. */
function y0OfPiece(piece: ArrayLike<number>, w: number): number {
  let y0 = Infinity;
  for (let k = 0; k < piece.length; k++) y0 = Math.min(y0, Math.floor(piece[k]! / w));
  return y0;
}

/** No pixel of `mask` on the straight line from (x0, y0) to (x1, y1). */
function clearPath(mask: Uint8Array, w: number, x0: number, y0: number, x1: number, y1: number): boolean {
  const steps = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) * 2));
  for (let s = 0; s <= steps; s++)
    if (mask[Math.round(y0 + ((y1 - y0) * s) / steps) * w + Math.round(x0 + ((x1 - x0) * s) / steps)])
      return false;
  return true;
}

/** A hairline is closed when it spans at least this share of the face across. */
const HAIRLINE_SPAN = 0.35;
/** A hairline's end joins an outline at most this share of the face away. */
const CLOSE_GAP = 0.3;
/** Its direction at an end: the last stretch this share of the face long. */
const TANGENT = 0.08;
/** The join's direction from the end's: its cosine at least this (within 75 degrees). */
const CONE = 0.25;

/**
 * Each hairline's two ends (its extremes across the face) joined by a straight line to the
 * person's outline (else the nearest other line) within CLOSE_GAP of the face, ahead of the end
 * (within 75 degrees of its direction), on its own side of the face and not back across it,
 * never through the features.
 */
function closeHairline(
  lines: Uint8Array,
  w: number,
  h: number,
  hairlines: number[][],
  o: { fw: number; subject: Uint8Array | null; face: Face; glasses: Glasses | null; scale: number },
): void {
  if (!hairlines.length) return;
  const { fw, subject, face, glasses, scale } = o;
  // Never through an eye, a brow or a lens (their outlines grown by 4 % of the face about
  // their centres): a join may pass beside them, down the temple.
  const features = new Uint8Array(w * h);
  const parts: Pt[][] = [
    ...MESH_EYES.map((e) => [e.outer, ...e.upper, e.inner, ...e.lower.slice().reverse()]),
    ...MESH_BROWS.map((b) => [...b.upper, ...b.lower.slice().reverse()]),
  ].map((ids) => ids.map((i) => [face.mesh[i]![0] * scale, face.mesh[i]![1] * scale] as Pt));
  for (const rim of glasses?.rims ?? []) parts.push(rim.map(([x, y]) => [x * scale, y * scale] as Pt));
  for (const part of parts) {
    const mx = part.reduce((t, p) => t + p[0], 0) / part.length;
    const my = part.reduce((t, p) => t + p[1], 0) / part.length;
    const grown = part.map(([x, y]) => {
      const l = Math.hypot(x - mx, y - my) || 1;
      const g = 1 + (0.04 * fw) / l;
      return [mx + (x - mx) * g, my + (y - my) * g] as Pt;
    });
    const m = polygonMask(grown, w, h);
    for (let i = 0; i < w * h; i++) if (m[i]) features[i] = 1;
  }
  const gap = CLOSE_GAP * fw;
  const le = face.mesh[33]!;
  const re = face.mesh[263]!;
  const el = Math.hypot(re[0] - le[0], re[1] - le[1]) || 1;
  const ex: Pt = [(re[0] - le[0]) / el, (re[1] - le[1]) / el];
  const cx = ((le[0] + re[0]) / 2) * scale;
  const cy = ((le[1] + re[1]) / 2) * scale;
  const own = new Uint8Array(w * h);
  const near = Math.max(2, Math.round(fw / 40));
  for (const piece of hairlines)
    for (const p of piece) {
      const x = p % w;
      const y = (p - x) / w;
      for (let yy = Math.max(0, y - near); yy <= Math.min(h - 1, y + near); yy++)
        for (let xx = Math.max(0, x - near); xx <= Math.min(w - 1, x + near); xx++) own[yy * w + xx] = 1;
    }
  // The person's outline (drawn bold and unbroken round the matte) first: a traced line at the
  // temple is often broken itself, and the hair would still leak into the face through it.
  const outline = (i: number) => {
    if (own[i] || !subject || subject[i]! < 128) return false;
    const x = i % w;
    return (
      x > 0 &&
      x < w - 1 &&
      i >= w &&
      i < w * (h - 1) &&
      (subject[i - 1]! < 128 || subject[i + 1]! < 128 || subject[i - w]! < 128 || subject[i + w]! < 128)
    );
  };
  const traced = (i: number) => !own[i] && !!lines[i];
  const joins: Array<[number, number, number, number]> = [];
  for (const piece of hairlines) {
    let lo = piece[0]!;
    let hi = piece[0]!;
    let tLo = Infinity;
    let tHi = -Infinity;
    for (const p of piece) {
      const x = p % w;
      const t = (x - cx) * ex[0] + ((p - x) / w - cy) * ex[1];
      if (t < tLo) [tLo, lo] = [t, p];
      if (t > tHi) [tHi, hi] = [t, p];
    }
    // A hairline spans the forehead: short pieces (a highlight in blonde hair) are no hairline.
    if (tHi - tLo < HAIRLINE_SPAN * fw) continue;
    for (const [end, side] of [
      [lo, -1],
      [hi, 1],
    ] as const) {
      const x = end % w;
      const y = (end - x) / w;
      // The line's direction at its end (from the mean of its last stretch): the join goes on
      // that way (within 75 degrees), down the temple, not sideways across the hair.
      let mx = 0;
      let my = 0;
      let n = 0;
      for (const p of piece) {
        const px = p % w;
        const py = (p - px) / w;
        if (Math.hypot(px - x, py - y) <= TANGENT * fw) {
          mx += px;
          my += py;
          n++;
        }
      }
      const tl = Math.hypot(x - mx / n, y - my / n);
      if (tl < 1) continue;
      const tx = (x - mx / n) / tl;
      const ty = (y - my / n) / tl;
      const nearest = (target: (i: number) => boolean): [number, number, number] => {
        let best = Infinity;
        let bx = -1;
        let by = -1;
        const g = Math.ceil(gap);
        for (let yy = Math.max(0, y - g); yy <= Math.min(h - 1, y + g); yy++)
          for (let xx = Math.max(0, x - g); xx <= Math.min(w - 1, x + g); xx++) {
            const d = Math.hypot(xx - x, yy - y);
            if (d > gap || d >= best) continue;
            // On its own side: not back across the face.
            if (((xx - x) * ex[0] + (yy - y) * ex[1]) * side < -0.03 * fw) continue;
            if (d > 0 && ((xx - x) * tx + (yy - y) * ty) / d < CONE) continue;
            if (!target(yy * w + xx) || !clearPath(features, w, x, y, xx, yy)) continue;
            best = d;
            bx = xx;
            by = yy;
          }
        return [bx, by, best];
      };
      let [bx, by] = nearest(outline);
      if (bx < 0) [bx, by] = nearest(traced);
      if (bx < 0) continue;
      joins.push([x, y, bx, by]);
    }
  }
  for (const [x, y, bx, by] of joins) {
    const steps = Math.max(1, Math.ceil(Math.hypot(bx - x, by - y) * 2));
    for (let s = 0; s <= steps; s++)
      lines[Math.round(y + ((by - y) * s) / steps) * w + Math.round(x + ((bx - x) * s) / steps)] = 1;
  }
}

/** The skin's boundary (hairline, beard) is drawn in pieces at least this share of the face long... */
const EDGE_MIN = 0.15;
/** ... lying for at least this share along the photo's traced lines. */
const EDGE_TRACED = 0.4;
/** The chin holds less than this share of skin: a beard... */
const BEARD_SKIN = 0.4;
/** ... and its middle lightness (OKLab x100) is at least this much under the cheeks' (session 11). */
const BEARD_DARKER = 20;

/** The cheeks' mesh points: where the face's skin colour is read. */
const CHEEKS = [50, 280, 101, 330, 205, 425, 118, 347, 36, 266];
/** The forehead's middle (under a fringe, no skin there: no hairline to draw). */
const FOREHEAD = [151, 9, 108, 337];
/** Below the lower lip to the chin (middle, left, right): where a beard would be. */
const CHIN = [
  [18, 200, 199, 175],
  [171, 140, 32, 208],
  [396, 369, 262, 428],
];

/**
 * The face's skin at the lines' working size, in the head's box: pixels near the cheeks'
 * colour (OKLab; lightness counted half, for shading), smoothed (a box of 1/40 of the face),
 * only the pieces holding a cheek or the forehead, holes under (0.08 face)^2 filled; `edge`
 * its boundary (1 px), `beard` when the chin (middle and both sides) holds little skin while
 * the cheeks do.
 */
function skinOf(
  face: Face,
  rgb: Uint8Array,
  w: number,
  h: number,
  scale: number,
  fw: number,
): { edge: Uint8Array; beard: boolean } | null {
  const labAt = (i: number): [number, number, number] => {
    const [L, a, b] = oklab(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!);
    return [L * 100, a * 100, b * 100];
  };
  const samples: Array<[number, number, number]> = [];
  for (const m of CHEEKS) {
    const x = Math.round(face.mesh[m]![0] * scale);
    const y = Math.round(face.mesh[m]![1] * scale);
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++)
        if (x + dx >= 0 && y + dy >= 0 && x + dx < w && y + dy < h)
          samples.push(labAt((y + dy) * w + x + dx));
  }
  if (samples.length < 9) return null;
  const med = (k: 0 | 1 | 2) => samples.map((s) => s[k]).sort((a, b) => a - b)[samples.length >> 1]!;
  const ref = [med(0), med(1), med(2)] as const;
  const dist = (c: [number, number, number]) =>
    Math.hypot((c[0] - ref[0]) * 0.5, c[1] - ref[1], c[2] - ref[2]);
  const spread = samples.map(dist).sort((a, b) => a - b)[Math.floor(samples.length * 0.8)]!;
  const tol = Math.max(8, Math.min(16, spread * 1.5 + 4));
  // The head's box: the face widened by half its width, from a face's height above to below the chin.
  const ys = MESH_OVAL.map((i) => face.mesh[i]![1] * scale);
  const xs = MESH_OVAL.map((i) => face.mesh[i]![0] * scale);
  const fh = Math.max(...ys) - Math.min(...ys);
  const x0 = Math.max(0, Math.floor(Math.min(...xs) - fw * 0.5));
  const x1 = Math.min(w - 1, Math.ceil(Math.max(...xs) + fw * 0.5));
  const y0 = Math.max(0, Math.floor(Math.min(...ys) - fh));
  const y1 = Math.min(h - 1, Math.ceil(Math.max(...ys) + fh * 0.1));
  const bw = x1 - x0 + 1;
  const bh = y1 - y0 + 1;
  const raw = new Float32Array(bw * bh);
  for (let y = 0; y < bh; y++)
    for (let x = 0; x < bw; x++) raw[y * bw + x] = dist(labAt((y + y0) * w + x + x0)) < tol ? 1 : 0;
  // Smoothed: a box mean (separable), re-thresholded at one half.
  const r = Math.max(1, Math.round(fw / 40));
  const tmp = new Float32Array(bw * bh);
  for (let y = 0; y < bh; y++)
    for (let x = 0; x < bw; x++) {
      let s = 0;
      let n = 0;
      for (let d = -r; d <= r; d++)
        if (x + d >= 0 && x + d < bw) {
          s += raw[y * bw + x + d]!;
          n++;
        }
      tmp[y * bw + x] = s / n;
    }
  const mask = new Uint8Array(bw * bh);
  for (let y = 0; y < bh; y++)
    for (let x = 0; x < bw; x++) {
      let s = 0;
      let n = 0;
      for (let d = -r; d <= r; d++)
        if (y + d >= 0 && y + d < bh) {
          s += tmp[(y + d) * bw + x]!;
          n++;
        }
      mask[y * bw + x] = s / n >= 0.5 ? 1 : 0;
    }
  // Only the face's own skin (the pieces holding a cheek or the forehead: a glasses' frame and
  // the brows may cut one from the other): a cap's gold badge, a sand-coloured
  // wall are no skin; holes in it (a highlight in the hair, a shadow on the cheek) go.
  const cheek = new Uint8Array(bw * bh);
  for (const m of [...CHEEKS, ...FOREHEAD]) {
    const x = Math.round(face.mesh[m]![0] * scale) - x0;
    const y = Math.round(face.mesh[m]![1] * scale) - y0;
    if (x >= 0 && y >= 0 && x < bw && y < bh) cheek[y * bw + x] = 1;
  }
  forEachPiece8(mask, bw, bh, (piece) => {
    if (!piece.some((p) => cheek[p])) for (const p of piece) mask[p] = 0;
  });
  const speck = (fw * 0.08) ** 2;
  const holes = Uint8Array.from(mask, (v) => 1 - v);
  forEachPiece8(holes, bw, bh, (piece) => {
    if (piece.length < speck) for (const p of piece) mask[p] = 1;
  });
  const edge = new Uint8Array(w * h);
  for (let y = 1; y < bh - 1; y++)
    for (let x = 1; x < bw - 1; x++) {
      const i = y * bw + x;
      if (mask[i] && (!mask[i - 1] || !mask[i + 1] || !mask[i - bw] || !mask[i + bw]))
        edge[(y + y0) * w + x + x0] = 1;
    }
  const share = (pts: number[]) => {
    let n = 0;
    let s = 0;
    for (const m of pts) {
      const x = Math.round(face.mesh[m]![0] * scale) - x0;
      const y = Math.round(face.mesh[m]![1] * scale) - y0;
      if (x < 0 || y < 0 || x >= bw || y >= bh) continue;
      n++;
      s += mask[y * bw + x]!;
    }
    return n ? s / n : 1;
  };
  // On both sides and in the middle: a neighbour's head over one cheek is no beard.
  // Session 11: and darker than the cheeks (a beard is hair; a b/w print's shading under the
  // jaw is not: three of the 1850s women were given a beard's edge, read as a moustache).
  const chinL = CHIN.flat()
    .map((m) => {
      const x = Math.min(w - 1, Math.max(0, Math.round(face.mesh[m]![0] * scale)));
      const y = Math.min(h - 1, Math.max(0, Math.round(face.mesh[m]![1] * scale)));
      return labAt(y * w + x)[0];
    })
    .sort((a, b) => a - b);
  const beard =
    CHIN.every((part) => share(part) < BEARD_SKIN) &&
    share(CHEEKS) > 0.7 &&
    ref[0] - chinL[chinL.length >> 1]! >= BEARD_DARKER;
  return { edge, beard };
}

/** Discs of radius `r` along a polyline (closed when `closed`), set to 1 in a w x h mask. */
function stroke(mask: Uint8Array, w: number, h: number, pts: Pt[], r: number, closed = false): void {
  const path = closed ? [...pts, pts[0]!] : pts;
  for (let k = 0; k + 1 < path.length; k++) {
    const [ax, ay] = path[k]!;
    const [bx, by] = path[k + 1]!;
    const steps = Math.max(1, Math.ceil(Math.hypot(bx - ax, by - ay) * 2));
    for (let s = 0; s <= steps; s++) {
      const cx = ax + ((bx - ax) * s) / steps;
      const cy = ay + ((by - ay) * s) / steps;
      for (let y = Math.max(0, Math.floor(cy - r)); y <= Math.min(h - 1, Math.ceil(cy + r)); y++)
        for (let x = Math.max(0, Math.floor(cx - r)); x <= Math.min(w - 1, Math.ceil(cx + r)); x++)
          if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) mask[y * w + x] = 1;
    }
  }
}

/** A filled disc. */
function disc(mask: Uint8Array, w: number, h: number, cx: number, cy: number, r: number): void {
  for (let y = Math.max(0, Math.floor(cy - r)); y <= Math.min(h - 1, Math.ceil(cy + r)); y++)
    for (let x = Math.max(0, Math.floor(cx - r)); x <= Math.min(w - 1, Math.ceil(cx + r)); x++)
      if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) mask[y * w + x] = 1;
}

/** Catmull-Rom through the points: a smooth curve (8 steps a span) instead of mesh corners. */
function smooth(pts: Pt[], closed = false): Pt[] {
  const n = pts.length;
  if (n < 3) return pts;
  const at = (i: number) => (closed ? pts[(i + n) % n]! : pts[Math.max(0, Math.min(n - 1, i))]!);
  const out: Pt[] = [];
  const spans = closed ? n : n - 1;
  for (let i = 0; i < spans; i++) {
    const p0 = at(i - 1);
    const p1 = at(i);
    const p2 = at(i + 1);
    const p3 = at(i + 2);
    for (let s = 0; s < 8; s++) {
      const t = s / 8;
      const t2 = t * t;
      const t3 = t2 * t;
      const f = (a: number, b: number, c: number, d: number) =>
        0.5 * (2 * b + (-a + c) * t + (2 * a - 5 * b + 4 * c - d) * t2 + (-a + 3 * b - 3 * c + d) * t3);
      out.push([f(p0[0], p1[0], p2[0], p3[0]), f(p0[1], p1[1], p2[1], p3[1])]);
    }
  }
  if (!closed) out.push(pts[n - 1]!);
  return out;
}

/**
 * The features of each face at the drawing's size: 1 ink, 2 paper over any line (a pupil's
 * catch-light), 0 nothing (`k`: photo to drawing px).
 * `photo` is the photo the mesh was found on (the iris sits where the eye is darkest).
 */
export function drawFaceFeatures(
  drawn: DrawnFace[],
  photo: RawImage,
  drawW: number,
  drawH: number,
  k: number,
): Uint8Array {
  const ink = new Uint8Array(drawW * drawH);
  for (const { face, glasses, look = { child: false, older: false } } of drawn) {
    const at = (i: number): Pt => [face.mesh[i]![0] * k, face.mesh[i]![1] * k];
    const fw = ovalWidth(face) * k;
    // Line radius by the face's size on the page: about 2 px on a big face, never thinner than
    // the traced lines round it (session 11: at 1.2 px a small face's nose, brows and mouth were
    // fainter than its outline and vanished at phone size, leaving only the eyes).
    const r = Math.max(MIN_R, Math.min(2.3, fw / 120));
    // The face's own axes (across, from its right eye to its left; down), for its expression.
    const le = mid(at(33), at(133));
    const re = mid(at(362), at(263));
    const el = Math.hypot(re[0] - le[0], re[1] - le[1]) || 1;
    const ex: Pt = [(re[0] - le[0]) / el, (re[1] - le[1]) / el];
    const ey: Pt = [-ex[1], ex[0]];
    const dot = (p: Pt, u: Pt) => p[0] * u[0] + p[1] * u[1];
    // A small face on the page (session 11): fewer lines (brows as strokes, the nose a curve).
    const small = fw < SMALL_FACE;
    const eyeWidths = MESH_EYES.map((e) => {
      const [ax, ay] = at(e.outer);
      const [bx, by] = at(e.inner);
      return Math.hypot(bx - ax, by - ay);
    });
    const widest = Math.max(...eyeWidths);
    MESH_EYES.forEach((e, j) => {
      const ew = eyeWidths[j]!;
      // An eye turned away (a three-quarter face) is not drawn.
      if (ew < widest * 0.55) return;
      // A child's eyes larger (a colouring book's child: big eyes, 12 % wider, 35 % taller).
      let eyeAt = at;
      if (look.child) {
        const ids = [e.outer, e.inner, ...e.upper, ...e.lower];
        const c = ids
          .map(at)
          .reduce((s2, p) => [s2[0] + p[0] / ids.length, s2[1] + p[1] / ids.length] as Pt, [0, 0] as Pt);
        eyeAt = (i: number) => {
          const p = at(i);
          const d: Pt = [p[0] - c[0], p[1] - c[1]];
          const u = dot(d, ex) * CHILD_EYE[0];
          const v = dot(d, ey) * CHILD_EYE[1];
          return [c[0] + ex[0] * u + ey[0] * v, c[1] + ex[1] * u + ey[1] * v];
        };
      }
      drawEye(ink, drawW, drawH, e, eyeAt, ew * (look.child ? CHILD_EYE[0] : 1), r, photo, k, look.child);
      const b = MESH_BROWS[j]!;
      const upper = b.upper.map(at);
      const lower = b.lower.map(at);
      const thick =
        upper.reduce((s2, p, i) => s2 + Math.hypot(p[0] - lower[i]![0], p[1] - lower[i]![1]), 0) /
        upper.length;
      if (thick >= 5 * r && !look.child && !small)
        stroke(ink, drawW, drawH, smooth([...upper, ...lower.slice().reverse()], true), r, true);
      else
        stroke(
          ink,
          drawW,
          drawH,
          smooth(upper.map((p, i) => [(p[0] + lower[i]![0]) / 2, (p[1] + lower[i]![1]) / 2] as Pt)),
          look.child || small ? r : Math.max(r, thick / 2.5),
        );
    });
    if (look.child || small) {
      // A child's nose, or a small face's: a small curve under its tip (on a small face two
      // wing curls and closed brows read as a moustache and a frown), from nostril to nostril
      // (session 11: the tip alone was a dash lost among the cheek's lines).
      stroke(ink, drawW, drawH, smooth(CHILD_NOSE.map(at)), r);
    } else {
      // The nose: each wing as a curl round its nostril.
      for (const wing of [
        [48, 64, 98, 75],
        [278, 294, 327, 305],
      ])
        stroke(ink, drawW, drawH, smooth(wing.map(at)), r);
    }
    // Glasses found in the photo: both rims and the bridge (the traced frame was cleared).
    if (glasses) {
      for (const rim of glasses.rims) {
        // The rim as found wobbles with the photo: a circular moving average over 7 samples.
        const n = rim.length;
        const even = rim.map((_, i) => {
          let sx = 0;
          let sy = 0;
          for (let d = -3; d <= 3; d++) {
            const [x, y] = rim[(i + d + n) % n]!;
            sx += x;
            sy += y;
          }
          return [(sx / 7) * k, (sy / 7) * k] as Pt;
        });
        stroke(ink, drawW, drawH, even, r * 1.2, true);
      }
      stroke(
        ink,
        drawW,
        drawH,
        glasses.bridge.map(([x, y]) => [x * k, y * k] as Pt),
        r * 1.2,
      );
    }
    // The mouth's bend amplified (a smile deeper, a pout or a turned-down mouth more so): every
    // mouth point moved along the face's down axis by a parabola, zero at the corners, the
    // middle of the line between the lips by (MOUTH_AMP - 1) times its bend's departure from rest.
    const ca = at(61);
    const cb = at(291);
    const chord: Pt = [cb[0] - ca[0], cb[1] - ca[1]];
    const cl2 = dot(chord, chord) || 1;
    const m13 = at(13);
    const bend = dot([m13[0] - (ca[0] + cb[0]) / 2, m13[1] - (ca[1] + cb[1]) / 2], ey);
    const lift = Math.max(-0.06 * fw, Math.min(0.06 * fw, (bend - MOUTH_REST * fw) * (MOUTH_AMP - 1)));
    const mouthAt = (i: number): Pt => {
      const p = at(i);
      const t = Math.max(0, Math.min(1, dot([p[0] - ca[0], p[1] - ca[1]], chord) / cl2));
      const f = lift * (1 - (2 * t - 1) ** 2);
      return [p[0] + ey[0] * f, p[1] + ey[1] * f];
    };
    // The line between the lips, and a short curve under the lower lip (a child's only a hint
    // of it): closed lips read as lipstick on a man, a child or a b/w print, and their colour
    // against the cheeks does not tell (a beard's shadow reddens a man's lips more than a
    // woman's); the lower lip's inner edge when the mouth is open (the teeth's area).
    stroke(ink, drawW, drawH, smooth(MESH_MOUTH_LINE.map(mouthAt)), r * 1.15);
    // A face turned away (one eye not drawn): the mesh's frontal lips are squeezed into a
    // knot on a profile, so its mouth is the line only.
    if (Math.min(...eyeWidths) < widest * 0.55) continue;
    stroke(
      ink,
      drawW,
      drawH,
      smooth((look.child ? [84, 17, 314] : [181, 84, 17, 314, 405]).map(mouthAt)),
      r * 0.9,
    );
    const [ux, uy] = at(13);
    const [lx, ly] = at(14);
    if (Math.hypot(lx - ux, ly - uy) > fw * 0.03)
      stroke(ink, drawW, drawH, smooth(MESH_LIP_LOWER_INNER.map(mouthAt)), r);
    if (look.older) {
      // An older face: the fold from each nose wing toward the mouth's corner, bowing outward
      // (its middle part only: it touches neither).
      for (const [wing, corner] of [
        [64, 61],
        [294, 291],
      ] as const) {
        const wp = at(wing);
        const cp = at(corner);
        const out = Math.sign(dot([cp[0] - (ca[0] + cb[0]) / 2, cp[1] - (ca[1] + cb[1]) / 2], ex)) || 1;
        const s0: Pt = [wp[0] + ex[0] * out * 0.05 * fw, wp[1] + ex[1] * out * 0.05 * fw];
        const s1: Pt = [
          cp[0] + ex[0] * out * 0.07 * fw + ey[0] * 0.02 * fw,
          cp[1] + ex[1] * out * 0.07 * fw + ey[1] * 0.02 * fw,
        ];
        const m: Pt = [
          (s0[0] + s1[0]) / 2 + ex[0] * out * 0.03 * fw,
          (s0[1] + s1[1]) / 2 + ex[1] * out * 0.03 * fw,
        ];
        const curve = smooth([s0, m, s1]);
        const n = curve.length;
        stroke(ink, drawW, drawH, curve.slice(Math.round(n * 0.2), Math.round(n * 0.85)), r * 0.8);
      }
    }
  }
  return ink;
}

const mid = (a: Pt, b: Pt): Pt => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
/** The features' thinnest line radius (drawing px): as bold as the traced lines (about 3 px wide). */
const MIN_R = 1.5;
/** A child's (or a small face's) nose: the curve under its tip, nostril to nostril. */
const CHILD_NOSE = [98, 97, 2, 326, 327];
/** A face narrower than this on the page (px) is drawn with fewer lines. */
const SMALL_FACE = 110;
/** A child's eye drawn this much wider and taller about its centre. */
const CHILD_EYE = [1.12, 1.35] as const;
/** The mouth's bend (the middle of the line between the lips below its corners, over the face's width) at rest... */
const MOUTH_REST = 0.015;
/** ... and its departure from rest amplified this much (a grin wider, a pout or a set mouth more so). */
const MOUTH_AMP = 1.6;

/**
 * One eye: the lids as a closed almond (the upper lid bolder), the iris as a circle inside
 * the lids where the eye is darkest, and a black pupil with a white catch-light. A small eye
 * (under 16 px wide) is a filled dot under its upper lid; a shut eye is its lid line only.
 */
function drawEye(
  ink: Uint8Array,
  w: number,
  h: number,
  e: (typeof MESH_EYES)[number],
  at: (i: number) => Pt,
  ew: number,
  r: number,
  photo: RawImage,
  k: number,
  child = false,
): void {
  const outer = at(e.outer);
  const inner = at(e.inner);
  const upper = smooth([outer, ...e.upper.map(at), inner]);
  const lower = smooth([inner, ...e.lower.map(at).reverse(), outer]);
  stroke(ink, w, h, upper, r * 1.35);
  const top = at(e.upper[3]!);
  const bottom = at(e.lower[3]!);
  const opening = Math.hypot(top[0] - bottom[0], top[1] - bottom[1]);
  if (opening < ew * 0.15) return;
  const almond = [...upper, ...lower];
  // The darkest place in the eye (photo px): the iris.
  const poly = almond.map(([x, y]) => [x / k, y / k] as Pt);
  const x0 = Math.max(0, Math.floor(Math.min(...poly.map((p) => p[0]))));
  const x1 = Math.min(photo.width - 1, Math.ceil(Math.max(...poly.map((p) => p[0]))));
  const y0 = Math.max(0, Math.floor(Math.min(...poly.map((p) => p[1]))));
  const y1 = Math.min(photo.height - 1, Math.ceil(Math.max(...poly.map((p) => p[1]))));
  const bw = x1 - x0 + 1;
  const inside = polygonMask(
    poly.map(([x, y]) => [x - x0, y - y0] as Pt),
    bw,
    y1 - y0 + 1,
  );
  const grey = (x: number, y: number) => {
    const i = (y * photo.width + x) * photo.channels;
    return 0.299 * photo.data[i]! + 0.587 * photo.data[i + 1]! + 0.114 * photo.data[i + 2]!;
  };
  let sum = 0;
  let count = 0;
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x <= x1; x++)
      if (inside[(y - y0) * bw + (x - x0)]) {
        sum += grey(x, y);
        count++;
      }
  const mean = count ? sum / count : 0;
  let sw = 0;
  let sx = 0;
  let sy = 0;
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x <= x1; x++)
      if (inside[(y - y0) * bw + (x - x0)]) {
        const wgt = Math.max(0, mean + 4 - grey(x, y)) ** 2;
        sw += wgt;
        sx += wgt * x;
        sy += wgt * y;
      }
  const mx = (top[0] + bottom[0]) / 2;
  const my = (top[1] + bottom[1]) / 2;
  const ux = (inner[0] - outer[0]) / ew;
  const uy = (inner[1] - outer[1]) / ew;
  const along =
    sw > 0 ? Math.max(-0.2 * ew, Math.min(0.2 * ew, (sx / sw) * k - mx) * ux + ((sy / sw) * k - my) * uy) : 0;
  const ix = mx + ux * along;
  const iy = my + uy * along;
  if (ew < 16) {
    // Small: the lids and a dot.
    stroke(ink, w, h, lower, r * 0.8);
    disc(ink, w, h, ix, iy, Math.min(opening * 0.5, ew * 0.2));
    return;
  }
  stroke(ink, w, h, lower, r * 0.9);
  // A child's iris larger (big, round eyes).
  const ir = child ? Math.min(0.32 * ew, opening * 0.7) : Math.min(0.27 * ew, opening * 0.62);
  // The iris circle, clipped to the almond (the lids cover its top and bottom).
  const eye = polygonMask(almond, w, h);
  const ring = new Uint8Array(w * h);
  const circle: Pt[] = [];
  for (let a = 0; a < 48; a++)
    circle.push([ix + ir * Math.cos((a / 48) * 2 * Math.PI), iy + ir * Math.sin((a / 48) * 2 * Math.PI)]);
  stroke(ring, w, h, circle, r * 0.9, true);
  disc(ring, w, h, ix, iy, ir * 0.45);
  for (let i = 0; i < w * h; i++) if (ring[i] && eye[i]) ink[i] = 1;
  // A catch-light: a white dot on the pupil, toward the upper outer side.
  const hl = Math.max(1, ir * 0.16);
  const hx = ix - ux * ir * 0.2;
  const hy = iy - ir * 0.2;
  for (let y = Math.floor(hy - hl); y <= Math.ceil(hy + hl); y++)
    for (let x = Math.floor(hx - hl); x <= Math.ceil(hx + hl); x++)
      if (x >= 0 && y >= 0 && x < w && y < h && (x - hx) ** 2 + (y - hy) ** 2 <= hl * hl) ink[y * w + x] = 2;
}
