import sharp from "sharp";
import type { RenderRequest } from "@/core/ports/renderer";
import { decodeRaw, encodePng, firstImage, type EffectOutput, type RawImage } from "../../shared/image-io";
import { cutOutSubjectWhole } from "../../shared/line-budget";
import { inpaintRgb } from "../../shared/opencv";
import { findSubject } from "../../shared/subject";
import { detectFaces, personMatte, type Face } from "../../vision/human";
import { boxMask, featureBoxes } from "../../shared/face-features";
import { chromaSpread, CONTRAST, findPrintDamage, PRINT_CHROMA } from "../../shared/print-damage";
import { marksAtSize, overlayMarks } from "../../shared/overlay-marks";
import { traceLines } from "./lines";
import { characterFaces, faceSvg, faceZones, meshFaces, missingJaw } from "./face-lines";

/**
 * Image to Line Drawing: clean dark pen lines on white paper that trace the photo's shapes.
 * The subject (people through the face detector and the person matte, a pet or an object
 * through the object detector and GrabCut) decides what is drawn in detail; a face large and
 * frontal enough is drawn from its mesh (face-lines.ts: eyes, brows, nose, lips, glasses, a
 * soft jaw; the photo's skin texture and stubble dropped), a smaller one keeps the photo's lines
 * with its features always drawn; overlaid words and the logo beside them are left out; the
 * background behind people is drawn lighter; an old print's scratches and dust are removed
 * before tracing; texture (fur, leaves, grass) is flattened and its scraps dropped (lines.ts).
 */

/** Output long side: at most the photo's, at least MIN_SIDE (small photos are enlarged). */
const MAX_SIDE = 1280;
const MIN_SIDE = 1000;
/** Lines are found at this long side, so line density does not depend on megapixels. */
export const WORK_SIDE = 800;
/**
 * Overlaid words are looked for at this long side (the text detector's cost grows with the
 * pixels; a caption's letters are still over 10 px tall here).
 */
const TEXT_SIDE = 640;

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const bytes = firstImage(req);
  const src = await decodeRaw(bytes, { channels: 3, flatten: true, maxSide: MAX_SIDE });
  const grow = Math.max(1, MIN_SIDE / Math.max(src.width, src.height));
  const outW = Math.round(src.width * grow);
  const outH = Math.round(src.height * grow);

  const k = WORK_SIDE / Math.max(src.width, src.height);
  const w = Math.max(16, Math.round(src.width * k));
  const h = Math.max(16, Math.round(src.height * k));
  let rgb: Buffer = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .resize(w, h, { fit: "fill" })
    .raw()
    .toBuffer();

  // Overlaid words and the logo beside them (a watermark, a credit, a handle) are not drawn. The
  // text detector (onnxruntime, its own threads) runs while the faces and the subject are found.
  const textSrc = await shrunk(src, TEXT_SIDE);
  const marksFound = overlayMarks(textSrc);
  marksFound.catch(() => undefined); // awaited below (and rethrown there); not unhandled meanwhile
  const { faces, subject } = await findSubjectMask(src, w, h);
  const features = boxMask(
    faces.flatMap((f) => featureBoxes(f)),
    w,
    h,
    w / src.width,
  );

  // An old print's scratches, creases and dust would be traced as the strongest lines. The
  // working size is the damage detector's reference size (800 px); a line must stand out as
  // much as a spot (CONTRAST), as the drawing was tuned and scored with (the detector's
  // fainter default changes 4 of the scoring set's old prints, not clearly for the better).
  // Faces large and frontal enough are drawn from the mesh (face-lines.ts), their photo lines
  // dropped: their features need no protection from the damage search (a scratch across an
  // eye's box would otherwise survive there, cut short, and be drawn as a stroke on the cheek).
  const drawn = await meshFaces(faces, src);
  if (chromaSpread(rgb) < PRINT_CHROMA) {
    const grey = new Uint8Array(w * h);
    for (let i = 0; i < w * h; i++)
      grey[i] = Math.round(0.299 * rgb[i * 3]! + 0.587 * rgb[i * 3 + 1]! + 0.114 * rgb[i * 3 + 2]!);
    const own = faces.filter((f) => !drawn.some((d) => d.face === f));
    const protect =
      own.length === faces.length
        ? features
        : boxMask(
            own.flatMap((f) => featureBoxes(f)),
            w,
            h,
            w / src.width,
          );
    const damage = await findPrintDamage(grey, w, h, protect, CONTRAST);
    if (damage) rgb = await inpaintRgb(rgb, w, h, damage, 3);
  }

  const lined = characterFaces(faces, drawn, src);
  const marks = await marksFound;
  const lines = await traceLines(rgb, w, h, {
    subject,
    features,
    people: faces.length > 0,
    lightBackground:
      !!subject && faces.length > 0 && faces.every((f) => onSubject(f, subject, w / src.width, w)),
    faceZones: drawn.length || lined.length ? faceZones(drawn, w, h, w / src.width, lined) : null,
    glasses: drawn.some((d) => d.glasses),
    heads: faces.length ? boxMask(faces.map(headBox), w, h, w / src.width) : null,
    marks: marks && (await marksAtSize(marks, textSrc.width, textSrc.height, w, h)),
  });
  const drawing = await strokes(lines, w, h, outW, outH);
  if (drawn.length) {
    const jaw = missingJaw(drawn, lines, w, h, w / src.width);
    const svg = faceSvg(drawn, src, outW / src.width, outW, outH, jaw);
    const ink = await sharp(Buffer.from(svg)).ensureAlpha().extractChannel(3).raw().toBuffer();
    for (let i = 0; i < drawing.data.length; i++) drawing.data[i] = Math.min(drawing.data[i]!, 255 - ink[i]!);
  }
  return encodePng(drawing);
}

/** A face's head: its box widened by half its width each side and raised by half its height (hair), down to its chin. */
function headBox(f: Face): [number, number, number, number] {
  const [x, y, bw, bh] = f.box;
  return [x - bw * 0.5, y - bh * 0.5, bw * 2, bh * 1.5];
}

/** The photo shrunk to at most `side` px on its long side. */
async function shrunk(src: RawImage, side: number): Promise<RawImage> {
  const k = side / Math.max(src.width, src.height);
  if (k >= 1) return src;
  const width = Math.max(1, Math.round(src.width * k));
  const height = Math.max(1, Math.round(src.height * k));
  const data = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .resize(width, height, { fit: "fill" })
    .raw()
    .toBuffer();
  return { data, width, height, channels: 3 };
}

/** Whether a face's centre lies on the subject's mask (w wide, photo pixels times `k`). */
function onSubject(f: Face, subject: Uint8Array, k: number, w: number): boolean {
  const x = Math.round((f.box[0] + f.box[2] / 2) * k);
  const y = Math.round((f.box[1] + f.box[3] / 2) * k);
  return (subject[y * w + x] ?? 0) >= 128;
}

/** Faces, and the subject's mask at the working size (0..255), or null for a scene. */
async function findSubjectMask(
  src: RawImage,
  w: number,
  h: number,
): Promise<{ faces: Face[]; subject: Uint8Array | null }> {
  const pixels = { data: src.data, width: src.width, height: src.height };
  const { faces } = await detectFaces(pixels);
  let full: Uint8Array | null = null;
  if (faces.length) {
    full = (await personMatte(pixels)).alpha;
  } else {
    const found = await findSubject(src);
    if (found) full = await cutOutSubjectWhole(src, found.box);
  }
  if (!full) return { faces, subject: null };
  const subject = await sharp(Buffer.from(full), {
    raw: { width: src.width, height: src.height, channels: 1 },
  })
    .resize(w, h, { fit: "fill" })
    .extractChannel(0)
    .raw()
    .toBuffer();
  let covered = 0;
  for (const v of subject) if (v >= 128) covered++;
  covered /= w * h;
  return { faces, subject: covered > 0.02 && covered < 0.97 ? new Uint8Array(subject) : null };
}

/**
 * The lines as smooth pen strokes at the output size: each line mask is enlarged, softened
 * by a blur that sets the stroke width, and mapped steeply to near-black ink on white
 * (anti-aliased edges). Outline lines are wider than the rest.
 */
async function strokes(
  lines: Uint8Array,
  w: number,
  h: number,
  outW: number,
  outH: number,
): Promise<RawImage> {
  const f = outW / w;
  const layer = async (levels: number[], sigma: number) => {
    const img = Buffer.alloc(w * h);
    for (let i = 0; i < img.length; i++) img[i] = levels.includes(lines[i]!) ? 255 : 0;
    return sharp(img, { raw: { width: w, height: h, channels: 1 } })
      .resize(outW, outH, { fit: "fill", kernel: "linear" })
      .blur(sigma)
      .extractChannel(0)
      .raw()
      .toBuffer();
  };
  const thin = await layer([1, 2], Math.max(0.7, 0.55 * f));
  const bold = await layer([2], Math.max(1, 0.9 * f));
  // The background behind a subject: finer, lighter lines (at most 60 % ink).
  const back = await layer([3], Math.max(0.6, 0.45 * f));
  const out = Buffer.alloc(outW * outH);
  for (let i = 0; i < out.length; i++) {
    const ink = Math.max(thin[i]! * 2.4, bold[i]! * 2.6, Math.min(150, back[i]! * 2.2));
    out[i] = Math.max(0, Math.min(255, Math.round(255 - ink)));
  }
  return { data: out, width: outW, height: outH, channels: 1 };
}
