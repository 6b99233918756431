/** Edge measures shared by the line effects (line drawing, GTA poster). */

/** Sobel gradient magnitude and a direction bucket (0: horizontal, 1: 45°, 2: vertical, 3: 135°). */
export function sobel(gray: Uint8Array | Buffer, width: number, height: number) {
  const mag = new Float32Array(width * height);
  const dir = new Uint8Array(width * height);
  const tan22 = 0.41421356;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const a = gray[i - width - 1]!,
        b = gray[i - width]!,
        c = gray[i - width + 1]!;
      const d = gray[i - 1]!,
        f = gray[i + 1]!;
      const g = gray[i + width - 1]!,
        h = gray[i + width]!,
        k = gray[i + width + 1]!;
      const gx = c + 2 * f + k - (a + 2 * d + g);
      const gy = g + 2 * h + k - (a + 2 * b + c);
      mag[i] = Math.hypot(gx, gy);
      const ax = Math.abs(gx);
      const ay = Math.abs(gy);
      // Quantise the gradient direction without atan2: compare against tan(22.5°).
      dir[i] = ay <= ax * tan22 ? 0 : ax <= ay * tan22 ? 2 : gx > 0 === gy > 0 ? 1 : 3;
    }
  }
  return { mag, dir };
}
