/**
 * Person-matte refinement for the portrait effects (LinkedIn headshot, studio portrait).
 * The selfie model's matte is computed at a low resolution and comes back soft and
 * stair-stepped; a guided filter (He et al.), guided by the photo's luminance, snaps it to
 * the photo's own edges (hair, shoulders), but only inside a band around the matte's
 * outline: outside the band the matte is exactly 0 or 1, so the new background stays clean
 * and the subject has no see-through patches.
 */

/** Mean over a (2r+1)^2 window (clamped at the borders), separable running sums. */
export function boxMean(src: Float32Array, width: number, height: number, r: number): Float32Array {
  const tmp = new Float32Array(width * height);
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let sum = 0;
    let lo = 0;
    let hi = -1;
    for (let x = 0; x < width; x++) {
      const want1 = Math.min(width - 1, x + r);
      const want0 = Math.max(0, x - r);
      while (hi < want1) sum += src[row + ++hi]!;
      while (lo < want0) sum -= src[row + lo++]!;
      tmp[row + x] = sum / (hi - lo + 1);
    }
  }
  // Vertical pass row by row (a running sum per column), which keeps memory access linear.
  const col = new Float64Array(width);
  let lo = 0;
  let hi = -1;
  for (let y = 0; y < height; y++) {
    const want1 = Math.min(height - 1, y + r);
    const want0 = Math.max(0, y - r);
    while (hi < want1) {
      const o = ++hi * width;
      for (let x = 0; x < width; x++) col[x] = col[x]! + tmp[o + x]!;
    }
    while (lo < want0) {
      const o = lo++ * width;
      for (let x = 0; x < width; x++) col[x] = col[x]! - tmp[o + x]!;
    }
    const inv = 1 / (hi - lo + 1);
    const o = y * width;
    for (let x = 0; x < width; x++) out[o + x] = col[x]! * inv;
  }
  return out;
}

/** Guided filter of `p` (0..1) with the grey guide `g` (0..1): an edge-aware smoothing. */
export function guidedFilter(
  g: Float32Array,
  p: Float32Array,
  width: number,
  height: number,
  r: number,
  eps: number,
): Float32Array {
  const n = width * height;
  const gp = new Float32Array(n);
  const gg = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    gp[i] = g[i]! * p[i]!;
    gg[i] = g[i]! * g[i]!;
  }
  const mg = boxMean(g, width, height, r);
  const mp = boxMean(p, width, height, r);
  const mgp = boxMean(gp, width, height, r);
  const mgg = boxMean(gg, width, height, r);
  const a = new Float32Array(n);
  const b = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const v = mgg[i]! - mg[i]! * mg[i]!;
    const c = mgp[i]! - mg[i]! * mp[i]!;
    a[i] = c / (v + eps);
    b[i] = mp[i]! - a[i]! * mg[i]!;
  }
  const ma = boxMean(a, width, height, r);
  const mb = boxMean(b, width, height, r);
  const q = new Float32Array(n);
  for (let i = 0; i < n; i++) q[i] = ma[i]! * g[i]! + mb[i]!;
  return q;
}

/**
 * The refined matte (0..1) of an RGB image and its coarse 0..255 matte: guided filter in a
 * band of `band` pixels either side of the coarse outline, exact 0/1 beyond it.
 */
export function refineMatte(
  rgb: Uint8Array,
  coarse: Uint8Array,
  width: number,
  height: number,
  opts: { radius: number; band: number; eps?: number },
): Float32Array {
  const n = width * height;
  const g = new Float32Array(n);
  const p = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    g[i] = (0.299 * rgb[i * 3]! + 0.587 * rgb[i * 3 + 1]! + 0.114 * rgb[i * 3 + 2]!) / 255;
    p[i] = coarse[i]! / 255;
  }
  const q = guidedFilter(g, p, width, height, opts.radius, opts.eps ?? 1e-3);
  // The band: where a (2 band + 1) window around the pixel holds both subject and background.
  const hard = new Float32Array(n);
  for (let i = 0; i < n; i++) hard[i] = coarse[i]! >= 128 ? 1 : 0;
  const mix = boxMean(hard, width, height, Math.max(1, Math.round(opts.band)));
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const m = mix[i]!;
    if (m <= 0 || m >= 1) out[i] = hard[i]!;
    else {
      // Inside the band: the filtered matte, eased back to 0/1 towards the band's far side.
      const t = Math.abs(m - 0.5) * 2;
      const v = Math.max(0, Math.min(1, q[i]!));
      const soft = v * (1 - t * t) + hard[i]! * t * t;
      // A contrast curve so the edge is crisp, not a haze.
      out[i] = smoothstep(0.22, 0.78, soft);
    }
  }
  return out;
}

export function smoothstep(e0: number, e1: number, x: number): number {
  const t = Math.max(0, Math.min(1, (x - e0) / (e1 - e0)));
  return t * t * (3 - 2 * t);
}

/**
 * Foreground colours for compositing on a new background: where the matte is partial, the
 * photo's pixel mixes the subject with the old background; there the colour is pulled
 * towards the subject's nearby solid colour (a masked blur of the pixels with alpha > 0.9),
 * so no halo of the old background is carried onto the new one.
 */
export function decontaminate(
  rgb: Uint8Array,
  alpha: Float32Array,
  width: number,
  height: number,
  r: number,
): Buffer {
  const n = width * height;
  const w = new Float32Array(n);
  for (let i = 0; i < n; i++) w[i] = alpha[i]! > 0.9 ? 1 : 0;
  const mw = boxMean(w, width, height, r * 2);
  const out = Buffer.from(rgb);
  const ch = new Float32Array(n);
  for (let c = 0; c < 3; c++) {
    for (let i = 0; i < n; i++) ch[i] = w[i]! * rgb[i * 3 + c]!;
    const m = boxMean(ch, width, height, r * 2);
    for (let i = 0; i < n; i++) {
      const a = alpha[i]!;
      if (a >= 0.98 || a <= 0.01 || mw[i]! < 1e-3) continue;
      const f = m[i]! / mw[i]!;
      const k = smoothstep(0.4, 1, a);
      out[i * 3 + c] = Math.round(f * (1 - k) + rgb[i * 3 + c]! * k);
    }
  }
  return out;
}
