/* eslint-disable @typescript-eslint/no-explicit-any -- opencv.js ships loose types */
import sharp from "sharp";
import type { RawImage } from "../../shared/image-io";
import {
  cannyAll,
  coherenceMap,
  densityMap,
  dropIslands,
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
import { forEachPiece8 } from "../../shared/components";
import { opencv } from "../../shared/opencv";
import { dropMarks, marksAtSize, type OverlayMarks } from "../../shared/overlay-marks";
import type { Face } from "../../vision/human";
import { clearTracedFaces, drawFaceFeatures, drawnFaces } from "./faces";
import { tidySubject } from "./tidy";

/**
 * The drawing of a coloring page: the outlines a person would trace, not a map of colour
 * blobs. At a working size of WORK px, the photo is flattened into cartoon-like areas
 * (repeated bilateral filtering, then a median: texture goes, edges stay), its contours are
 * found with Canny (thresholds from the photo's own gradient distribution), and specks and
 * short scraps are dropped (a child cannot colour a 3 px island). Where a subject mask is
 * given (people, a pet), the subject's contours are kept down to shorter lengths than the
 * background's and its outline is drawn bolder. A textured photo without people (fur among
 * leaves) keeps only its strongest, longest lines and its subject's salient spots, and no
 * scrap may ring a speck of paper too small to colour (shared/line-budget.ts). The lines
 * are then scaled to the drawing size, smoothed and thresholded to clean black strokes on
 * white.
 */
export const WORK = 720;
/** Above this share of edge pixels around it, a place is texture (fur, leaves), not outlines. */
const TEXTURE_DENSITY = 0.14;

export interface LineOptions {
  /** Subject mask at the photo's size (255 subject), or null: the whole picture is the subject. */
  subject: Uint8Array | null;
  /** Boxes (photo pixels) where finer detail is kept: faces (eyes, brows, mouth). */
  detail: Array<[number, number, number, number]>;
  /**
   * Whether the subject was found by focus (shared/salient-subject.ts: a flower, not a named pet
   * or object): drawn as a bold closed silhouette in any scene, without an animal's eyes.
   */
  salient?: boolean;
  /** Overlaid words and a logo beside them (shared/overlay-marks.ts, at the photo's size): left out. */
  marks?: OverlayMarks | null;
  /** The faces (with their mesh) whose features are drawn on purpose (faces.ts), in photo pixels. */
  faces?: Face[];
}

/** Black (0) strokes on white (255), drawW x drawH. */
export async function drawLines(
  src: RawImage,
  drawW: number,
  drawH: number,
  opts: LineOptions,
): Promise<Buffer> {
  const { cv } = await opencv();
  const scale = Math.min(1, WORK / Math.max(src.width, src.height));
  const w = Math.max(16, Math.round(src.width * scale));
  const h = Math.max(16, Math.round(src.height * scale));
  const small = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .resize(w, h, { fit: "fill" })
    .raw()
    .toBuffer();

  const mats: any[] = [];
  const track = <T>(m: T): T => {
    mats.push(m);
    return m;
  };
  let g: Gradients | undefined;
  try {
    let rgb = track(cv.matFromArray(h, w, cv.CV_8UC3, small));
    // Cartoon flattening: bilateral filters keep edges and melt texture (skin, grass, fabric).
    for (let k = 0; k < 4; k++) {
      const next = track(new cv.Mat());
      cv.bilateralFilter(rgb, next, 9, 40, 7, cv.BORDER_DEFAULT);
      rgb = next;
    }
    const flat = track(new cv.Mat());
    cv.medianBlur(rgb, flat, 5);
    const people = opts.detail.length > 0;
    // Thresholds from the gradient distribution: the strongest ~12 % of gradients start a line.
    g = await gradients(flat);
    const sorted = Float32Array.from(g.mag).sort();
    // A scene without a subject (a landscape, a busy close-up) keeps only its strongest shapes.
    const hi = Math.max(60, sorted[Math.floor(sorted.length * (opts.subject ? 0.88 : 0.91))]!);
    let edges = await cannyAll(g, hi);

    // Subject and detail masks at the working size.
    const subject = opts.subject
      ? await sharp(Buffer.from(opts.subject), { raw: { width: src.width, height: src.height, channels: 1 } })
          .resize(w, h, { fit: "fill" })
          .extractChannel(0)
          .raw()
          .toBuffer()
      : null;
    const detail = new Uint8Array(w * h);
    for (const [bx, by, bw, bh] of opts.detail) {
      for (let y = Math.max(0, Math.floor(by * scale)); y < Math.min(h, Math.ceil((by + bh) * scale)); y++)
        for (let x = Math.max(0, Math.floor(bx * scale)); x < Math.min(w, Math.ceil((bx + bw) * scale)); x++)
          detail[y * w + x] = 1;
    }

    // Edge density (share of edge pixels within R): fur, foliage and gravel are dense with
    // short edges; a scrap there is texture, not a shape.
    const R = Math.max(4, Math.round(WORK / 40));
    let density = densityMap(edges, w, h, R);
    // Fur among leaves, gravel: only the strongest edges, longer pieces, the subject's spots.
    const textured = !people && isTextured(density, TEXTURE_DENSITY);
    if (textured) {
      await flattenTexture(flat);
      g.delete();
      g = await gradients(flat);
      edges = await cannyAll(g, Math.max(60, quantile(g.mag, TEXTURED.quantile)));
      density = densityMap(edges, w, h, R);
    }
    const longer = textured ? TEXTURED.lengthScale : 1;
    // Scraps dropped by where they lie: a face's detail over 8 px, the subject 18 px (a scene
    // 40 px), the background 60 px, dense texture 103 px at 720 px. Without people (fur,
    // leaves, grass), wandering scribbles go too (their direction is not coherent).
    const keep = dropScraps(edges, w, h, {
      subject,
      detail,
      density,
      textureDensity: TEXTURE_DENSITY,
      lengths: {
        detail: Math.round(WORK / 90),
        subject: Math.round((opts.subject ? WORK / 40 : WORK / 18) * longer),
        background: Math.round((WORK / 12) * longer),
        texture: Math.round((WORK / 7) * longer),
      },
      coherence: people
        ? undefined
        : { values: await coherenceMap(g.gx, g.gy, Math.max(2, WORK / 160)), dense: 0.55, sparse: 0.4 },
    });

    // Faces drawn from the mesh (faces.ts): their traced inside and the hair's scribble go.
    const drawn = await drawnFaces(opts.faces ?? [], src, drawW / src.width);
    if (drawn.length) clearTracedFaces(keep, w, h, drawn, scale, subject, flat.data as Uint8Array);

    // A child colours regions: a speck of paper ringed by a scrap is none.
    const island = (WORK / 36) ** 2;
    dropIslands(keep, w, h, { minArea: island, maxPiece: Math.round(WORK / 5), exempt: detail });

    // A pet or an object in a textured scene (fur among leaves): its silhouette (the completed
    // cut, smoothed) as one bold closed contour where the cut follows the photo's edges, its
    // eyes as closed ovals; inside it only long lines, outside only long leaf or horizon lines,
    // none doubling it (shared/line-budget.ts).
    // A subject found by focus (a flower) is drawn the same way in any scene, without eyes.
    const sil =
      (textured || opts.salient) && subject
        ? await petSilhouette(keep, w, h, {
            subject,
            edges,
            rgb: small,
            side: WORK,
            // A flower: no eyes; its stalk and the larger flowers behind it stay, inside it only
            // long lines (a petal's edge, not the scribble of a seed head's texture).
            ...(opts.salient
              ? { eyes: false, minOutside: Math.round(WORK / 8), minInside: Math.round(WORK / 5) }
              : {}),
          })
        : null;

    if (textured && subject) {
      // An animal's eye patches and nose: no landmarks, soft edges; outlined as spots (only the
      // dark ones with a silhouette: the light ones ringed a raccoon's nose with loops).
      const spots = await salientSpots(
        flat,
        w,
        h,
        subject,
        island / (w * h),
        undefined,
        sil ? [-1] : [1, -1],
      );
      for (let i = 0; i < w * h; i++) if (spots[i]) keep[i] = 1;
    }

    // Overlaid words and the logo beside them are no part of the picture to colour.
    if (opts.marks) {
      dropMarks(keep, w, h, await marksAtSize(opts.marks, src.width, src.height, w, h), subject);
    }

    // The subject's outline, bold: the silhouette, or the mask's boundary.
    const outline = sil ? sil.rim : new Uint8Array(w * h);
    if (subject && !sil) {
      for (let y = 1; y < h - 1; y++)
        for (let x = 1; x < w - 1; x++) {
          const i = y * w + x;
          const a = subject[i]! >= 128;
          if (
            a &&
            (subject[i - 1]! < 128 || subject[i + 1]! < 128 || subject[i - w]! < 128 || subject[i + w]! < 128)
          )
            outline[i] = 1;
        }
    }

    // Session 11: a pet's or an object's cut can end inside it (a cat's close-up cut through its
    // face): its outline is drawn only where the photo has an edge along it (within 3 px),
    // pieces shorter than 1/40 of the side dropped; a person's matte is drawn all round.
    if (subject && !sil && !people) {
      const near = densityMap(edges, w, h, 3);
      for (let i = 0; i < w * h; i++) if (outline[i] && !(near[i]! > 0)) outline[i] = 0;
      forEachPiece8(outline, w, h, (piece) => {
        if (piece.length < WORK / 40) for (const p of piece) outline[p] = 0;
      });
    }

    // The subject as a few closed regions (tidy.ts): floating fragments of folds, grain and fur
    // go, gaps between long lines close; clothing below a face needs stronger, longer lines.
    if (subject && !sil) {
      let clothing: Uint8Array | null = null;
      if (opts.detail.length) {
        clothing = new Uint8Array(w * h);
        for (const [bx, by, bw, bh] of opts.detail) {
          const x0 = Math.max(0, Math.floor((bx - 1.5 * bw) * scale));
          const x1 = Math.min(w, Math.ceil((bx + 2.5 * bw) * scale));
          const y0 = Math.max(0, Math.floor((by + 1.15 * bh) * scale));
          for (let y = y0; y < h; y++)
            for (let x = x0; x < x1; x++) {
              const i = y * w + x;
              if (subject[i]! >= 128 && !detail[i]) clothing[i] = 1;
            }
        }
      }
      tidySubject(keep, w, h, {
        subject,
        detail,
        outline,
        clothing,
        mag: g.mag,
        // The strongest 5 % of gradients (a line starts at the strongest 12 %).
        strong: sorted[Math.floor(sorted.length * 0.95)]!,
      });
    }

    // To the drawing size: lines about 3 px, the outline about 5 px, smooth and pure black.
    const k = drawW / w;
    const up = async (mask: Uint8Array, width: number) => {
      const img = Buffer.alloc(w * h);
      for (let i = 0; i < img.length; i++) img[i] = mask[i] ? 255 : 0;
      return sharp(img, { raw: { width: w, height: h, channels: 1 } })
        .resize(drawW, drawH, { fit: "fill", kernel: "linear" })
        .blur(Math.max(0.8, (k * width) / 3))
        .extractChannel(0)
        .raw()
        .toBuffer();
    };
    const thin = await up(keep, 1.3);
    const bold = subject ? await up(outline, 1.6) : null;
    const features = drawn.length ? drawFaceFeatures(drawn, src, drawW, drawH, drawW / src.width) : null;
    const out = Buffer.alloc(drawW * drawH, 255);
    for (let i = 0; i < out.length; i++) {
      const v = Math.max(thin[i]! * 1.6, bold ? bold[i]! * 1.9 : 0);
      if (v > 70) out[i] = 0;
      if (features?.[i]) out[i] = features[i] === 1 ? 0 : 255;
    }
    return out;
  } finally {
    g?.delete();
    for (const m of mats) m.delete();
  }
}
