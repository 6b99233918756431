/* eslint-disable @typescript-eslint/no-explicit-any -- opencv.js ships loose types */
import sharp from "sharp";
import type { RawImage } from "../../shared/image-io";
import { bigShapes } from "../../shared/line-budget";
import { opencv } from "../../shared/opencv";

/**
 * The drawing of a coloring page: the outlines a person would trace, not a map of colour
 * blobs. At a working size of WORK px, the photo is flattened into cartoon-like areas
 * (repeated bilateral filtering, then a median: texture goes, edges stay), its contours are
 * found with Canny (thresholds from the photo's own gradient distribution), and specks and
 * short scraps are dropped (a child cannot colour a 3 px island). Where a subject mask is
 * given (people, a pet), the subject's contours are kept down to shorter lengths than the
 * background's and its outline is drawn bolder. The lines are then scaled to the drawing
 * size, smoothed and thresholded to clean black strokes on white.
 */
export const WORK = 720;
/** Above this share of edge pixels around it, a place is texture (fur, leaves), not outlines. */
const TEXTURE_DENSITY = 0.14;
/** Share of the picture with dense edges above which a pet's or an object's photo is textured. */
const TEXTURED_SHARE = 0.2;

export interface LineOptions {
  /** Subject mask at the photo's size (255 subject), or null: the whole picture is the subject. */
  subject: Uint8Array | null;
  /** Boxes (photo pixels) where finer detail is kept: faces (eyes, brows, mouth). */
  detail: Array<[number, number, number, number]>;
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
    const gray = track(new cv.Mat());
    cv.cvtColor(flat, gray, cv.COLOR_RGB2GRAY);
    // Colour edges count too (a red shirt on green grass of equal brightness): Canny on each
    // channel, combined.
    const channels = track(new cv.MatVector());
    cv.split(flat, channels);

    // Thresholds from the gradient distribution: the strongest ~12 % of gradients start a line.
    const gx = track(new cv.Mat());
    const gy = track(new cv.Mat());
    cv.Sobel(gray, gx, cv.CV_32F, 1, 0, 3);
    cv.Sobel(gray, gy, cv.CV_32F, 0, 1, 3);
    const mag = new Float32Array(w * h);
    const ax = gx.data32F as Float32Array;
    const ay = gy.data32F as Float32Array;
    for (let i = 0; i < mag.length; i++) mag[i] = Math.hypot(ax[i]!, ay[i]!);
    const sorted = Float32Array.from(mag).sort();
    // A scene without a subject (a landscape, a busy close-up) keeps only its strongest shapes.
    const hi = Math.max(60, sorted[Math.floor(sorted.length * (opts.subject ? 0.88 : 0.91))]!);
    const lo = hi * 0.45;

    const edges = new Uint8Array(w * h);
    for (let c = 0; c < 4; c++) {
      const input = c < 3 ? channels.get(c) : gray;
      if (c < 3) mats.push(input);
      const e = track(new cv.Mat());
      cv.Canny(input, e, lo, hi, 3, true);
      const d = e.data as Uint8Array;
      for (let i = 0; i < d.length; i++) if (d[i]) edges[i] = 1;
    }

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

    // Edge density (share of edge pixels within DENSITY_R): fur, foliage and gravel are dense
    // with short edges; a scrap there is texture, not a shape.
    const R = Math.max(4, Math.round(WORK / 40));
    const W1 = w + 1;
    const integral = new Int32Array(W1 * (h + 1));
    for (let y = 0; y < h; y++) {
      let row = 0;
      for (let x = 0; x < w; x++) {
        row += edges[y * w + x]!;
        integral[(y + 1) * W1 + x + 1] = integral[y * W1 + x + 1]! + row;
      }
    }
    const density = (p: number) => {
      const x = p % w;
      const y = (p - x) / w;
      const xa = Math.max(0, x - R);
      const xb = Math.min(w, x + R + 1);
      const ya = Math.max(0, y - R);
      const yb = Math.min(h, y + R + 1);
      const sum =
        integral[yb * W1 + xb]! - integral[ya * W1 + xb]! - integral[yb * W1 + xa]! + integral[ya * W1 + xa]!;
      return sum / ((xb - xa) * (yb - ya));
    };

    // Without people, a scene (a meadow: soft, fuzzy shapes) or a pet among texture (fur
    // among leaves) is drawn from its big shapes (shared/line-budget.ts): the flattened
    // photo's contours at a third of the size, the texture beside the long ones dropped past
    // a density budget, the background held to a share of the ink.
    let keep: Uint8Array = new Uint8Array(w * h);
    let dense = 0;
    for (let p = 0; p < w * h; p++) if (density(p) > TEXTURE_DENSITY) dense++;
    const shapes = !opts.detail.length && (!subject || dense / (w * h) > TEXTURED_SHARE);
    if (shapes) keep = await bigShapes(flat, w, h, subject);
    else dropScraps();

    // Drop scraps: 8-connected pieces shorter than the minimum for where they lie.
    function dropScraps() {
      const minSubject = Math.round(opts.subject ? WORK / 40 : WORK / 18);
      const minBackground = Math.round(WORK / 12);
      const minDetail = Math.round(WORK / 90);
      const minTexture = Math.round(WORK / 7);
      const seen = new Uint8Array(w * h);
      const stack: number[] = [];
      const piece: number[] = [];
      for (let s = 0; s < w * h; s++) {
        if (!edges[s] || seen[s]) continue;
        piece.length = 0;
        stack.push(s);
        seen[s] = 1;
        let inSubject = 0;
        let inDetail = 0;
        let dense = 0;
        let x0 = w;
        let x1 = 0;
        let y0 = h;
        let y1 = 0;
        while (stack.length) {
          const p = stack.pop()!;
          piece.push(p);
          const px = p % w;
          const py = (p - px) / w;
          x0 = Math.min(x0, px);
          x1 = Math.max(x1, px);
          y0 = Math.min(y0, py);
          y1 = Math.max(y1, py);
          if (!subject || subject[p]! >= 128) inSubject++;
          if (detail[p]) inDetail++;
          if (density(p) > TEXTURE_DENSITY) dense++;
          const x = p % w;
          for (let dy = -1; dy <= 1; dy++)
            for (let dx = -1; dx <= 1; dx++) {
              const q = p + dy * w + dx;
              if (x + dx < 0 || x + dx >= w || q < 0 || q >= w * h || seen[q] || !edges[q]) continue;
              seen[q] = 1;
              stack.push(q);
            }
        }
        let min =
          inDetail > piece.length / 2 ? minDetail : inSubject > piece.length / 2 ? minSubject : minBackground;
        if (inDetail <= piece.length / 2 && dense > piece.length / 2) min = Math.max(min, minTexture);
        // (A face's detail: eyes, brows, nostrils, lips are short but essential.)
        // Long enough, and not a tiny closed loop (a dress's dots, a sparkle): its extent counts too.
        const extent = Math.hypot(x1 - x0, y1 - y0);
        if (piece.length >= min && extent >= min * 0.6) for (const p of piece) keep[p] = 1;
      }
    }

    // The subject's outline, bold: the mask's boundary.
    const outline = new Uint8Array(w * h);
    if (subject) {
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
    const out = Buffer.alloc(drawW * drawH, 255);
    for (let i = 0; i < out.length; i++) {
      const v = Math.max(thin[i]! * 1.6, bold ? bold[i]! * 1.9 : 0);
      if (v > 70) out[i] = 0;
    }
    return out;
  } finally {
    for (const m of mats) m.delete();
  }
}
