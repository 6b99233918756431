import sharp from "sharp";
import { decodeRaw, firstImage, MAX_SIDE, type EffectOutput } from "../../local/image-io";
import type { RenderRequest } from "../../types";

/**
 * Image Outpainting: extends the chosen edges by `amount` of the image's size with content
 * synthesised from the photo's own patches (block-by-block patch matching, as in image
 * quilting): each new block copies the source patch whose overlap best matches what is
 * already there, growing outward from the original. Synthesis runs on a small working
 * canvas; the result is upscaled and the original pixels are pasted back untouched.
 */
type Edge = "top" | "bottom" | "left" | "right";
const WORK_LONG = 420;
const BLOCK = 14;
const OVERLAP = 5;
const CANDIDATES = 220;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function extension(width: number, height: number, edges: Edge[], amount: number) {
  return {
    top: edges.includes("top") ? Math.round(height * amount) : 0,
    bottom: edges.includes("bottom") ? Math.round(height * amount) : 0,
    left: edges.includes("left") ? Math.round(width * amount) : 0,
    right: edges.includes("right") ? Math.round(width * amount) : 0,
  };
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const edges = (req.options.edges as Edge[] | undefined) ?? ["top", "bottom", "left", "right"];
  const amount = typeof req.options.amount === "number" ? req.options.amount : 0.25;
  let src = await decodeRaw(firstImage(req), { channels: 3, flatten: true });
  // Keep the whole result within MAX_SIDE: shrink the input first if the canvas would exceed it.
  const grow = (e: ReturnType<typeof extension>) => ({
    w: src.width + e.left + e.right,
    h: src.height + e.top + e.bottom,
  });
  let ext = extension(src.width, src.height, edges, amount);
  const fit = Math.min(1, MAX_SIDE / Math.max(grow(ext).w, grow(ext).h));
  if (fit < 1) {
    const w = Math.round(src.width * fit);
    const h = Math.round(src.height * fit);
    const data = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
      .resize(w, h, { fit: "fill" })
      .raw()
      .toBuffer();
    src = { data, width: w, height: h, channels: 3 };
    ext = extension(w, h, edges, amount);
  }
  const { w: outW, h: outH } = grow(ext);

  // Working canvas.
  const s = Math.min(1, WORK_LONG / Math.max(outW, outH));
  const cw = Math.max(1, Math.round(outW * s));
  const ch = Math.max(1, Math.round(outH * s));
  const ox = Math.round(ext.left * s);
  const oy = Math.round(ext.top * s);
  const iw = Math.min(cw - ox, Math.max(BLOCK + 2, Math.round(src.width * s)));
  const ih = Math.min(ch - oy, Math.max(BLOCK + 2, Math.round(src.height * s)));
  const small = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .resize(iw, ih, { fit: "fill" })
    .raw()
    .toBuffer();
  const canvas = new Float32Array(cw * ch * 3);
  const known = new Uint8Array(cw * ch);
  for (let y = 0; y < ih; y++)
    for (let x = 0; x < iw; x++) {
      const d = ((y + oy) * cw + x + ox) * 3;
      const o = (y * iw + x) * 3;
      canvas[d] = small[o]!;
      canvas[d + 1] = small[o + 1]!;
      canvas[d + 2] = small[o + 2]!;
      known[(y + oy) * cw + x + ox] = 1;
    }

  // Blocks that contain unknown pixels, nearest to the original first.
  const step = BLOCK - OVERLAP;
  const blocks: Array<{ x: number; y: number; d: number }> = [];
  for (let by = -OVERLAP; by < ch; by += step)
    for (let bx = -OVERLAP; bx < cw; bx += step) {
      const x0 = Math.max(0, bx);
      const y0 = Math.max(0, by);
      const x1 = Math.min(cw, bx + BLOCK);
      const y1 = Math.min(ch, by + BLOCK);
      let unknown = false;
      for (let y = y0; y < y1 && !unknown; y++)
        for (let x = x0; x < x1; x++) if (!known[y * cw + x]) unknown = true;
      if (!unknown) continue;
      const cx = (x0 + x1) / 2;
      const cy = (y0 + y1) / 2;
      const dx = Math.max(ox - cx, 0, cx - (ox + iw));
      const dy = Math.max(oy - cy, 0, cy - (oy + ih));
      blocks.push({ x: bx, y: by, d: Math.hypot(dx, dy) });
    }
  blocks.sort((a, b) => a.d - b.d || a.y - b.y || a.x - b.x);

  const rand = mulberry32(req.seed);
  const filled = known.slice();
  for (const b of blocks) {
    // Candidate sources: random blocks of the original, biased towards the nearest edge band.
    let best = { cost: Infinity, sx: 0, sy: 0 };
    for (let k = 0; k < CANDIDATES; k++) {
      const sx = ox + Math.floor(rand() * (iw - BLOCK));
      const sy = oy + Math.floor(rand() * (ih - BLOCK));
      let cost = 0;
      let count = 0;
      for (let y = 0; y < BLOCK; y++) {
        const ty = b.y + y;
        if (ty < 0 || ty >= ch) continue;
        for (let x = 0; x < BLOCK; x++) {
          const tx = b.x + x;
          if (tx < 0 || tx >= cw || !filled[ty * cw + tx]) continue;
          const t = (ty * cw + tx) * 3;
          const o = ((sy + y) * cw + sx + x) * 3;
          const dr = canvas[t]! - canvas[o]!;
          const dg = canvas[t + 1]! - canvas[o + 1]!;
          const db = canvas[t + 2]! - canvas[o + 2]!;
          cost += dr * dr + dg * dg + db * db;
          count++;
        }
      }
      // A little randomness in the cost keeps the synthesis from repeating one patch.
      const c = (count ? cost / count : 0) * (1 + 0.15 * rand());
      if (c < best.cost) best = { cost: c, sx, sy };
    }
    for (let y = 0; y < BLOCK; y++) {
      const ty = b.y + y;
      if (ty < 0 || ty >= ch) continue;
      for (let x = 0; x < BLOCK; x++) {
        const tx = b.x + x;
        if (tx < 0 || tx >= cw || known[ty * cw + tx]) continue;
        const t = (ty * cw + tx) * 3;
        const o = ((best.sy + y) * cw + best.sx + x) * 3;
        // Feather the overlap with earlier blocks; fresh pixels take the patch as it is.
        const a = filled[ty * cw + tx] ? 0.5 : 1;
        for (let c = 0; c < 3; c++) canvas[t + c] = canvas[t + c]! * (1 - a) + canvas[o + c]! * a;
        filled[ty * cw + tx] = 1;
      }
    }
  }

  // Upscale the synthesised canvas, then paste the original back pixel for pixel.
  const work = Buffer.alloc(cw * ch * 3);
  for (let i = 0; i < work.length; i++) work[i] = Math.max(0, Math.min(255, Math.round(canvas[i]!)));
  const background = await sharp(work, { raw: { width: cw, height: ch, channels: 3 } })
    .resize(outW, outH, { fit: "fill", kernel: "lanczos3" })
    .png()
    .toBuffer();
  const original = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .png()
    .toBuffer();
  const bytes = await sharp(background)
    .composite([{ input: original, left: ext.left, top: ext.top }])
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .toBuffer();
  return { bytes, width: outW, height: outH };
}
