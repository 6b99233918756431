/**
 * What the hair effects must never cut away or paint over below the brows: the face, the
 * neck and jaw, and any skin joined to the face (ears, a hand at the mouth or chin). The
 * skin's colour is sampled on the cheeks, forehead and nose; from the face oval a flood
 * spreads through person pixels coloured like that skin (more like it than like the hair),
 * so a hand touching the face is protected while skin-toned clothing or background far from
 * it is not. Plus a neck column under the jaw, widening to the shoulders, unless clearly hair.
 */

/** 0/1 masks and their soft versions are all `width * height`, row-major. */

/** `mask` grown by `r` pixels (separable max filter, linear in the image size). */
export function dilate(mask: Uint8Array, width: number, height: number, r: number): Uint8Array {
  const tmp = new Uint8Array(mask.length);
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    let last = -1e9;
    for (let x = 0; x < width; x++) {
      if (mask[y * width + x]) last = x;
      if (x - last <= r) tmp[y * width + x] = 1;
    }
    last = 1e9;
    for (let x = width - 1; x >= 0; x--) {
      if (mask[y * width + x]) last = x;
      if (last - x <= r) tmp[y * width + x] = 1;
    }
  }
  for (let x = 0; x < width; x++) {
    let last = -1e9;
    for (let y = 0; y < height; y++) {
      if (tmp[y * width + x]) last = y;
      if (y - last <= r) out[y * width + x] = 1;
    }
    last = 1e9;
    for (let y = height - 1; y >= 0; y--) {
      if (tmp[y * width + x]) last = y;
      if (last - y <= r) out[y * width + x] = 1;
    }
  }
  return out;
}

/**
 * A separable box blur of radius `r`, applied twice (close to a Gaussian: round, soft edges
 * with no corners, so masks built with it never show stair steps).
 */
export function blurred(a: ArrayLike<number>, width: number, height: number, r: number): Float32Array {
  let cur = Float32Array.from(a as ArrayLike<number>);
  if (r < 1) return cur;
  const line = new Float32Array(Math.max(width, height) + 1);
  for (let pass = 0; pass < 2; pass++) {
    const tmp = new Float32Array(cur.length);
    for (let y = 0; y < height; y++) {
      line[0] = 0;
      for (let x = 0; x < width; x++) line[x + 1] = line[x]! + cur[y * width + x]!;
      for (let x = 0; x < width; x++) {
        const lo = Math.max(0, x - r);
        const hi = Math.min(width, x + r + 1);
        tmp[y * width + x] = (line[hi]! - line[lo]!) / (hi - lo);
      }
    }
    const out = new Float32Array(cur.length);
    for (let x = 0; x < width; x++) {
      line[0] = 0;
      for (let y = 0; y < height; y++) line[y + 1] = line[y]! + tmp[y * width + x]!;
      for (let y = 0; y < height; y++) {
        const lo = Math.max(0, y - r);
        const hi = Math.min(height, y + r + 1);
        out[y * width + x] = (line[hi]! - line[lo]!) / (hi - lo);
      }
    }
    cur = out;
  }
  return cur;
}

/**
 * 0..1: 1 on the whole of `mask` and a little around it, fading to 0 about `r` pixels out.
 * Multiplying a change by (1 - this) leaves every masked pixel exactly as it was.
 */
export function shielded(mask: Uint8Array, width: number, height: number, r: number): Float32Array {
  const soft = blurred(dilate(mask, width, height, 2 * r), width, height, r);
  for (let i = 0; i < soft.length; i++) if (mask[i]) soft[i] = 1;
  return soft;
}

/**
 * Flood from `seeds` through `pass` pixels (4-connected) inside the box [x0, x1] x [y0, y1].
 * Returns the reached pixels (seeds included when they pass).
 */
export function flood(
  seeds: Uint8Array,
  pass: Uint8Array,
  width: number,
  box: { x0: number; y0: number; x1: number; y1: number },
): Uint8Array {
  const out = new Uint8Array(seeds.length);
  const stack: number[] = [];
  for (let y = box.y0; y <= box.y1; y++)
    for (let x = box.x0; x <= box.x1; x++) {
      const i = y * width + x;
      if (seeds[i] && pass[i] && !out[i]) {
        out[i] = 1;
        stack.push(i);
      }
    }
  while (stack.length) {
    const p = stack.pop()!;
    const x = p % width;
    const y = (p - x) / width;
    const visit = (q: number) => {
      if (pass[q] && !out[q]) {
        out[q] = 1;
        stack.push(q);
      }
    };
    if (x > box.x0) visit(p - 1);
    if (x < box.x1) visit(p + 1);
    if (y > box.y0) visit(p - width);
    if (y < box.y1) visit(p + width);
  }
  return out;
}
