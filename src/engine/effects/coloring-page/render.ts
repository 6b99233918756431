import sharp from "sharp";
import { boxMask, featureBoxes } from "../../shared/face-features";
import { decodeRaw, firstImage, transformRaw, type EffectOutput, type RawImage } from "../../shared/image-io";
import { cutOutSubjectWhole } from "../../shared/line-budget";
import { overlayMarks } from "../../shared/overlay-marks";
import { chromaSpread, PRINT_CHROMA, repairPrintDamage } from "../../shared/print-damage";
import { salientSubject } from "../../shared/salient-subject";
import { findSubject } from "../../shared/subject";
import { detectFaces, personMatte, type Face } from "../../vision/human";
import { drawLines, WORK } from "./lines";
import type { RenderRequest } from "@/core/ports/renderer";

/**
 * Coloring page for children aged 6-9: the photo's outlines (lines.ts: the subject's contours
 * and a face's features kept, texture and background clutter dropped) as clean black strokes
 * on pure white (no shading), laid out on a
 * US Letter portrait page at 150 dpi (1275 x 1650, the 8.5 x 11 inch ratio), with a small
 * full-colour reference of the original in the bottom-right corner.
 */
export const PAGE = { width: 1275, height: 1650, dpi: 150 } as const;
export const MARGIN = 75;
/** The colour reference: at most this big, in the bottom-right corner inside the margin. */
export const REFERENCE = { maxWidth: 300, maxHeight: 240, gap: 20 } as const;

/** Where the drawing of a photo of this size sits on the page: inside the margins, above the reference strip. */
export function drawingBox(width: number, height: number) {
  const boxW = PAGE.width - 2 * MARGIN;
  const boxH = PAGE.height - 2 * MARGIN - REFERENCE.maxHeight - REFERENCE.gap;
  const fit = Math.min(boxW / width, boxH / height);
  const w = Math.round(width * fit);
  const h = Math.round(height * fit);
  return {
    width: w,
    height: h,
    left: MARGIN + Math.round((boxW - w) / 2),
    top: MARGIN + Math.round((boxH - h) / 2),
    scale: fit,
  };
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const bytes = firstImage(req);
  const src = await decodeRaw(bytes, { channels: 3, flatten: true, maxSide: 1600 });

  const { width: drawW, height: drawH, left: drawLeft, top: drawTop } = drawingBox(src.width, src.height);

  // 1-2. The drawing: the subject's outlines (lines.ts). People: the person matte keeps them
  // and their faces keep their features; a pet or an object: its cut-out; a landscape: the
  // strong shapes only.
  const { subject, detail, salient, faces } = await findSubjectMask(src);
  // Overlaid words (a watermark's name, a credit) and the logo beside them are left out of a
  // photo without people (a portrait's lines stay as they were: the detector also reads a cap's
  // badge or a flag's stars as words, and the area around them would take a face's lines).
  const marks = detail.length ? null : await overlayMarks(src);
  // An old print's creases, scratches and dust are no lines to colour: filled from their
  // surroundings first (shared/print-damage.ts; the faces' features are left alone).
  const print = faces.length > 0 && chromaSpread(src.data) < PRINT_CHROMA;
  const lined = print ? await repairedPrint(src, faces) : src;
  const drawing = await drawLines(lined, drawW, drawH, { subject, detail, salient, marks, faces });
  // A frame around the picture closes the regions cut by its edges.
  for (let x = 0; x < drawW; x++)
    for (let t = 0; t < 4; t++) drawing[t * drawW + x] = drawing[(drawH - 1 - t) * drawW + x] = 0;
  for (let y = 0; y < drawH; y++)
    for (let t = 0; t < 4; t++) drawing[y * drawW + t] = drawing[y * drawW + drawW - 1 - t] = 0;

  // 3. The page: white, the drawing centred in its box, the colour reference bottom-right.
  const refFit = Math.min(REFERENCE.maxWidth / src.width, REFERENCE.maxHeight / src.height);
  const refW = Math.round(src.width * refFit);
  const refH = Math.round(src.height * refFit);
  const reference = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .resize(refW, refH)
    .extend({ top: 3, bottom: 3, left: 3, right: 3, background: "#000000" })
    .png()
    .toBuffer();
  const drawingPng = await sharp(drawing, { raw: { width: drawW, height: drawH, channels: 1 } })
    .toColourspace("srgb")
    .png()
    .toBuffer();
  const out = await sharp({
    create: { width: PAGE.width, height: PAGE.height, channels: 3, background: "#ffffff" },
  })
    .composite([
      {
        input: drawingPng,
        left: drawLeft,
        top: drawTop,
      },
      { input: reference, left: PAGE.width - MARGIN - refW - 6, top: PAGE.height - MARGIN - refH - 6 },
    ])
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .withMetadata({ density: PAGE.dpi })
    .toBuffer();
  return { bytes: out, width: PAGE.width, height: PAGE.height };
}

/** The subject's mask at the photo's size and the face boxes, or null (a scene: everything counts). */
async function findSubjectMask(src: RawImage): Promise<{
  subject: Uint8Array | null;
  detail: Array<[number, number, number, number]>;
  salient: boolean;
  faces: Face[];
}> {
  const pixels = { data: src.data, width: src.width, height: src.height };
  // With the age model: a child's face is drawn softer, an older one with its folds (faces.ts).
  const { faces } = await detectFaces(pixels, { age: true });
  if (faces.length) {
    const { alpha } = await personMatte(pixels);
    // (Faces need not be in the matte: their boxes keep detail in lines.ts either way.)
    const mask = Uint8Array.from(alpha);
    const covered = mask.reduce((n, v) => n + (v >= 128 ? 1 : 0), 0) / mask.length;
    return {
      subject: covered > 0.02 && covered < 0.97 ? mask : null,
      detail: faces.map((f) => f.box),
      salient: false,
      faces,
    };
  }
  const found = await findSubject(src);
  if (found)
    return { subject: await cutOutSubjectWhole(src, found.box), detail: [], salient: false, faces: [] };
  // Nothing named (a flower, a dandelion clock): the sharp subject in front of a soft background.
  const salient = await salientSubject(src);
  return { subject: salient, detail: [], salient: !!salient, faces: [] };
}

/**
 * An old print with its damage filled (shared/print-damage.ts), at the photo's size. The lines
 * are traced at WORK px, so the repair runs on a copy that size (at 1500 px it took 4-6 s under
 * load): the pixels it changed, scaled back up, replace the photo's; the rest (the faces, whose
 * glasses are looked for at full size) stays the photo's own.
 */
async function repairedPrint(src: RawImage, faces: Face[]): Promise<RawImage> {
  const { width, height } = src;
  const k = Math.min(1, WORK / Math.max(width, height));
  const sw = Math.max(16, Math.round(width * k));
  const sh = Math.max(16, Math.round(height * k));
  const small = await transformRaw(src, (img) => img.resize(sw, sh, { fit: "fill" }));
  const features = faces.flatMap((f) => featureBoxes(f));
  const fixed = await repairPrintDamage(small, boxMask(features, sw, sh, sw / width));
  if (!fixed) return src;
  const changed = new Uint8Array(sw * sh);
  for (let i = 0; i < sw * sh * 3; i++) if (fixed.data[i] !== small.data[i]) changed[(i / 3) | 0] = 1;
  const up = (await transformRaw(fixed, (img) => img.resize(width, height, { fit: "fill" }))).data;
  const data = Buffer.from(src.data);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(sh - 1, Math.floor((y * sh) / height));
    for (let x = 0; x < width; x++) {
      if (!changed[sy * sw + Math.min(sw - 1, Math.floor((x * sw) / width))]) continue;
      const i = (y * width + x) * 3;
      data[i] = up[i]!;
      data[i + 1] = up[i + 1]!;
      data[i + 2] = up[i + 2]!;
    }
  }
  return { ...src, data };
}
