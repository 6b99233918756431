import sharp from "sharp";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { OUTPAINT_AMOUNT, OUTPAINT_MAX_SIDE, outpaintSize } from "@/core/catalogue-constants";
import { decodeRaw, encodePng, firstImage, type EffectOutput } from "../../shared/image-io";
import { uniform } from "../../shared/random";
import { HARD, protectedMap } from "./protect";

/**
 * Image Outpainting: extends the chosen edges with content synthesised from the photo's own
 * patches. Image quilting (Efros & Freeman) runs on a coarse canvas (long side about 256 px):
 * blocks grow outward from the photo, each one copied from the nearby border region where its
 * overlap with what is already there matches best, joined along a minimum-error cut. Every
 * coarse pixel remembers where in the photo it came from; the full-resolution result copies
 * full-resolution pixels through that offset map (bilinear blend of the neighbouring offsets
 * at seams), so the new area has real photographic detail, not an upscaled blur. A smooth
 * colour correction along the photo's border hides the join. The photo's pixels stay as they were.
 */

export type Edge = "top" | "bottom" | "left" | "right";
const ALL_EDGES: readonly Edge[] = ["top", "bottom", "left", "right"];

/** Long side of the coarse synthesis canvas (the whole output, at coarse scale). */
const COARSE_LONG = 256;
/** Quilting block and overlap, in coarse pixels. */
const BLOCK = 16;
const OVERLAP = 5;
/** Candidates within this factor of the best overlap error are equally good (seeded pick). */
const TOLERANCE = 0.12;
/** Cost per pixel for a source taken from elsewhere along the edge (fraction of the edge, squared). */
const POSITION_WEIGHT = 2500;

/** Pixels added on each edge: `amount` of the photo's width (left/right) or height (top/bottom). */
export function extension(width: number, height: number, edges: readonly Edge[], amount: number) {
  return {
    top: edges.includes("top") ? Math.round(height * amount) : 0,
    bottom: edges.includes("bottom") ? Math.round(height * amount) : 0,
    left: edges.includes("left") ? Math.round(width * amount) : 0,
    right: edges.includes("right") ? Math.round(width * amount) : 0,
  };
}
type Extension = ReturnType<typeof extension>;

function parseOptions(options: Record<string, unknown>): { edges: Edge[]; amount: number } {
  const raw = Array.isArray(options.edges) ? options.edges : ALL_EDGES;
  const edges = ALL_EDGES.filter((e) => raw.includes(e));
  if (edges.length === 0) throw new EngineError("Choose at least one edge to extend.");
  const amount =
    typeof options.amount === "number" && Number.isFinite(options.amount) ? options.amount : OUTPAINT_AMOUNT;
  if (amount <= 0 || amount > 1) throw new EngineError("The extension amount must be between 5 % and 100 %.");
  return { edges, amount };
}

/** The coarse canvas: colours, where each pixel came from (coarse photo coordinates), and state. */
interface Canvas {
  w: number;
  h: number;
  rgb: Float32Array;
  srcX: Int32Array;
  srcY: Int32Array;
  /** 2 = photo, 1 = synthesised, 0 = not yet. */
  state: Uint8Array;
  /** What may be copied from each pixel (protect.ts: 0 free, SOFT near its border, HARD never). */
  guard: Uint8Array;
}

/**
 * A view of part of the canvas in which the area to fill lies to the right of the known area:
 * `index[cy * w + cx]` is the canvas pixel. Flips and transposes turn every edge into this case.
 */
interface View {
  w: number;
  h: number;
  /** Columns [0, known) are filled when the pass starts. */
  known: number;
  index: Int32Array;
}

function makeView(
  c: Canvas,
  edge: Edge,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  known: number,
): View {
  const horizontal = edge === "left" || edge === "right";
  const w = horizontal ? x1 - x0 : y1 - y0;
  const h = horizontal ? y1 - y0 : x1 - x0;
  const index = new Int32Array(w * h);
  for (let cy = 0; cy < h; cy++) {
    for (let cx = 0; cx < w; cx++) {
      let x: number;
      let y: number;
      if (edge === "right") [x, y] = [x0 + cx, y0 + cy];
      else if (edge === "left") [x, y] = [x1 - 1 - cx, y0 + cy];
      else if (edge === "bottom") [x, y] = [x0 + cy, y0 + cx];
      else [x, y] = [x0 + cy, y1 - 1 - cx];
      index[cy * w + cx] = y * c.w + x;
    }
  }
  return { w, h, known, index };
}

/** Minimum-error path through an error map of `len` steps by `width` choices (dynamic programming). */
function minCut(err: Float32Array, len: number, width: number): Int32Array {
  const acc = Float32Array.from(err);
  for (let i = 1; i < len; i++) {
    for (let j = 0; j < width; j++) {
      let m = acc[(i - 1) * width + j]!;
      if (j > 0) m = Math.min(m, acc[(i - 1) * width + j - 1]!);
      if (j < width - 1) m = Math.min(m, acc[(i - 1) * width + j + 1]!);
      acc[i * width + j] = acc[i * width + j]! + m;
    }
  }
  const path = new Int32Array(len);
  let best = 0;
  for (let j = 1; j < width; j++) if (acc[(len - 1) * width + j]! < acc[(len - 1) * width + best]!) best = j;
  path[len - 1] = best;
  for (let i = len - 2; i >= 0; i--) {
    const prev = path[i + 1]!;
    let b = prev;
    for (const j of [prev - 1, prev + 1]) {
      if (j >= 0 && j < width && acc[i * width + j]! < acc[i * width + b]!) b = j;
    }
    path[i] = b;
  }
  return path;
}

/** Fills the view's unknown columns by image quilting. */
function quilt(c: Canvas, view: View, block: number, overlap: number, rand: () => number): void {
  const { w, h, known, index } = view;
  if (known >= w) return;
  const B = Math.min(block, h, known);
  const O = Math.min(overlap, B >> 1);
  const step = B - O;
  // A canonical copy of the colours, so the inner loops index linearly.
  const cv = new Float32Array(w * h * 3);
  const filled = new Uint8Array(w * h);
  // Summed-area tables of the guard levels: how much of a block is subject (any) or head/object.
  const W1 = w + 1;
  const anyGuard = new Int32Array(W1 * (h + 1));
  const hardGuard = new Int32Array(W1 * (h + 1));
  for (let i = 0; i < w * h; i++) {
    const g = index[i]!;
    cv[i * 3] = c.rgb[g * 3]!;
    cv[i * 3 + 1] = c.rgb[g * 3 + 1]!;
    cv[i * 3 + 2] = c.rgb[g * 3 + 2]!;
    filled[i] = c.state[g]! > 0 ? 1 : 0;
  }
  for (let y = 0; y < h; y++) {
    let rowAny = 0;
    let rowHard = 0;
    for (let x = 0; x < w; x++) {
      const v = c.guard[index[y * w + x]!]!;
      if (v) rowAny++;
      if (v >= HARD) rowHard++;
      anyGuard[(y + 1) * W1 + x + 1] = anyGuard[y * W1 + x + 1]! + rowAny;
      hardGuard[(y + 1) * W1 + x + 1] = hardGuard[y * W1 + x + 1]! + rowHard;
    }
  }
  const rectSum = (t: Int32Array, x: number, y: number, rw: number, rh: number) =>
    t[(y + rh) * W1 + x + rw]! - t[y * W1 + x + rw]! - t[(y + rh) * W1 + x]! + t[y * W1 + x]!;
  const boxSum = (t: Int32Array, x: number, y: number) => rectSum(t, x, y, B, B);
  /**
   * Whether the block at (sx, sy) may be copied at this strictness: 0 = background, or a
   * person's part right at the border it continues; 1 = anything but heads and objects; 2 = any.
   */
  const nearBorder = known - 3 * B;
  // Whether the subject reaches the border beside the block being filled (then its part next
  // to the border may continue outward: a shirt cut by the frame goes on, hair above a head
  // that does not touch the frame does not).
  let touches = false;
  const allowed = (sx: number, sy: number, level: number) => {
    if (level >= 2) return true;
    if (boxSum(hardGuard, sx, sy) > 0) return false;
    return level >= 1 || (touches && sx >= nearBorder) || boxSum(anyGuard, sx, sy) === 0;
  };
  const fresh = new Uint8Array(w * h); // synthesised in this pass (may be re-cut by later blocks)
  const from = new Int32Array(w * h).fill(-1); // canonical source pixel of each synthesised pixel

  // Sources: whole blocks inside the known area, within a band next to the edge.
  const band = Math.min(known, Math.max(Math.round(known * 0.5), 3 * B));
  const sx0 = known - band;
  const sx1 = known - B;

  const xs: number[] = [];
  for (let bx = known - O; ; bx += step) {
    const x = Math.min(bx, w - B);
    xs.push(x);
    if (x + B >= w) break;
  }
  const ys: number[] = [];
  for (let by = 0; ; by += step) {
    const y = Math.min(by, h - B);
    ys.push(Math.max(0, y));
    if (y + B >= h) break;
  }

  const ovIdx = new Int32Array(B * B); // canonical offsets (dy * w + dx) of already filled pixels
  const costs: number[] = [];
  const cands: number[] = [];
  const err = new Float32Array(B * B);
  for (const bx of xs) {
    for (const by of ys) {
      let nOv = 0;
      for (let dy = 0; dy < B; dy++) {
        for (let dx = 0; dx < B; dx++) if (filled[(by + dy) * w + bx + dx]) ovIdx[nOv++] = dy * w + dx;
      }
      if (nOv === B * B) continue;
      const base = by * w + bx;
      costs.length = 0;
      cands.length = 0;
      let best = Infinity;
      let level = 0;
      touches = rectSum(anyGuard, known - 1, by, 1, B) > 0;
      const consider = (sx: number, sy: number) => {
        if (!allowed(sx, sy, level)) return;
        const dyRel = (sy - by) / h;
        const prior = POSITION_WEIGHT * dyRel * dyRel * nOv;
        let limit = (best * (1 + TOLERANCE) - prior) * 3;
        if (nOv === 0) limit = Infinity;
        const sBase = sy * w + sx;
        let ssd = 0;
        for (let k = 0; k < nOv && ssd <= limit; k++) {
          const d = (base + ovIdx[k]!) * 3;
          const s = (sBase + ovIdx[k]!) * 3;
          const r = cv[d]! - cv[s]!;
          const g = cv[d + 1]! - cv[s + 1]!;
          const b = cv[d + 2]! - cv[s + 2]!;
          ssd += r * r + g * g + b * b;
        }
        if (ssd > limit) return;
        const cost = ssd / 3 + prior;
        if (cost < best) best = cost;
        costs.push(cost);
        cands.push(sy * w + sx);
      };
      // Coherent candidates first (the sources that continue the neighbouring blocks): a good
      // early best lets the search below stop most sums early.
      for (const nb of [base - step, base - step * w]) {
        if (nb < 0 || from[nb]! < 0) continue;
        const s = from[nb]! + (base - nb);
        const sx = s % w;
        const sy = (s - sx) / w;
        if (sx >= sx0 && sx <= sx1 && sy >= 0 && sy <= h - B) consider(sx, sy);
      }
      // Coarse search on a 3-pixel lattice, rows limited to a window around the block's own;
      // where the subject fills that window, all rows, and only then the subject itself.
      const win = Math.max(2 * B, Math.round(h * 0.25));
      const passes = [
        [0, false],
        [0, true],
        [1, true],
        [2, true],
      ] as const;
      for (const [pass, [lv, wide]] of passes.entries()) {
        if (pass > 0 && cands.length) break;
        level = lv;
        const syLo = wide ? 0 : Math.max(0, by - win);
        const syHi = wide ? h - B : Math.min(h - B, by + win);
        for (let sy = syLo; sy <= syHi; sy += 3) for (let sx = sx0; sx <= sx1; sx += 3) consider(sx, sy);
      }
      // Refine around the best lattice points.
      const top = cands
        .map((p, k) => ({ p, cost: costs[k]! }))
        .sort((a, b) => a.cost - b.cost || a.p - b.p)
        .slice(0, 6);
      for (const { p } of top) {
        const px = p % w;
        const py = (p - px) / w;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const sx = px + dx;
            const sy = py + dy;
            if ((dx || dy) && sx >= sx0 && sx <= sx1 && sy >= 0 && sy <= h - B) consider(sx, sy);
          }
        }
      }
      const good: number[] = [];
      for (let k = 0; k < cands.length; k++) if (costs[k]! <= best * (1 + TOLERANCE)) good.push(cands[k]!);
      // Sorted so the pick does not depend on the order candidates were met in.
      good.sort((a, b) => a - b);
      const pick = good[Math.min(good.length - 1, Math.floor(rand() * good.length))]!;

      // Minimum-error cuts through overlaps with earlier synthesised blocks.
      const sBase = pick;
      for (let k = 0; k < B * B; k++) {
        const dx = k % B;
        const dy = (k - dx) / B;
        const d = (base + dy * w + dx) * 3;
        const s = (sBase + dy * w + dx) * 3;
        const r = cv[d]! - cv[s]!;
        const g = cv[d + 1]! - cv[s + 1]!;
        const b = cv[d + 2]! - cv[s + 2]!;
        err[k] = r * r + g * g + b * b;
      }
      // Width of the synthesised overlap on the left (previous column of blocks) and on top.
      let ovL = 0;
      while (ovL < B && fresh[(by + (B >> 1)) * w + bx + ovL]) ovL++;
      let ovT = 0;
      while (ovT < B && fresh[(by + ovT) * w + bx + B - 1]) ovT++;
      const cutV = new Int32Array(B); // per row: first column taking the new block
      if (ovL > 1) {
        const e = new Float32Array(B * ovL);
        for (let dy = 0; dy < B; dy++) for (let dx = 0; dx < ovL; dx++) e[dy * ovL + dx] = err[dy * B + dx]!;
        cutV.set(minCut(e, B, ovL));
      }
      const cutH = new Int32Array(B); // per column: first row taking the new block
      if (ovT > 1) {
        const e = new Float32Array(B * ovT);
        for (let dx = 0; dx < B; dx++) for (let dy = 0; dy < ovT; dy++) e[dx * ovT + dy] = err[dy * B + dx]!;
        cutH.set(minCut(e, B, ovT));
      }
      for (let dy = 0; dy < B; dy++) {
        for (let dx = 0; dx < B; dx++) {
          const t = base + dy * w + dx;
          if (filled[t] && !fresh[t]) continue; // photo (or an earlier pass): never overwritten
          if (filled[t] && (dx < cutV[dy]! || dy < cutH[dx]!)) continue;
          const s = sBase + dy * w + dx;
          cv[t * 3] = cv[s * 3]!;
          cv[t * 3 + 1] = cv[s * 3 + 1]!;
          cv[t * 3 + 2] = cv[s * 3 + 2]!;
          from[t] = s;
          filled[t] = 1;
          fresh[t] = 1;
        }
      }
    }
  }
  // Write the new pixels back, with where each came from in the photo.
  for (let i = 0; i < w * h; i++) {
    if (!fresh[i]) continue;
    const g = index[i]!;
    const s = index[from[i]!]!;
    c.rgb[g * 3] = cv[i * 3]!;
    c.rgb[g * 3 + 1] = cv[i * 3 + 1]!;
    c.rgb[g * 3 + 2] = cv[i * 3 + 2]!;
    c.srcX[g] = c.srcX[s]!;
    c.srcY[g] = c.srcY[s]!;
    c.state[g] = 1;
    c.guard[g] = c.guard[s]!;
  }
}

/** Output size for a photo of width x height with the chosen edges. */
function outputSize(width: number, height: number, ext: Extension) {
  return { w: width + ext.left + ext.right, h: height + ext.top + ext.bottom };
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { edges, amount } = parseOptions(req.options);
  let src = await decodeRaw(firstImage(req), { channels: 3, flatten: true, maxSide: OUTPAINT_MAX_SIDE });

  // Keep the photo's resolution while the result fits OUTPAINT_MAX_SIDE; past it, scale the
  // photo so the whole result does (the effect page shows the size before Create).
  const fit = outpaintSize(src.width, src.height, edges, amount);
  if (fit.scaled) {
    const data = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
      .resize(fit.photoWidth, fit.photoHeight, { fit: "fill" })
      .raw()
      .toBuffer();
    src = { data, width: fit.photoWidth, height: fit.photoHeight, channels: 3 };
  }
  const ext = extension(src.width, src.height, edges, amount);
  const size = outputSize(src.width, src.height, ext);
  const W = src.width;
  const H = src.height;
  if (Math.min(W, H) < 16) throw new EngineError("The image is too small to extend.");

  // Coarse canvas: the photo shrunk by f (at least 1), the new edges in proportion.
  const f = Math.max(1, Math.max(size.w, size.h) / COARSE_LONG);
  const cw0 = Math.max(8, Math.round(W / f));
  const ch0 = Math.max(8, Math.round(H / f));
  const fx = W / cw0;
  const fy = H / ch0;
  const cL = Math.ceil(ext.left / fx);
  const cR = Math.ceil(ext.right / fx);
  const cT = Math.ceil(ext.top / fy);
  const cB = Math.ceil(ext.bottom / fy);
  const cw = cL + cw0 + cR;
  const ch = cT + ch0 + cB;
  const coarse =
    fx === 1 && fy === 1
      ? src.data
      : await sharp(src.data, { raw: { width: W, height: H, channels: 3 } })
          .resize(cw0, ch0, { fit: "fill" })
          .raw()
          .toBuffer();
  const c: Canvas = {
    w: cw,
    h: ch,
    rgb: new Float32Array(cw * ch * 3),
    srcX: new Int32Array(cw * ch),
    srcY: new Int32Array(cw * ch),
    state: new Uint8Array(cw * ch),
    guard: new Uint8Array(cw * ch),
  };
  const guard = await protectedMap(src, cw0, ch0);
  for (let y = 0; y < ch0; y++) {
    for (let x = 0; x < cw0; x++) {
      const g = (y + cT) * cw + x + cL;
      const o = (y * cw0 + x) * 3;
      c.rgb[g * 3] = coarse[o]!;
      c.rgb[g * 3 + 1] = coarse[o + 1]!;
      c.rgb[g * 3 + 2] = coarse[o + 2]!;
      c.srcX[g] = x;
      c.srcY[g] = y;
      c.state[g] = 2;
      c.guard[g] = guard[y * cw0 + x]!;
    }
  }

  // Sides first (over the photo's rows), then top and bottom across the whole width.
  const rand = uniform(req.seed);
  const block = Math.max(6, Math.min(BLOCK, Math.floor(Math.min(cw0, ch0) / 2)));
  const overlap = Math.max(2, Math.round((block * OVERLAP) / BLOCK));
  if (cL) quilt(c, makeView(c, "left", 0, cT, cL + cw0, cT + ch0, cw0), block, overlap, rand);
  if (cR) quilt(c, makeView(c, "right", cL, cT, cw, cT + ch0, cw0), block, overlap, rand);
  if (cT) quilt(c, makeView(c, "top", 0, 0, cw, cT + ch0, ch0), block, overlap, rand);
  if (cB) quilt(c, makeView(c, "bottom", 0, cT, cw, ch, ch0), block, overlap, rand);

  // Colour correction field on the coarse canvas (Poisson blending of the quilted blocks).
  const corr = poissonCorrection(c, coarse, cw0, ch0, cL, cT);

  // Full resolution: copy photo pixels through the coarse offset map; where neighbouring
  // coarse pixels disagree (block seams), blend their copies bilinearly; add the correction.
  const outW = size.w;
  const outH = size.h;
  const out = new Float32Array(outW * outH * 3);
  const isNew = new Uint8Array(outW * outH);
  const data = src.data;
  const n = cw * ch;
  const offX = new Int32Array(n);
  const offY = new Int32Array(n);
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      const g = y * cw + x;
      offX[g] = Math.round((c.srcX[g]! - (x - cL)) * fx);
      offY[g] = Math.round((c.srcY[g]! - (y - cT)) * fy);
    }
  }
  // Bilinear footprint of each output column and row on the coarse grid.
  const colI0 = new Int32Array(outW);
  const colI1 = new Int32Array(outW);
  const colA = new Float32Array(outW);
  for (let x = 0; x < outW; x++) {
    const u = (x - ext.left + 0.5) / fx + cL - 0.5;
    const i0 = Math.max(0, Math.min(cw - 1, Math.floor(u)));
    colI0[x] = i0;
    colI1[x] = Math.min(cw - 1, i0 + 1);
    colA[x] = Math.max(0, Math.min(1, u - i0));
  }
  const wq = new Float32Array(4);
  const gq = new Int32Array(4);
  for (let y = 0; y < outH; y++) {
    const py = y - ext.top;
    const v = (py + 0.5) / fy + cT - 0.5;
    const j0 = Math.max(0, Math.min(ch - 1, Math.floor(v)));
    const j1 = Math.min(ch - 1, j0 + 1);
    const b = Math.max(0, Math.min(1, v - j0));
    const inRows = py >= 0 && py < H;
    for (let x = 0; x < outW; x++) {
      const px = x - ext.left;
      const o = (y * outW + x) * 3;
      if (inRows && px >= 0 && px < W) {
        const s = (py * W + px) * 3;
        out[o] = data[s]!;
        out[o + 1] = data[s + 1]!;
        out[o + 2] = data[s + 2]!;
        continue;
      }
      isNew[y * outW + x] = 1;
      const a = colA[x]!;
      gq[0] = j0 * cw + colI0[x]!;
      gq[1] = j0 * cw + colI1[x]!;
      gq[2] = j1 * cw + colI0[x]!;
      gq[3] = j1 * cw + colI1[x]!;
      wq[0] = (1 - a) * (1 - b);
      wq[1] = a * (1 - b);
      wq[2] = (1 - a) * b;
      wq[3] = a * b;
      let r = 0;
      let g = 0;
      let bl = 0;
      let cr = 0;
      let cg = 0;
      let cb = 0;
      let wsum = 0;
      let lastOff = -1;
      let lastS = 0;
      for (let k = 0; k < 4; k++) {
        const gi = gq[k]!;
        const wgt = wq[k]!;
        cr += corr[gi * 3]! * wgt;
        cg += corr[gi * 3 + 1]! * wgt;
        cb += corr[gi * 3 + 2]! * wgt;
        if (wgt <= 0 || c.state[gi] !== 1) continue;
        const key = offY[gi]! * 65536 + offX[gi]!;
        let s = lastS;
        if (key !== lastOff) {
          const sx = Math.max(0, Math.min(W - 1, px + offX[gi]!));
          const sy = Math.max(0, Math.min(H - 1, py + offY[gi]!));
          s = (sy * W + sx) * 3;
          lastOff = key;
          lastS = s;
        }
        r += data[s]! * wgt;
        g += data[s + 1]! * wgt;
        bl += data[s + 2]! * wgt;
        wsum += wgt;
      }
      if (wsum === 0) {
        // Only reachable through rounding at the photo's border: the nearest photo pixel.
        const s = (Math.max(0, Math.min(H - 1, py)) * W + Math.max(0, Math.min(W - 1, px))) * 3;
        r = data[s]!;
        g = data[s + 1]!;
        bl = data[s + 2]!;
        wsum = 1;
      }
      out[o] = r / wsum + cr;
      out[o + 1] = g / wsum + cg;
      out[o + 2] = bl / wsum + cb;
    }
  }

  blendSeams(out, isNew, outW, outH, ext, W, H, Math.max(fx, fy));

  const bytes = Buffer.allocUnsafe(outW * outH * 3);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.max(0, Math.min(255, out[i]! + 0.5));
  return encodePng({ data: bytes, width: outW, height: outH, channels: 3 });
}

/**
 * A weighted graph Laplacian system: for every node k, sum over its edges of
 * w * (D_k - D_nb) = b_k (3 channels), where nb = -1 is a fixed zero (the photo). Nodes carry
 * grid positions so levels can be merged 2x2 into coarser ones (aggregation multigrid).
 */
interface Level {
  n: number;
  xs: Int32Array;
  ys: Int32Array;
  start: Int32Array;
  nb: Int32Array;
  w: Float32Array;
  /** Sum of each node's edge weights (the diagonal). */
  diag: Float32Array;
}

/** Merges nodes 2x2 by position; edges inside a merged node drop out, parallel edges add up. */
function coarsen(l: Level): { level: Level; parent: Int32Array } {
  const parent = new Int32Array(l.n);
  const ids = new Map<number, number>();
  const xs: number[] = [];
  const ys: number[] = [];
  for (let k = 0; k < l.n; k++) {
    const x = l.xs[k]! >> 1;
    const y = l.ys[k]! >> 1;
    const key = y * 65536 + x;
    let id = ids.get(key);
    if (id === undefined) {
      id = xs.length;
      ids.set(key, id);
      xs.push(x);
      ys.push(y);
    }
    parent[k] = id;
  }
  const n = xs.length;
  // Children of each parent (counting sort).
  const cStart = new Int32Array(n + 1);
  for (let k = 0; k < l.n; k++) cStart[parent[k]! + 1] = cStart[parent[k]! + 1]! + 1;
  for (let a = 0; a < n; a++) cStart[a + 1] = cStart[a + 1]! + cStart[a]!;
  const fill = cStart.slice(0, n);
  const children = new Int32Array(l.n);
  for (let k = 0; k < l.n; k++) children[fill[parent[k]!]!++] = k;

  const start = new Int32Array(n + 1);
  const nb: number[] = [];
  const w: number[] = [];
  for (let a = 0; a < n; a++) {
    const first = nb.length;
    for (let ci = cStart[a]!; ci < cStart[a + 1]!; ci++) {
      const k = children[ci]!;
      for (let e = l.start[k]!; e < l.start[k + 1]!; e++) {
        const t = l.nb[e]! < 0 ? -1 : parent[l.nb[e]!]!;
        if (t === a) continue;
        let j = first;
        while (j < nb.length && nb[j] !== t) j++;
        if (j === nb.length) {
          nb.push(t);
          w.push(0);
        }
        w[j] = w[j]! + l.w[e]!;
      }
    }
    start[a + 1] = nb.length;
  }
  return { level: makeLevel(n, Int32Array.from(xs), Int32Array.from(ys), start, nb, w), parent };
}

function makeLevel(
  n: number,
  xs: Int32Array,
  ys: Int32Array,
  start: Int32Array,
  nb: number[],
  w: number[],
): Level {
  const diag = new Float32Array(n);
  for (let k = 0; k < n; k++) for (let e = start[k]!; e < start[k + 1]!; e++) diag[k] = diag[k]! + w[e]!;
  return { n, xs, ys, start, nb: Int32Array.from(nb), w: Float32Array.from(w), diag };
}

/** Gauss-Seidel sweeps (over-relaxed by omega) on one level. */
function relax(l: Level, D: Float32Array, b: Float32Array, sweeps: number, omega: number): void {
  for (let it = 0; it < sweeps; it++) {
    for (let k = 0; k < l.n; k++) {
      const sw = l.diag[k]!;
      if (sw === 0) continue;
      let s0 = b[k * 3]!;
      let s1 = b[k * 3 + 1]!;
      let s2 = b[k * 3 + 2]!;
      for (let e = l.start[k]!; e < l.start[k + 1]!; e++) {
        const t = l.nb[e]!;
        if (t < 0) continue;
        const wt = l.w[e]!;
        s0 += wt * D[t * 3]!;
        s1 += wt * D[t * 3 + 1]!;
        s2 += wt * D[t * 3 + 2]!;
      }
      D[k * 3] = D[k * 3]! + omega * (s0 / sw - D[k * 3]!);
      D[k * 3 + 1] = D[k * 3 + 1]! + omega * (s1 / sw - D[k * 3 + 1]!);
      D[k * 3 + 2] = D[k * 3 + 2]! + omega * (s2 / sw - D[k * 3 + 2]!);
    }
  }
}

/**
 * One multigrid V-cycle on levels[li..]: smooth, restrict the residual to the merged level,
 * solve there for the correction (recursively), add it back (over-corrected, as aggregation
 * needs), smooth again.
 */
function vcycle(levels: Level[], parents: Int32Array[], li: number, D: Float32Array, b: Float32Array): void {
  const l = levels[li]!;
  if (li === levels.length - 1) {
    relax(l, D, b, 60, 1.5);
    return;
  }
  relax(l, D, b, 2, 1.3);
  const coarse = levels[li + 1]!;
  const parent = parents[li]!;
  const bc = new Float32Array(coarse.n * 3);
  for (let k = 0; k < l.n; k++) {
    // Residual b - A D at node k.
    let r0 = b[k * 3]! - l.diag[k]! * D[k * 3]!;
    let r1 = b[k * 3 + 1]! - l.diag[k]! * D[k * 3 + 1]!;
    let r2 = b[k * 3 + 2]! - l.diag[k]! * D[k * 3 + 2]!;
    for (let e = l.start[k]!; e < l.start[k + 1]!; e++) {
      const t = l.nb[e]!;
      if (t < 0) continue;
      const wt = l.w[e]!;
      r0 += wt * D[t * 3]!;
      r1 += wt * D[t * 3 + 1]!;
      r2 += wt * D[t * 3 + 2]!;
    }
    const a = parent[k]!;
    bc[a * 3] = bc[a * 3]! + r0;
    bc[a * 3 + 1] = bc[a * 3 + 1]! + r1;
    bc[a * 3 + 2] = bc[a * 3 + 2]! + r2;
  }
  const E = new Float32Array(coarse.n * 3);
  vcycle(levels, parents, li + 1, E, bc);
  const over = 1.6;
  for (let k = 0; k < l.n; k++) {
    const a = parent[k]!;
    D[k * 3] = D[k * 3]! + over * E[a * 3]!;
    D[k * 3 + 1] = D[k * 3 + 1]! + over * E[a * 3 + 1]!;
    D[k * 3 + 2] = D[k * 3 + 2]! + over * E[a * 3 + 2]!;
  }
  relax(l, D, b, 2, 1.3);
}

/**
 * An additive colour correction for the synthesised coarse pixels (zero on the photo): the
 * solution of a Poisson equation whose guidance is the gradient inside each copied block
 * (continued across its seams), with the photo as fixed boundary. Adding it removes the
 * brightness steps between blocks copied from differently lit places and matches the photo at
 * its border, while keeping every block's texture. Solved coarse-to-fine: the pixel graph is
 * merged 2x2 level by level, the coarsest level is solved, and each finer level starts from
 * the coarser solution and is relaxed a few sweeps.
 */
function poissonCorrection(
  c: Canvas,
  photo: Uint8Array,
  pw: number,
  ph: number,
  cL: number,
  cT: number,
): Float32Array {
  const { w, h } = c;
  const n = w * h;
  const corr = new Float32Array(n * 3);
  const node = new Int32Array(n).fill(-1);
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < n; i++) {
    if (c.state[i] !== 1) continue;
    node[i] = xs.length;
    xs.push(i % w);
    ys.push(Math.floor(i / w));
  }
  const m = xs.length;
  if (m === 0) return corr;
  const P = (x: number, y: number, ch: number) => photo[(y * pw + x) * 3 + ch]!;
  const inPhoto = (x: number, y: number) => x >= 0 && y >= 0 && x < pw && y < ph;
  const dirs = [
    [-1, 0],
    [1, 0],
    [0, -1],
    [0, 1],
  ] as const;
  const start = new Int32Array(m + 1);
  const nbs: number[] = [];
  const b = new Float32Array(m * 3);
  for (let k = 0; k < m; k++) {
    const x = xs[k]!;
    const y = ys[k]!;
    const i = y * w + x;
    const spx = c.srcX[i]!;
    const spy = c.srcY[i]!;
    for (const [dx, dy] of dirs) {
      const qx = x + dx;
      const qy = y + dy;
      if (qx < 0 || qy < 0 || qx >= w || qy >= h) continue;
      const q = qy * w + qx;
      const qState = c.state[q]!;
      if (qState === 0) continue;
      // Source coordinates of q: the photo's own for photo pixels.
      const sqx = qState === 2 ? qx - cL : c.srcX[q]!;
      const sqy = qState === 2 ? qy - cT : c.srcY[q]!;
      const ok1 = inPhoto(spx + dx, spy + dy);
      const ok2 = inPhoto(sqx - dx, sqy - dy);
      // Next to the photo, the photo's own gradient continued outward stands in for q's block.
      const ok3 = !ok2 && qState === 2 && inPhoto(sqx + dx, sqy + dy);
      for (let ch = 0; ch < 3; ch++) {
        // Guidance g = F_p - F_q as p's block and q's block would each continue it.
        let g = 0;
        let cnt = 0;
        if (ok1) {
          g += P(spx, spy, ch) - P(spx + dx, spy + dy, ch);
          cnt++;
        }
        if (ok2) {
          g += P(sqx - dx, sqy - dy, ch) - P(sqx, sqy, ch);
          cnt++;
        } else if (ok3) {
          g += P(sqx, sqy, ch) - P(sqx + dx, sqy + dy, ch);
          cnt++;
        }
        if (cnt) g /= cnt;
        // What the correction must supply across this edge: g - (I_p - I_q).
        b[k * 3 + ch] = b[k * 3 + ch]! + g - c.rgb[i * 3 + ch]! + c.rgb[q * 3 + ch]!;
      }
      nbs.push(qState === 1 ? node[q]! : -1);
    }
    start[k + 1] = nbs.length;
  }
  const levels: Level[] = [
    makeLevel(m, Int32Array.from(xs), Int32Array.from(ys), start, nbs, new Array<number>(nbs.length).fill(1)),
  ];
  const parents: Int32Array[] = [];
  while (levels[levels.length - 1]!.n > 64 && levels.length < 9) {
    const { level, parent } = coarsen(levels[levels.length - 1]!);
    levels.push(level);
    parents.push(parent);
  }
  const D = new Float32Array(m * 3);
  // Four V-cycles bring the correction to within about one grey level of the exact solution.
  for (let cycle = 0; cycle < 4; cycle++) vcycle(levels, parents, 0, D, b);
  for (let k = 0; k < m; k++) {
    const i = ys[k]! * w + xs[k]!;
    corr[i * 3] = D[k * 3]!;
    corr[i * 3 + 1] = D[k * 3 + 1]!;
    corr[i * 3 + 2] = D[k * 3 + 2]!;
  }
  return corr;
}

/**
 * Seam blending: along each border between the photo (or an earlier band) and a new band, the
 * colour difference across the border, smoothed along it, is added to the new band and fades
 * with distance (a cheap stand-in for Poisson blending). The photo's pixels never change.
 */
function blendSeams(
  out: Float32Array,
  isNew: Uint8Array,
  outW: number,
  outH: number,
  ext: Extension,
  W: number,
  H: number,
  scale: number,
): void {
  const strip = 3;
  const radius = Math.max(3, Math.round(scale * 2));
  const decayOf = (band: number) => Math.max(3, Math.min(band / 2, 6 * scale + 6));

  /**
   * One border. `along` positions, each with an inside pixel run and an outside (new) run,
   * addressed through `at(pos, t)`: t < 0 inside (t = -1 touching the border), t >= 0 outside.
   */
  const fix = (n: number, band: number, at: (pos: number, t: number) => number) => {
    if (band <= 0 || n <= 0) return;
    const delta = new Float32Array(n * 3);
    for (let p = 0; p < n; p++) {
      for (let ch = 0; ch < 3; ch++) {
        let inside = 0;
        let outside = 0;
        for (let t = 0; t < strip; t++) {
          inside += out[at(p, -1 - t) * 3 + ch]!;
          outside += out[at(p, Math.min(band - 1, t)) * 3 + ch]!;
        }
        delta[p * 3 + ch] = (inside - outside) / strip;
      }
    }
    // Smooth along the border (box filter) so only the low-frequency colour shift is corrected.
    const sm = new Float32Array(n * 3);
    for (let p = 0; p < n; p++) {
      const lo = Math.max(0, p - radius);
      const hi = Math.min(n - 1, p + radius);
      for (let ch = 0; ch < 3; ch++) {
        let s = 0;
        for (let q = lo; q <= hi; q++) s += delta[q * 3 + ch]!;
        sm[p * 3 + ch] = s / (hi - lo + 1);
      }
    }
    const decay = decayOf(band);
    for (let t = 0; t < band; t++) {
      const wgt = Math.exp(-t / decay);
      if (wgt < 0.01) break;
      for (let p = 0; p < n; p++) {
        const i = at(p, t);
        if (!isNew[i]) continue;
        out[i * 3] = out[i * 3]! + sm[p * 3]! * wgt;
        out[i * 3 + 1] = out[i * 3 + 1]! + sm[p * 3 + 1]! * wgt;
        out[i * 3 + 2] = out[i * 3 + 2]! + sm[p * 3 + 2]! * wgt;
      }
    }
  };
  const T = ext.top;
  const L = ext.left;
  // Sides: rows of the photo.
  fix(H, ext.left, (p, t) => (T + p) * outW + L - 1 - t);
  fix(H, ext.right, (p, t) => (T + p) * outW + L + W + t);
  // Top and bottom: every column (the side bands are already blended).
  fix(outW, ext.top, (p, t) => (T - 1 - t) * outW + p);
  fix(outW, ext.bottom, (p, t) => (T + H + t) * outW + p);
}
