/* eslint-disable @typescript-eslint/no-explicit-any -- opencv.js ships loose types */
import {
  cannyAll,
  coherenceMap,
  densityMap,
  dropScraps,
  flattenTexture,
  gradients,
  type Gradients,
  isTextured,
  quantile,
  petSilhouette,
  salientSpots,
  TEXTURED,
} from "../../shared/line-budget";
import { opencv } from "../../shared/opencv";
import { dropMarks, type OverlayMarks } from "../../shared/overlay-marks";
import { forEachPiece8 } from "../../shared/components";
import { linkGaps } from "./link";

/**
 * The lines of the drawing, at the working size. The photo is flattened (repeated bilateral
 * filtering and a median: fur, grass, skin and fabric texture melt, the edges between areas
 * stay), then Canny runs on its grey and on each colour channel (a red shirt on green grass of
 * equal brightness still has an outline), with thresholds from the photo's own gradient
 * distribution. Inside a face's features (eyes, brows, nose, mouth) a second, finer Canny on
 * the unflattened photo adds what flattening lost. Scraps are then dropped by where they lie:
 * a short one on a face's feature is kept, on the subject it must be longer, in the
 * background longer still, and where edges are dense (fur, leaves, grass) longest of all. A
 * textured photo without people (fur among leaves) keeps only its strongest, longest lines
 * and its subject's salient spots (shared/line-budget.ts).
 */
export interface TraceOptions {
  /** Subject (person, pet) at the working size, 0..255, or null: a scene. */
  subject: Uint8Array | null;
  /** 0/1 at the working size: a face's features. */
  features: Uint8Array;
  /** Whether the photo has faces (people keep their lines: no textured-photo rule, no extra flattening). */
  people: boolean;
  /** Whether the background (off the subject) is drawn lighter: the person matte holds every face. */
  lightBackground?: boolean;
  /**
   * At the working size, faces drawn from the mesh (face-lines.ts `faceZones`): 2 inside (the
   * photo's lines go), 4 inside a child's (none of them stays), 5 inside an adult's with creases
   * of its own (shorter creases stay too), 1 on the band round them (only
   * long, straight-running pieces stay), 3 the head round that; 6 inside a face with character
   * keeping the photo's lines (session 11: traced from the photo flattened further; off its
   * features only long, straight-running pieces), 7 round its eyes (traced as features are).
   */
  faceZones?: Uint8Array | null;
  /** Whether a face drawn from the mesh wears glasses (drawn from their rims: no photo line inside stays). */
  glasses?: boolean;
  /** 0/1 at the working size: people's heads (face boxes, enlarged), where the body's rules do not apply. */
  heads?: Uint8Array | null;
  /** Overlaid words and a logo beside them (shared/overlay-marks.ts), at the working size: left out. */
  marks?: OverlayMarks | null;
}

/** Share of edge pixels around a place above which it is texture, not outlines. */
const TEXTURE_DENSITY = 0.13;
/** Share of the working size at which the photo is flattened (bilateral filtering). */
const FLAT_SCALE = 0.7;

/** Gap (share of the side) a free line end on a person may jump to the piece ahead of it. */
const LINK_REACH = 1 / 60;
/** Mean coherence below which a piece outside a face's features is scribble, not a contour. */
const MIN_COHERENCE = 0.55;

/**
 * Per pixel: 0 no line, 1 a line, 2 a line on the subject's outline (drawn bolder), 3 a line of
 * the background behind a subject (drawn lighter).
 */
export async function traceLines(rgb: Buffer, w: number, h: number, opts: TraceOptions): Promise<Uint8Array> {
  const { cv } = await opencv();
  const n = w * h;
  const side = Math.max(w, h);
  const mats: any[] = [];
  const track = <T>(m: T): T => {
    mats.push(m);
    return m;
  };
  let g: Gradients | undefined;
  try {
    const src = track(cv.matFromArray(h, w, cv.CV_8UC3, rgb));
    // The flattening runs at FLAT_SCALE of the working size (the bilateral filter is the
    // costliest step by far; its result is smooth, so it enlarges back without losing edges).
    const sw = Math.max(8, Math.round(w * FLAT_SCALE));
    const sh = Math.max(8, Math.round(h * FLAT_SCALE));
    let small = track(new cv.Mat());
    cv.resize(src, small, new cv.Size(sw, sh), 0, 0, cv.INTER_AREA);
    for (let k = 0; k < 4; k++) {
      const next = track(new cv.Mat());
      cv.bilateralFilter(small, next, 6, 40, 7 * FLAT_SCALE, cv.BORDER_DEFAULT);
      small = next;
    }
    const flat = track(new cv.Mat());
    cv.resize(small, flat, new cv.Size(w, h), 0, 0, cv.INTER_LINEAR);
    const flatter = track(new cv.Mat());
    cv.medianBlur(flat, flatter, 5);
    // Thresholds from the gradient distribution of the flattened photo.
    g = await gradients(flatter);
    const hi = Math.max(60, quantile(g.mag, opts.subject ? 0.88 : 0.91));
    const lo = hi * 0.45;
    let edges = await cannyAll(g, hi);

    // A face's features from the photo itself, lightly smoothed: eyes and mouths are small
    // and flattening can melt them.
    let anyFeature = false;
    for (let i = 0; i < n && !anyFeature; i++) if (opts.features[i]) anyFeature = true;
    if (anyFeature) {
      const g0 = track(new cv.Mat());
      cv.cvtColor(src, g0, cv.COLOR_RGB2GRAY);
      const g1 = track(new cv.Mat());
      cv.GaussianBlur(g0, g1, new cv.Size(0, 0), 1.6);
      const fine = track(new cv.Mat());
      cv.Canny(g1, fine, lo * 0.8, hi, 3, true);
      const d = fine.data as Uint8Array;
      for (let i = 0; i < n; i++) if (d[i] && opts.features[i]) edges[i] = 1;
    }

    // A face with character keeping the photo's lines (session 11, `faceZones`: 6): its
    // wrinkles and letters printed over it are strong, fine edges, traced as scribble; there the
    // lines come from the photo flattened further (as a textured photo's), with no fine Canny
    // on its features (they cover most of such a face): its folds, eyes, glasses and mouth
    // survive, the skin's texture melts.
    const zones = opts.faceZones;
    if (zones && zones.includes(6)) {
      const smoother = track(flatter.clone());
      await flattenTexture(smoother);
      const g6 = await gradients(smoother);
      try {
        const e6 = await cannyAll(g6, hi);
        for (let i = 0; i < n; i++) if (zones[i] === 6) edges[i] = e6[i]!;
      } finally {
        g6.delete();
      }
    }

    // Edge density: fur, foliage and gravel are dense with short edges.
    const R = Math.max(4, Math.round(side / 40));
    let density = densityMap(edges, w, h, R);
    // Fur among leaves, gravel: only the strongest edges, longer pieces, the subject's spots.
    const textured = !opts.people && isTextured(density, TEXTURE_DENSITY);
    if (textured) {
      await flattenTexture(flatter);
      g.delete();
      g = await gradients(flatter);
      edges = await cannyAll(g, Math.max(60, quantile(g.mag, TEXTURED.quantile)));
      density = densityMap(edges, w, h, R);
    }
    // Structure-tensor coherence (0..1): near 1 along a clean contour, where the gradient keeps
    // one direction; low in fur, foliage and gravel, where it turns every few pixels.
    const coherence = await coherenceMap(g.gx, g.gy, Math.max(2, side / 160));
    const longer = textured ? TEXTURED.lengthScale : 1;

    // Texture has no edges at a coarser scale, a shape's contour does: where edges are dense,
    // keep only those near an edge of the photo at a quarter of the size (flattened further).
    const hw = Math.max(8, Math.round(w / 4));
    const hh = Math.max(8, Math.round(h / 4));
    const half = track(new cv.Mat());
    cv.resize(g.gray, half, new cv.Size(hw, hh), 0, 0, cv.INTER_AREA);
    const halfSoft = track(new cv.Mat());
    cv.GaussianBlur(half, halfSoft, new cv.Size(0, 0), 1);
    const coarseEdges = track(new cv.Mat());
    cv.Canny(halfSoft, coarseEdges, lo, hi, 3, true);
    const coarseUp = track(new cv.Mat());
    cv.resize(coarseEdges, coarseUp, new cv.Size(w, h), 0, 0, cv.INTER_NEAREST);
    const coarseNear = densityMap(coarseUp.data as Uint8Array, w, h, Math.max(3, Math.round(side / 160)));
    for (let i = 0; i < n; i++)
      if (edges[i] && density[i]! > TEXTURE_DENSITY && !opts.features[i] && coarseNear[i] === 0) edges[i] = 0;

    // On people, broken contours joined: a garment's outline breaks wherever its contrast dips
    // (an old print's low contrast above all), and the scrap rule would drop the short pieces
    // in between; inside the person matte, off the heads, a free line end is joined to the
    // piece ahead of it (link.ts).
    const body = opts.people && opts.subject && opts.heads ? bodyMask(opts.subject, opts.heads, n) : null;
    if (body) linkGaps(edges, w, h, body, Math.round(side * LINK_REACH));

    // Scraps dropped by where they lie (face feature 11 px, subject 20 px, background 67 px,
    // dense texture 133 px at 800 px), and scribbles by their coherence.
    const keep = dropScraps(edges, w, h, {
      subject: opts.subject,
      detail: opts.features,
      density,
      textureDensity: TEXTURE_DENSITY,
      lengths: {
        detail: Math.round(side / 70),
        subject: Math.round((opts.subject ? side / 40 : side / 18) * longer),
        background: Math.round((side / 12) * longer),
        texture: Math.round((side / 6) * longer),
      },
      coherence: { values: coherence, dense: MIN_COHERENCE, sparse: MIN_COHERENCE * 0.7 },
    });

    if (body) dropBodyDashes(keep, w, h, body, opts.subject!, side);

    // A pet's or an object's silhouette in a textured scene (fur among leaves): the completed
    // cut, smoothed, as one bold closed contour where the cut follows the photo's own edges,
    // its eyes as closed ovals, the lines around it budgeted (shared/line-budget.ts).
    const sil =
      opts.subject && !opts.people && textured
        ? await petSilhouette(keep, w, h, { subject: opts.subject, edges, rgb, side })
        : null;
    if (textured && opts.subject) {
      // An animal's eye patches and nose: no landmarks, soft edges; outlined as spots.
      // With a silhouette drawn, only the dark spots (eye patches, nose): the light ones (a
      // raccoon's white brows and muzzle) ringed the nose with loops.
      const spots = await salientSpots(
        flatter,
        w,
        h,
        opts.subject,
        undefined,
        undefined,
        sil ? [-1] : [1, -1],
      );
      for (let i = 0; i < n; i++) if (spots[i]) keep[i] = 1;
    }
    // Overlaid words (a watermark's name, a credit) and the logo beside them: not the photo's.
    if (opts.marks) dropMarks(keep, w, h, opts.marks, opts.subject);
    if (sil) {
      for (let i = 0; i < n; i++) if (sil.rim[i]) keep[i] = 2;
      return keep;
    }
    if (opts.faceZones)
      cleanFaces(
        keep,
        w,
        h,
        { zones: opts.faceZones, features: opts.features, glasses: !!opts.glasses, subject: opts.subject },
        coherence,
        side,
      );
    markOutline(keep, opts.subject, w, h, side, !!opts.lightBackground);
    // A blurred background behind people (a portrait's bokeh): its short loose lines go.
    if (opts.lightBackground && opts.subject && blurredBehind(cv, src, opts.subject, track))
      dropLooseBackground(keep, w, h, side);
    return keep;
  } finally {
    g?.delete();
    for (const m of mats) m.delete();
  }
}

/**
 * Inside a face drawn from the mesh, the photo's lines go (skin texture, stubble, wrinkles,
 * reflections, letters over it), except pieces that run long in one direction there (a
 * glasses frame, a fold): at least 1/25 of the side inside the face and a mean coherence of
 * FACE_COHERENCE.
 */
function cleanFaces(
  keep: Uint8Array,
  w: number,
  h: number,
  face: { zones: Uint8Array; features: Uint8Array; glasses: boolean; subject: Uint8Array | null },
  coherence: Float32Array,
  side: number,
): void {
  const { zones, features, glasses, subject } = face;
  const rimNear = subject
    ? densityMap(rimOf(subject, w, h), w, h, Math.max(2, Math.round(side / 160)))
    : new Float32Array(w * h);
  const mask = new Uint8Array(w * h);
  for (let i = 0; i < mask.length; i++) {
    // The features (and glasses) are drawn from the mesh: the photo's lines there go whatever their length.
    if ((zones[i] === 1 || zones[i] === 2 || zones[i] === 5) && features[i]) keep[i] = 0;
    if ((zones[i] === 2 || zones[i] === 5) && glasses) keep[i] = 0;
    // Inside a child's face (session 11): no line of the photo stays.
    if (zones[i] === 4) keep[i] = 0;
    if (keep[i] && zones[i]) mask[i] = 1;
  }
  const minLength = side / 25;
  forEachPiece8(mask, w, h, (piece) => {
    let c = 0;
    let hair = 0;
    let bold = 0;
    let creased = 0;
    let lined = 0;
    let feature = 0;
    for (const p of piece) {
      c += coherence[p]!;
      if (zones[p] === 6 || zones[p] === 7) lined++;
      if (features[p]) feature++;
      if (zones[p] === 3) hair++;
      if (zones[p] === 5) creased++;
      if (rimNear[p]) bold++;
    }
    // Inside an adult's face with creases of its own (session 11): a shorter crease stays too.
    if (
      creased > piece.length / 2 &&
      piece.length >= side / CREASE_SIDE &&
      c / piece.length >= FACE_COHERENCE
    )
      return;
    // Inside a face with character (session 11): only long, straight-running lines (a fold
    // beside the mouth, a glasses frame), not a wrinkle's or a printed letter's scribble.
    if (lined > piece.length / 2) {
      if (piece.length >= side / LINED_SIDE && c / piece.length >= FACE_COHERENCE) return;
      // Its features (eyes, lids, glasses, the mouth): smooth pieces stay, wrinkles' wiggles go.
      if (feature > piece.length / 2 && c / piece.length >= LINED_FEATURE_COHERENCE) return;
      for (const p of piece) keep[p] = 0;
      return;
    }
    // Mostly on the head round the face: hair, whose outline (the subject's) always stays.
    if (hair > piece.length / 2) {
      if (bold > piece.length / 3) return;
      if (piece.length >= minLength && c / piece.length >= HAIR_COHERENCE) return;
    } else if (piece.length >= minLength && c / piece.length >= FACE_COHERENCE) return;
    for (const p of piece) keep[p] = 0;
  });
}

/** Mean coherence at or above which a long piece of hair round a face is kept (a strand, not a curl's scribble). */
const HAIR_COHERENCE = 0.6;
/** Inside an adult's face with creases of its own, a piece at least 1/CREASE_SIDE of the side long stays (a furrow between the brows). */
const CREASE_SIDE = 60;
/** Inside a face with character keeping the photo's lines, a piece at least 1/LINED_SIDE of the side long stays (a fold). */
const LINED_SIDE = 25;
/** Inside a face with character, a piece mostly on its features stays at this mean coherence (a lid, a rim; not a wrinkle's wiggle). */
const LINED_FEATURE_COHERENCE = 0.6;
/** Mean coherence at or above which a long piece inside a face is kept (a glasses frame). */
const FACE_COHERENCE = 0.75;

/**
 * Lines along the subject's outline are drawn bolder (2); behind people whose matte holds every
 * face (a pet's cut can run across its face, a tarnished group's matte miss half of them),
 * lines of the background lighter (3).
 */
function markOutline(
  keep: Uint8Array,
  subject: Uint8Array | null,
  w: number,
  h: number,
  side: number,
  lighter: boolean,
): void {
  if (!subject) return;
  const n = w * h;
  const rim = rimOf(subject, w, h);
  const near = densityMap(rim, w, h, Math.max(2, Math.round(side / 160)));
  for (let i = 0; i < n; i++)
    if (keep[i] && near[i]! > 0) keep[i] = 2;
    else if (lighter && keep[i] && subject[i]! < 128) keep[i] = 3;
}

/** Fine detail (mean |Laplacian|) off the subject under this share of the subject's: a blurred background. */
const BLURRED = 0.5;

/** Whether the background is blurred (shallow depth of field) against the subject: less fine detail off it. */
function blurredBehind(cv: any, src: any, subject: Uint8Array, track: <T>(m: T) => T): boolean {
  const grey = track(new cv.Mat());
  cv.cvtColor(src, grey, cv.COLOR_RGB2GRAY);
  const lap = track(new cv.Mat());
  cv.Laplacian(grey, lap, cv.CV_16S, 3);
  const d = lap.data16S as Int16Array;
  let on = 0;
  let onN = 0;
  let off = 0;
  let offN = 0;
  for (let i = 0; i < subject.length; i++)
    if (subject[i]! >= 128) {
      on += Math.abs(d[i]!);
      onN++;
    } else {
      off += Math.abs(d[i]!);
      offN++;
    }
  if (!onN || !offN) return false;
  return off / offN < (on / onN) * BLURRED;
}

/** Length (share of the side) under which a line of a blurred background behind people, touching nothing of theirs, goes. */
const LOOSE_LENGTH = 1 / 6;
/** Extent (share of the side) under which a background line behind people goes whatever its length (a ring). */
const LOOSE_EXTENT = 1 / 14;

/**
 * Behind people, before a blurred background, a background line that touches no line of theirs
 * and is short (a bokeh highlight's hook, a blurred lamp's ring) goes: it reads as a stray mark
 * next to a portrait, not as a place. Long lines (a horizon, a wall's edge) stay, lighter; a
 * sharp background (a skyline behind a cameraman) keeps its short lines too.
 */
export function dropLooseBackground(keep: Uint8Array, w: number, h: number, side: number): void {
  forEachPiece8(keep, w, h, (piece) => {
    let x0 = w;
    let x1 = 0;
    let y0 = h;
    let y1 = 0;
    for (const p of piece) {
      if (keep[p] !== 3) return;
      const x = p % w;
      const y = (p - x) / w;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
    }
    if (piece.length < side * LOOSE_LENGTH || Math.max(x1 - x0, y1 - y0) < side * LOOSE_EXTENT)
      for (const p of piece) keep[p] = 0;
  });
}

/** 255 inside the person matte off the heads, 0 elsewhere. */
function bodyMask(subject: Uint8Array, heads: Uint8Array, n: number): Uint8Array {
  const body = new Uint8Array(n);
  for (let i = 0; i < n; i++) body[i] = subject[i]! >= 128 && !heads[i] ? 255 : 0;
  return body;
}

/** Length (share of the side) under which a line inside a body, away from its outline, is a dash (a fold's scrap, grain). */
const BODY_DASH = 1 / 14;

/**
 * Inside a body (the person matte off the heads), a piece away from the body's outline shorter
 * than BODY_DASH of the side goes: a garment drawn as its outline and its long folds, not as
 * the scattered dashes of every crease and the print's grain.
 */
function dropBodyDashes(
  keep: Uint8Array,
  w: number,
  h: number,
  body: Uint8Array,
  subject: Uint8Array,
  side: number,
): void {
  const near = densityMap(rimOf(subject, w, h), w, h, Math.max(2, Math.round(side / 160)));
  const min = side * BODY_DASH;
  forEachPiece8(keep, w, h, (piece) => {
    if (piece.length >= min) return;
    let inside = 0;
    for (const p of piece) {
      if (near[p]! > 0) return;
      if (body[p]) inside++;
    }
    if (inside > piece.length / 2) for (const p of piece) keep[p] = 0;
  });
}

/** 0/1: the subject's boundary (4-neighbours on either side of 128). */
function rimOf(subject: Uint8Array, w: number, h: number): Uint8Array {
  const rim = new Uint8Array(w * h);
  for (let y = 1; y < h - 1; y++)
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const a = subject[i]! >= 128;
      if (
        a !== subject[i - 1]! >= 128 ||
        a !== subject[i + 1]! >= 128 ||
        a !== subject[i - w]! >= 128 ||
        a !== subject[i + w]! >= 128
      )
        rim[i] = 1;
    }
  return rim;
}
