/**
 * Fills the holes left by removed hair with the background around them: a push-pull
 * (pyramid) interpolation. The known background is averaged down a pyramid of halved
 * images until every cell has some background in it, then each finer level keeps its own
 * background and takes the coarser level's smooth estimate (bilinear) where it has none.
 * Small holes get the colours right at their edges; large ones a smooth continuation of the
 * background around (sky into lake, wall into floor), with no streaks in any direction.
 */

/**
 * `rgb` (3 channels) with `known` (1 = background to copy from). Returns the image with every
 * unknown pixel filled; known pixels are unchanged. With no known pixel at all, the image.
 */
export function fillFromBackground(rgb: Buffer, given: Uint8Array, width: number, height: number): Buffer {
  // The matte's soft rim still carries hair colour: copy from a little further out.
  const known = eroded(given, width, height, Math.round(Math.max(width, height) * 0.006) + 2);
  const out = Buffer.from(rgb);
  // Level 0: colour and weight (1 = known).
  const levels: Array<{ c: Float32Array; w: Float32Array; width: number; height: number; sy: number }> = [];
  let c = new Float32Array(width * height * 3);
  let w = new Float32Array(width * height);
  let any = false;
  for (let i = 0; i < w.length; i++)
    if (known[i]) {
      w[i] = 1;
      any = true;
      for (let k = 0; k < 3; k++) c[i * 3 + k] = rgb[i * 3 + k]!;
    }
  if (!any) return out;
  let lw = width;
  let lh = height;
  levels.push({ c, w, width: lw, height: lh, sy: 1 });
  // Pull: halve until one cell (or every cell has background). Across, every level; down,
  // every other level: a hole takes more from its own rows (horizon, wall, lake) than from
  // above and below, without copying any row's grain.
  while (lw > 1 || lh > 1) {
    const fy = levels.length % 2 === 1 || lw === 1 ? 2 : 1;
    const nw = Math.max(1, Math.ceil(lw / 2));
    const nh = Math.max(1, Math.ceil(lh / fy));
    const nc = new Float32Array(nw * nh * 3);
    const nwt = new Float32Array(nw * nh);
    let full = true;
    for (let y = 0; y < nh; y++)
      for (let x = 0; x < nw; x++) {
        let sw = 0;
        const acc = [0, 0, 0];
        for (let dy = 0; dy < fy; dy++)
          for (let dx = 0; dx < 2; dx++) {
            const sx = 2 * x + dx;
            const sy = fy * y + dy;
            if (sx >= lw || sy >= lh) continue;
            const j = sy * lw + sx;
            const wj = w[j]!;
            if (wj <= 0) continue;
            sw += wj;
            for (let k = 0; k < 3; k++) acc[k]! += c[j * 3 + k]! * wj;
          }
        const o = y * nw + x;
        if (sw > 0) for (let k = 0; k < 3; k++) nc[o * 3 + k] = acc[k]! / sw;
        else full = false;
        nwt[o] = Math.min(1, sw);
      }
    c = nc;
    w = nwt;
    lw = nw;
    lh = nh;
    levels.push({ c, w, width: lw, height: lh, sy: fy });
    if (full) break;
  }
  // Push: from the coarsest level down, fill what each level lacks from the one above.
  for (let l = levels.length - 2; l >= 0; l--) {
    const fine = levels[l]!;
    const coarse = levels[l + 1]!;
    for (let y = 0; y < fine.height; y++) {
      const gy = Math.min(coarse.height - 1, Math.max(0, (y + 0.5) / coarse.sy - 0.5));
      const y0 = Math.floor(gy);
      const y1 = Math.min(coarse.height - 1, y0 + 1);
      const ty = gy - y0;
      for (let x = 0; x < fine.width; x++) {
        const i = y * fine.width + x;
        const wi = fine.w[i]!;
        if (wi >= 1) continue;
        const gx = Math.min(coarse.width - 1, Math.max(0, (x + 0.5) / 2 - 0.5));
        const x0 = Math.floor(gx);
        const x1 = Math.min(coarse.width - 1, x0 + 1);
        const tx = gx - x0;
        for (let k = 0; k < 3; k++) {
          const a = coarse.c[(y0 * coarse.width + x0) * 3 + k]!;
          const b = coarse.c[(y0 * coarse.width + x1) * 3 + k]!;
          const d = coarse.c[(y1 * coarse.width + x0) * 3 + k]!;
          const e = coarse.c[(y1 * coarse.width + x1) * 3 + k]!;
          const up = (a * (1 - tx) + b * tx) * (1 - ty) + (d * (1 - tx) + e * tx) * ty;
          fine.c[i * 3 + k] = fine.c[i * 3 + k]! * wi + up * (1 - wi);
        }
        fine.w[i] = 1;
      }
    }
  }
  const top = levels[0]!;
  for (let i = 0; i < width * height; i++)
    if (!known[i]) for (let k = 0; k < 3; k++) out[i * 3 + k] = Math.round(top.c[i * 3 + k]!);
  return out;
}

/** `mask` shrunk by `r` pixels (a separable min filter). */
function eroded(mask: Uint8Array, width: number, height: number, r: number): Uint8Array {
  const tmp = new Uint8Array(mask.length);
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    let lastUnknown = -1e9;
    for (let x = 0; x < width; x++) {
      if (!mask[y * width + x]) lastUnknown = x;
      tmp[y * width + x] = x - lastUnknown > r ? 1 : 0;
    }
    lastUnknown = 1e9;
    for (let x = width - 1; x >= 0; x--) {
      if (!mask[y * width + x]) lastUnknown = x;
      if (lastUnknown - x <= r) tmp[y * width + x] = 0;
    }
  }
  for (let x = 0; x < width; x++) {
    let lastUnknown = -1e9;
    for (let y = 0; y < height; y++) {
      if (!tmp[y * width + x]) lastUnknown = y;
      out[y * width + x] = y - lastUnknown > r ? 1 : 0;
    }
    lastUnknown = 1e9;
    for (let y = height - 1; y >= 0; y--) {
      if (!tmp[y * width + x]) lastUnknown = y;
      if (lastUnknown - y <= r) out[y * width + x] = 0;
    }
  }
  return out;
}
