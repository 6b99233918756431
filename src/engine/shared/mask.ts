import sharp from "sharp";

/**
 * Binary masks (one byte per pixel, 0 or 1) that carry their own size, so a mask can never be
 * read with another image's width: every helper checks the sizes it is given agree.
 */
export interface Mask {
  data: Uint8Array;
  width: number;
  height: number;
}

export function sameSize(a: { width: number; height: number }, b: { width: number; height: number }) {
  if (a.width !== b.width || a.height !== b.height) {
    throw new Error(`size mismatch: ${a.width}x${a.height} vs ${b.width}x${b.height}`);
  }
}

/** A 0..255 alpha plane at or above `level` as a mask. */
export function threshold(alpha: Uint8Array, width: number, height: number, level = 128): Mask {
  if (alpha.length !== width * height) throw new Error("threshold: alpha is not width x height");
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = alpha[i]! >= level ? 1 : 0;
  return { data, width, height };
}

/** The 4-connected components of the mask that contain at least one of the seed points. */
export function keepComponents(mask: Mask, seeds: Array<[number, number]>): Mask {
  const { width, height } = mask;
  const src = mask.data;
  const out = new Uint8Array(width * height);
  // Each pixel is pushed at most once (it is marked when pushed).
  const stack = new Int32Array(width * height);
  let top = 0;
  const push = (j: number) => {
    if (src[j] && !out[j]) {
      out[j] = 1;
      stack[top++] = j;
    }
  };
  for (const [sx, sy] of seeds) {
    const x = Math.round(sx);
    const y = Math.round(sy);
    if (x < 0 || y < 0 || x >= width || y >= height) continue;
    push(y * width + x);
    while (top > 0) {
      const i = stack[--top]!;
      const px = i % width;
      if (px > 0) push(i - 1);
      if (px < width - 1) push(i + 1);
      if (i >= width) push(i - width);
      if (i < width * (height - 1)) push(i + width);
    }
  }
  return { data: out, width, height };
}

export function invert(mask: Mask): Mask {
  const data = new Uint8Array(mask.data.length);
  for (let i = 0; i < data.length; i++) data[i] = 1 - mask.data[i]!;
  return { data, width: mask.width, height: mask.height };
}

/** Fills holes: background not connected to the image border becomes foreground. */
export function fillHoles(mask: Mask): Mask {
  const { width, height } = mask;
  const inverse = invert(mask);
  const border: Array<[number, number]> = [];
  for (let x = 0; x < width; x++) border.push([x, 0], [x, height - 1]);
  for (let y = 0; y < height; y++) border.push([0, y], [width - 1, y]);
  const outside = keepComponents(inverse, border);
  return invert(outside);
}

/** Area and bounding box of the set pixels (null when the mask is empty). */
export function bounds(mask: Mask): { x0: number; y0: number; x1: number; y1: number; area: number } | null {
  const { width, height } = mask;
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  let area = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      if (!mask.data[y * width + x]) continue;
      area++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  return area ? { x0, y0, x1: x1 + 1, y1: y1 + 1, area } : null;
}

/** Whether the point (x, y) lies inside a closed polygon (even-odd rule). */
export function inPolygon(x: number, y: number, poly: ReadonlyArray<readonly [number, number]>): boolean {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i]!;
    const [xj, yj] = poly[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/**
 * Calls `visit(x, y)` for each pixel of a width x height grid whose sample point
 * (x + at, y + at) lies inside the polygon, row by row over the polygon's bounding box (every
 * `step`th row and column from the box's corner).
 */
export function forEachInPolygon(
  poly: ReadonlyArray<readonly [number, number]>,
  width: number,
  height: number,
  visit: (x: number, y: number) => void,
  { at = 0.5, step = 1 }: { at?: number; step?: number } = {},
): void {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of poly) {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  }
  const x1 = Math.min(width - 1, Math.ceil(maxX));
  const y1 = Math.min(height - 1, Math.ceil(maxY));
  for (let y = Math.max(0, Math.floor(minY)); y <= y1; y += step)
    for (let x = Math.max(0, Math.floor(minX)); x <= x1; x += step)
      if (inPolygon(x + at, y + at, poly)) visit(x, y);
}

/** Sets the pixels inside a closed polygon (even-odd rule, sampled at pixel centres). */
export function fillPolygon(mask: Mask, points: Array<[number, number]>): void {
  const { width, height } = mask;
  for (let y = 0; y < height; y++) {
    const cy = y + 0.5;
    const xs: number[] = [];
    for (let i = 0; i < points.length; i++) {
      const [ax, ay] = points[i]!;
      const [bx, by] = points[(i + 1) % points.length]!;
      if (ay <= cy === by <= cy) continue;
      xs.push(ax + ((cy - ay) / (by - ay)) * (bx - ax));
    }
    xs.sort((a, b) => a - b);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const from = Math.max(0, Math.ceil(xs[k]! - 0.5));
      const to = Math.min(width - 1, Math.floor(xs[k + 1]! - 0.5));
      for (let x = from; x <= to; x++) mask.data[y * width + x] = 1;
    }
  }
}

/**
 * Squared Euclidean distance from every pixel to the nearest set pixel (0 on set pixels),
 * exact, in linear time (Felzenszwalb and Huttenlocher's lower envelope of parabolas).
 */
export function distanceSquared(mask: Mask): Float32Array {
  const { width, height } = mask;
  const INF = 1e12;
  const d = new Float32Array(width * height);
  for (let i = 0; i < d.length; i++) d[i] = mask.data[i] ? 0 : INF;
  const n = Math.max(width, height);
  const f = new Float64Array(n);
  const out = new Float64Array(n);
  const v = new Int32Array(n);
  const z = new Float64Array(n + 1);
  // One 1-D pass over f[0..len) into out[0..len).
  const pass = (len: number) => {
    let k = 0;
    v[0] = 0;
    z[0] = -Infinity;
    z[1] = Infinity;
    for (let q = 1; q < len; q++) {
      const fq = f[q]! + q * q;
      let s = (fq - (f[v[k]!]! + v[k]! * v[k]!)) / (2 * q - 2 * v[k]!);
      while (s <= z[k]!) {
        k--;
        s = (fq - (f[v[k]!]! + v[k]! * v[k]!)) / (2 * q - 2 * v[k]!);
      }
      k++;
      v[k] = q;
      z[k] = s;
      z[k + 1] = Infinity;
    }
    k = 0;
    for (let q = 0; q < len; q++) {
      while (z[k + 1]! < q) k++;
      out[q] = (q - v[k]!) ** 2 + f[v[k]!]!;
    }
  };
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) f[y] = d[y * width + x]!;
    pass(height);
    for (let y = 0; y < height; y++) d[y * width + x] = out[y]!;
  }
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) f[x] = d[row + x]!;
    pass(width);
    for (let x = 0; x < width; x++) d[row + x] = out[x]!;
  }
  return d;
}

/** Distance (pixels) from every pixel outside the mask to the nearest set pixel; 0 inside. */
export function distanceOutside(mask: Mask): Float32Array {
  const d = distanceSquared(mask);
  for (let i = 0; i < d.length; i++) d[i] = Math.sqrt(d[i]!);
  return d;
}

/** Shrinks a mask by r pixels (square window): a pixel stays if no unset pixel is within r. */
export function erode(mask: Mask, r: number): Mask {
  const { width, height } = mask;
  // Runs of set pixels along rows, then along columns, must reach r on both sides.
  const rows = new Uint8Array(width * height);
  const left = new Int32Array(Math.max(width, height));
  for (let y = 0; y < height; y++) {
    let run = 0;
    for (let x = 0; x < width; x++) left[x] = run = mask.data[y * width + x] ? run + 1 : 0;
    run = 0;
    for (let x = width - 1; x >= 0; x--) {
      run = mask.data[y * width + x] ? run + 1 : 0;
      rows[y * width + x] = left[x]! > r && run > r ? 1 : 0;
    }
  }
  const out = new Uint8Array(width * height);
  for (let x = 0; x < width; x++) {
    let run = 0;
    for (let y = 0; y < height; y++) left[y] = run = rows[y * width + x] ? run + 1 : 0;
    run = 0;
    for (let y = height - 1; y >= 0; y--) {
      run = rows[y * width + x] ? run + 1 : 0;
      out[y * width + x] = left[y]! > r && run > r ? 1 : 0;
    }
  }
  return { data: out, width, height };
}

/** Rounds a mask's outline: Gaussian blur, then back to 0/1 at half level (removes jaggies and specks). */
export async function smooth(mask: Mask, sigma: number): Promise<Mask> {
  const { width, height } = mask;
  const scaled = Buffer.alloc(width * height);
  for (let i = 0; i < scaled.length; i++) scaled[i] = mask.data[i]! * 255;
  const blurred = await sharp(scaled, { raw: { width, height, channels: 1 } })
    .blur(Math.max(0.3, sigma))
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  if (blurred.length !== width * height) throw new Error("smooth: blurred mask has the wrong size");
  return threshold(blurred, width, height, 128);
}
