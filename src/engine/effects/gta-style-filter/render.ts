import sharp from "sharp";
import { sobel } from "../../shared/edges";
import { decodeRaw, encodePng, firstImage, type EffectOutput, type RawImage } from "../../shared/image-io";
import { boxMask, featureBoxes } from "../../shared/face-features";
import { headGeometry, polygonMask } from "../../shared/hair/hair-region";
import { opencv } from "../../shared/opencv";
import { chromaSpread, PRINT_CHROMA, repairPrintDamage } from "../../shared/print-damage";
import type { RenderRequest } from "@/core/ports/renderer";
import { detectFaces, type Face } from "../../vision/human";

/**
 * Game-poster illustration: clean flat cel-shaded regions and deliberate dark outlines.
 * 1. Edge-preserving smoothing (two bilateral passes, OpenCV) at reduced size wipes skin
 *    texture, stubble and noise while keeping the forms; a saturated, contrasty grade.
 * 2. libimagequant reduces it to a few flat colours without dithering.
 * 3. Speckles are merged away: every flat region smaller than a small share of the picture
 *    takes the colour of the neighbour it touches most, so faces read as clean shapes.
 * 4. Outlines are inked where two regions of clearly different lightness meet and along the
 *    smoothed picture's strongest long edges (short fragments dropped), about 3 px wide.
 * Before all this, an old print (monochrome or toned) loses its scratches, creases and dust
 * (shared/print-damage.ts, filled by Telea inpainting), or they would be inked as bold lines
 * and dots. Inside a face's oval only the eyes, brows, nose and mouth are inked: any other
 * stroke there (a wrinkle, a watermark's letters, a reflection) is dropped.
 */
const WORK_SIDE = 1280;
const SMOOTH_SIDE = 560;
export const POSTER_COLOURS = 16;
/** Outline ink: a very dark blue-black, as poster art inks. */
export const INK: readonly [number, number, number] = [18, 16, 28];
/** Regions smaller than this share of the picture are speckles, merged into a neighbour. */
const MIN_REGION_SHARE = 0.00035;
/** Lightness step between two regions that gets an outline. */
const OUTLINE_STEP = 42;

const luma = (d: Uint8Array | Buffer, i: number) =>
  (0.299 * d[i * 3]! + 0.587 * d[i * 3 + 1]! + 0.114 * d[i * 3 + 2]!) | 0;

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const src = await decodeRaw(firstImage(req), { channels: 3, flatten: true, maxSide: WORK_SIDE });
  const { width, height } = src;
  const { faces } = await detectFaces({ data: src.data, width, height });
  const features = boxMask(
    faces.flatMap((f) => featureBoxes(f)),
    width,
    height,
    1,
  );
  const clean = await removePrintDamage(src, features);
  const smooth = await smoothForms(clean);
  const flat = await sharp(smooth, { raw: { width, height, channels: 3 } })
    .modulate({ saturation: 1.45, brightness: 1.03 })
    .linear(1.15, -15)
    .png({ palette: true, colours: POSTER_COLOURS, dither: 0, effort: 2 })
    .toBuffer();
  const cel = await sharp(flat).removeAlpha().raw().toBuffer();
  mergeSpeckles(cel, width, height, Math.max(24, Math.round(width * height * MIN_REGION_SHARE)));

  const ink = await outlines(cel, smooth, width, height, {
    quiet: faceQuiet(faces, width, height),
    features,
    faces,
  });
  for (let i = 0; i < width * height; i++) {
    if (ink[i]! > 127) {
      cel[i * 3] = INK[0];
      cel[i * 3 + 1] = INK[1];
      cel[i * 3 + 2] = INK[2];
    }
  }
  // Ink taken off a face leaves the regions it cut: slivers too small to read are merged again.
  mergeSpeckles(cel, width, height, 20);
  return encodePng({ data: cel, width, height, channels: 3 });
}

/**
 * An old print's scratches, creases and dust, filled from their surroundings
 * (shared/print-damage.ts). Only a monochrome or toned photo (chroma spread under
 * {@link PRINT_CHROMA}) is treated: on a colour photo thin bright lines are mostly real (hair,
 * wires, highlights). `protect`: face features.
 */
async function removePrintDamage(src: RawImage, protect: Uint8Array): Promise<RawImage> {
  if (chromaSpread(src.data) >= PRINT_CHROMA) return src;
  return (await repairPrintDamage(src, protect)) ?? src;
}

/**
 * Where no ink may go: inside each face's oval (shrunk a little, so the jaw and hairline keep
 * their outline) except around the eyes, brows, nose and mouth (their boxes, grown).
 */
export function faceQuiet(faces: Face[], width: number, height: number): Uint8Array | null {
  if (!faces.length) return null;
  const quiet = new Uint8Array(width * height);
  for (const face of faces) {
    if (face.mesh.length < 468) continue;
    const { oval } = headGeometry(face);
    const cx = oval.reduce((a, p) => a + p[0], 0) / oval.length;
    const cy = oval.reduce((a, p) => a + p[1], 0) / oval.length;
    const inner = oval.map(([x, y]) => [cx + (x - cx) * 0.88, cy + (y - cy) * 0.88] as [number, number]);
    const inside = polygonMask(inner, width, height);
    const keep = boxMask(featureBoxes(face, 0.06), width, height, 1);
    for (let i = 0; i < width * height; i++) if (inside[i] && !keep[i]) quiet[i] = 1;
  }
  return quiet;
}

/** Bilateral smoothing at half size (texture goes, edges stay), back at full size. */
async function smoothForms(src: RawImage): Promise<Buffer> {
  const { width, height } = src;
  const scale = Math.min(1, SMOOTH_SIDE / Math.max(width, height));
  const sw = Math.max(1, Math.round(width * scale));
  const sh = Math.max(1, Math.round(height * scale));
  const small = await sharp(src.data, { raw: { width, height, channels: 3 } })
    .resize(sw, sh, { fit: "fill" })
    .raw()
    .toBuffer();
  const { cv } = await opencv();
  let a = cv.matFromArray(sh, sw, cv.CV_8UC3, small);
  let b = new cv.Mat();
  try {
    for (let pass = 0; pass < 2; pass++) {
      cv.bilateralFilter(a, b, 9, 45, 7, cv.BORDER_DEFAULT);
      [a, b] = [b, a];
    }
    const out = Buffer.from(a.data as Uint8Array);
    return await sharp(out, { raw: { width: sw, height: sh, channels: 3 } })
      .resize(width, height, { fit: "fill", kernel: "cubic" })
      .raw()
      .toBuffer();
  } finally {
    a.delete();
    b.delete();
  }
}

/** Recolours every same-colour region under `minArea` pixels with its main neighbour's colour. */
export function mergeSpeckles(rgb: Buffer, width: number, height: number, minArea: number): void {
  const n = width * height;
  const key = new Int32Array(n);
  for (let i = 0; i < n; i++) key[i] = (rgb[i * 3]! << 16) | (rgb[i * 3 + 1]! << 8) | rgb[i * 3 + 2]!;
  const seen = new Uint8Array(n);
  // One region at a time, breadth first: queue[0..tail) are its pixels once it is done.
  const queue = new Int32Array(n);
  const votes = new Map<number, number>();
  for (let start = 0; start < n; start++) {
    if (seen[start]) continue;
    const k = key[start]!;
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    seen[start] = 1;
    while (head < tail) {
      const p = queue[head++]!;
      const x = p % width;
      if (x > 0 && !seen[p - 1] && key[p - 1] === k) {
        seen[p - 1] = 1;
        queue[tail++] = p - 1;
      }
      if (x < width - 1 && !seen[p + 1] && key[p + 1] === k) {
        seen[p + 1] = 1;
        queue[tail++] = p + 1;
      }
      if (p >= width && !seen[p - width] && key[p - width] === k) {
        seen[p - width] = 1;
        queue[tail++] = p - width;
      }
      if (p + width < n && !seen[p + width] && key[p + width] === k) {
        seen[p + width] = 1;
        queue[tail++] = p + width;
      }
    }
    if (tail >= minArea) continue;
    // A speckle: the colour it borders most.
    votes.clear();
    for (let m = 0; m < tail; m++) {
      const p = queue[m]!;
      const x = p % width;
      if (x > 0 && key[p - 1] !== k) votes.set(key[p - 1]!, (votes.get(key[p - 1]!) ?? 0) + 1);
      if (x < width - 1 && key[p + 1] !== k) votes.set(key[p + 1]!, (votes.get(key[p + 1]!) ?? 0) + 1);
      if (p >= width && key[p - width] !== k)
        votes.set(key[p - width]!, (votes.get(key[p - width]!) ?? 0) + 1);
      if (p + width < n && key[p + width] !== k)
        votes.set(key[p + width]!, (votes.get(key[p + width]!) ?? 0) + 1);
    }
    let best = k;
    let most = 0;
    for (const [c, v] of votes) if (v > most) [best, most] = [c, v];
    if (best === k) continue;
    for (let m = 0; m < tail; m++) {
      const p = queue[m]!;
      key[p] = best;
      rgb[p * 3] = (best >> 16) & 255;
      rgb[p * 3 + 1] = (best >> 8) & 255;
      rgb[p * 3 + 2] = best & 255;
    }
  }
}

/** The ink mask: region borders with a clear lightness step, and long strong edges; ~3 px wide. */
async function outlines(
  cel: Buffer,
  smooth: Buffer,
  width: number,
  height: number,
  face: { quiet: Uint8Array | null; features: Uint8Array; faces: Face[] },
): Promise<Buffer> {
  const { quiet, features, faces } = face;
  const n = width * height;
  const mask = new Uint8Array(n);
  for (let y = 0; y < height - 1; y++) {
    for (let x = 0; x < width - 1; x++) {
      const i = y * width + x;
      const l = luma(cel, i);
      if (
        Math.abs(l - luma(cel, i + 1)) >= OUTLINE_STEP ||
        Math.abs(l - luma(cel, i + width)) >= OUTLINE_STEP
      )
        mask[i] = 1;
    }
  }
  const gray = new Uint8Array(n);
  for (let i = 0; i < n; i++) gray[i] = luma(smooth, i);
  const { mag } = sobel(gray, width, height);
  const sorted = Float32Array.from(mag).sort();
  const strong = Math.max(60, sorted[Math.floor(sorted.length * 0.93)]!);
  for (let i = 0; i < n; i++) if (mag[i]! >= strong) mask[i] = 1;
  // The eyes, brows, nose and mouth are drawn on purpose, even on a faded print: their own
  // strongest edges (the top fifth inside the features) are inked too.
  const inFeatures: number[] = [];
  for (let i = 0; i < n; i++) if (features[i]) inFeatures.push(mag[i]!);
  if (inFeatures.length) {
    inFeatures.sort((a, b) => a - b);
    const featureStrong = Math.max(30, Math.min(strong, inFeatures[Math.floor(inFeatures.length * 0.8)]!));
    for (let i = 0; i < n; i++) if (features[i] && mag[i]! >= featureStrong) mask[i] = 1;
  }
  if (quiet) for (let i = 0; i < n; i++) if (quiet[i]) mask[i] = 0;
  for (const f of faces) dropStrayRings(mask, width, height, f);
  const side = Math.max(width, height);
  dropShortStrokes(mask, width, height, Math.max(12, Math.round(side / 40)), Math.round(side / 45), features);
  const lines = Buffer.from(mask.map((v) => (v ? 255 : 0)));
  // sharp's morphology treats dark as foreground: erode() grows these white line pixels.
  return sharp(lines, { raw: { width, height, channels: 1 } })
    .erode(1)
    .blur(0.8)
    .threshold(110)
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
}

/**
 * A closed ring of ink inside a face that is not an eye or the mouth (a watermark's "O", a
 * reflection on glasses) reads as a blotch: every hole in the ink (a region of no ink that the
 * ink closes, under an eighth of the face's width across) whose centre is inside the
 * face oval but not on an eye, a nostril or the mouth loses the ink around it.
 */
function dropStrayRings(mask: Uint8Array, width: number, height: number, face: Face): void {
  if (face.mesh.length < 468) return;
  const { oval, fw } = headGeometry(face);
  const inOval = polygonMask(oval, width, height);
  const [eyeR, eyeL, , , , mouth] = featureBoxes(face, 0.01);
  // The nostrils: around the nose's tip and wings (not its bridge, where glasses' reflections sit).
  const nx = [1, 2, 98, 327].map((i) => face.mesh[i]![0]);
  const ny = [1, 2, 98, 327].map((i) => face.mesh[i]![1]);
  const pad = fw * 0.03;
  const nostrils: [number, number, number, number] = [
    Math.min(...nx) - pad,
    Math.min(...ny) - pad,
    Math.max(...nx) - Math.min(...nx) + 2 * pad,
    Math.max(...ny) - Math.min(...ny) + 2 * pad,
  ];
  const tight = [eyeR!, eyeL!, mouth!, nostrils];
  const x0 = Math.max(0, Math.floor(Math.min(...oval.map((p) => p[0]))) - 2);
  const x1 = Math.min(width - 1, Math.ceil(Math.max(...oval.map((p) => p[0]))) + 2);
  const y0 = Math.max(0, Math.floor(Math.min(...oval.map((p) => p[1]))) - 2);
  const y1 = Math.min(height - 1, Math.ceil(Math.max(...oval.map((p) => p[1]))) + 2);
  const maxHole = (fw * 0.12) ** 2;
  const seen = new Uint8Array(width * height);
  const queue: number[] = [];
  for (let sy = y0; sy <= y1; sy++)
    for (let sx = x0; sx <= x1; sx++) {
      const start = sy * width + sx;
      if (mask[start] || seen[start]) continue;
      // One region of no ink (4-connected), within the oval's box: a hole if it never reaches the box's edge.
      queue.length = 0;
      queue.push(start);
      seen[start] = 1;
      let open = false;
      let sumX = 0;
      let sumY = 0;
      for (let h = 0; h < queue.length; h++) {
        const p = queue[h]!;
        const x = p % width;
        const y = (p - x) / width;
        sumX += x;
        sumY += y;
        if (x === x0 || x === x1 || y === y0 || y === y1) open = true;
        for (const q of [
          x > x0 ? p - 1 : -1,
          x < x1 ? p + 1 : -1,
          y > y0 ? p - width : -1,
          y < y1 ? p + width : -1,
        ])
          if (q >= 0 && !mask[q] && !seen[q]) {
            seen[q] = 1;
            queue.push(q);
          }
      }
      if (open || queue.length > maxHole) continue;
      const cx = sumX / queue.length;
      const cy = sumY / queue.length;
      if (!inOval[Math.round(cy) * width + Math.round(cx)]) continue;
      if (tight.some(([bx, by, bw, bh]) => cx >= bx && cx <= bx + bw && cy >= by && cy <= by + bh)) continue;
      // The ring: ink within a stroke's reach of the hole.
      const reach = Math.max(2, Math.round(Math.sqrt(queue.length) * 0.3));
      for (const p of queue) {
        const x = p % width;
        const y = (p - x) / width;
        for (let yy = Math.max(0, y - reach); yy <= Math.min(height - 1, y + reach); yy++)
          for (let xx = Math.max(0, x - reach); xx <= Math.min(width - 1, x + reach); xx++)
            mask[yy * width + xx] = 0;
      }
    }
}

/**
 * Removes line fragments (8-connected) with fewer than `minLength` pixels, and small closed
 * shapes (both sides of the box under `minExtent`: a dust speck, a stray ring) outside `keep`
 * (the face features): no ink speckle, no ink dots.
 */
function dropShortStrokes(
  mask: Uint8Array,
  width: number,
  height: number,
  minLength: number,
  minExtent: number,
  keep: Uint8Array,
): void {
  const n = width * height;
  const seen = new Uint8Array(n);
  const queue = new Int32Array(n);
  for (let start = 0; start < n; start++) {
    if (!mask[start] || seen[start]) continue;
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    seen[start] = 1;
    let x0 = width;
    let x1 = 0;
    let y0 = height;
    let y1 = 0;
    let kept = false;
    while (head < tail) {
      const p = queue[head++]!;
      const x = p % width;
      const y = (p - x) / width;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (keep[p]) kept = true;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= width) continue;
          const q = yy * width + xx;
          if (mask[q] && !seen[q]) {
            seen[q] = 1;
            queue[tail++] = q;
          }
        }
      }
    }
    const dot = !kept && x1 - x0 < minExtent && y1 - y0 < minExtent;
    if (tail < minLength || dot) for (let m = 0; m < tail; m++) mask[queue[m]!] = 0;
  }
}
