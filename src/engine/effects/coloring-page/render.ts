import sharp from "sharp";
import { decodeRaw, firstImage, type EffectOutput } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";

/**
 * Coloring page for children aged 6-9: the photo simplified into a few large regions, their
 * boundaries drawn as bold closed black outlines on pure white (no shading), laid out on a
 * US Letter portrait page at 150 dpi (1275 x 1650, the 8.5 x 11 inch ratio), with a small
 * full-colour reference of the original in the bottom-right corner.
 */
export const PAGE = { width: 1275, height: 1650, dpi: 150 } as const;
export const MARGIN = 75;
/** The colour reference: at most this big, in the bottom-right corner inside the margin. */
export const REFERENCE = { maxWidth: 300, maxHeight: 240, gap: 20 } as const;
/** Regions: few, so each is big enough for a child to colour. */
const REGIONS = 8;
const SIMPLIFY_SIDE = 240;

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const bytes = firstImage(req);
  const src = await decodeRaw(bytes, { channels: 3, flatten: true, maxSide: 1600 });

  // The drawing area: the page inside the margins, above the reference strip.
  const boxW = PAGE.width - 2 * MARGIN;
  const boxH = PAGE.height - 2 * MARGIN - REFERENCE.maxHeight - REFERENCE.gap;
  const fit = Math.min(boxW / src.width, boxH / src.height);
  const drawW = Math.round(src.width * fit);
  const drawH = Math.round(src.height * fit);

  // 1. Simplify: a small, heavily smoothed copy quantized to a few flat regions.
  const small = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .resize(SIMPLIFY_SIDE, SIMPLIFY_SIDE, { fit: "inside" })
    .median(5)
    .median(5)
    .blur(1.2)
    .png({ palette: true, colours: REGIONS, dither: 0, effort: 10 })
    .toBuffer();
  const smallRaw = await sharp(small).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const sw = smallRaw.info.width;
  const sh = smallRaw.info.height;
  const regionMap = simplifyRegions(toLabels(smallRaw.data, sw * sh), sw, sh);
  // Region labels at drawing size (nearest neighbour keeps the labels crisp).
  const labels = await sharp(Buffer.from(regionMap), { raw: { width: sw, height: sh, channels: 1 } })
    .resize(drawW, drawH, { kernel: "nearest", fit: "fill" })
    .raw()
    .toBuffer();

  // 2. Outlines: every boundary between two regions, so each region is closed by a line.
  const line = Buffer.alloc(drawW * drawH);
  const same = (a: number, b: number) =>
    labels[a * 3] === labels[b * 3] &&
    labels[a * 3 + 1] === labels[b * 3 + 1] &&
    labels[a * 3 + 2] === labels[b * 3 + 2];
  for (let y = 0; y < drawH; y++) {
    for (let x = 0; x < drawW; x++) {
      const i = y * drawW + x;
      if ((x + 1 < drawW && !same(i, i + 1)) || (y + 1 < drawH && !same(i, i + drawW))) line[i] = 255;
    }
  }
  // Bold, smooth strokes: thicken, round off the stair-steps, then back to pure black/white.
  const strokes = await sharp(line, { raw: { width: drawW, height: drawH, channels: 1 } })
    // sharp's morphology treats dark as foreground: erode() grows these white line pixels.
    .erode(2)
    .blur(1.5)
    .threshold(100)
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  const drawing = Buffer.alloc(drawW * drawH);
  for (let i = 0; i < drawing.length; i++) drawing[i] = strokes[i]! > 127 ? 0 : 255;
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
        left: MARGIN + Math.round((boxW - drawW) / 2),
        top: MARGIN + Math.round((boxH - drawH) / 2),
      },
      { input: reference, left: PAGE.width - MARGIN - refW - 6, top: PAGE.height - MARGIN - refH - 6 },
    ])
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .withMetadata({ density: PAGE.dpi })
    .toBuffer();
  return { bytes: out, width: PAGE.width, height: PAGE.height };
}

/** Palette colours to small integer labels. */
function toLabels(rgb: Buffer, n: number): Uint8Array {
  const ids = new Map<number, number>();
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const key = (rgb[i * 3]! << 16) | (rgb[i * 3 + 1]! << 8) | rgb[i * 3 + 2]!;
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = ids.size));
    out[i] = id;
  }
  return out;
}

/**
 * Fewer, rounder regions: a 5x5 majority filter (three passes) smooths the boundaries, then
 * every connected region smaller than 1/150 of the picture joins the neighbour it touches most.
 */
function simplifyRegions(labels: Uint8Array, w: number, h: number): Uint8Array {
  let cur = labels;
  for (let pass = 0; pass < 3; pass++) {
    const next = new Uint8Array(cur.length);
    const counts = new Uint16Array(256);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        counts.fill(0);
        let best = cur[y * w + x]!;
        for (let dy = -2; dy <= 2; dy++) {
          const yy = Math.min(h - 1, Math.max(0, y + dy));
          for (let dx = -2; dx <= 2; dx++) {
            const l = cur[yy * w + Math.min(w - 1, Math.max(0, x + dx))]!;
            if (++counts[l]! > counts[best]!) best = l;
          }
        }
        next[y * w + x] = best;
      }
    }
    cur = next;
  }
  const minArea = Math.floor((w * h) / 150);
  for (let round = 0; round < 4; round++) {
    const comp = new Int32Array(w * h).fill(-1);
    let merged = false;
    for (let s = 0; s < w * h; s++) {
      if (comp[s] !== -1) continue;
      const members: number[] = [s];
      comp[s] = s;
      const border = new Map<number, number>();
      for (let k = 0; k < members.length; k++) {
        const i = members[k]!;
        const x = i % w;
        const y = (i - x) / w;
        for (const j of [
          x > 0 ? i - 1 : -1,
          x < w - 1 ? i + 1 : -1,
          y > 0 ? i - w : -1,
          y < h - 1 ? i + w : -1,
        ]) {
          if (j < 0) continue;
          if (cur[j] === cur[i]) {
            if (comp[j] === -1) {
              comp[j] = s;
              members.push(j);
            }
          } else border.set(cur[j]!, (border.get(cur[j]!) ?? 0) + 1);
        }
      }
      if (members.length < minArea && border.size > 0) {
        const into = [...border.entries()].sort((a, b) => b[1] - a[1])[0]![0];
        for (const i of members) cur[i] = into;
        merged = true;
      }
    }
    if (!merged) break;
  }
  return cur;
}
