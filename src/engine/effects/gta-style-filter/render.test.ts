import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { sobel } from "../../shared/edges";
import { distinctColors, meanSaturation, photo, raw, request } from "../../shared/test-utils";
import { INK, POSTER_COLOURS, render } from "./render";

describe("gta-style-filter (game poster)", () => {
  it("flattens colour into few regions, saturates, and inks bold outlines along the input's edges", async () => {
    const input = await photo("portrait-female-1.jpg", 640);
    const out = await raw((await render(request("gta-style-filter", input))).bytes);
    const src = await raw(await sharp(input).resize(out.width, out.height, { fit: "fill" }).png().toBuffer());
    expect(distinctColors(src)).toBeGreaterThan(5_000);
    expect(distinctColors(out)).toBeLessThanOrEqual(POSTER_COLOURS + 1);
    expect(meanSaturation(out)).toBeGreaterThan(meanSaturation(src) * 1.15);

    const gray = new Uint8Array(src.width * src.height);
    for (let i = 0; i < gray.length; i++)
      gray[i] = (src.data[i * 3]! + src.data[i * 3 + 1]! + src.data[i * 3 + 2]!) / 3;
    const { mag } = sobel(gray, src.width, src.height);
    const sorted = Float32Array.from(mag).sort();
    const strong = sorted[Math.floor(sorted.length * 0.75)]!;
    let ink = 0;
    let near = 0;
    for (let y = 3; y < out.height - 3; y++)
      for (let x = 3; x < out.width - 3; x++) {
        const i = (y * out.width + x) * 3;
        if (out.data[i] !== INK[0] || out.data[i + 1] !== INK[1] || out.data[i + 2] !== INK[2]) continue;
        ink++;
        let best = 0;
        for (let dy = -3; dy <= 3; dy++)
          for (let dx = -3; dx <= 3; dx++) best = Math.max(best, mag[(y + dy) * out.width + x + dx]!);
        if (best >= strong) near++;
      }
    expect(ink / (out.width * out.height)).toBeGreaterThan(0.02); // bold, visible outlines
    expect(near / ink).toBeGreaterThan(0.8);
  });

  it("draws clean shapes: no ink speckles and no tiny colour islands, even on a stubbly face", async () => {
    const input = await photo("portrait-male-2.jpg", 800);
    const out = await raw((await render(request("gta-style-filter", input))).bytes);
    const { width, height, data } = out;
    const isInk = (i: number) =>
      data[i * 3] === INK[0] && data[i * 3 + 1] === INK[1] && data[i * 3 + 2] === INK[2];
    const keyAt = (i: number) => (data[i * 3]! << 16) | (data[i * 3 + 1]! << 8) | data[i * 3 + 2]!;
    // Connected pieces of ink (8-connected) and of each flat colour (4-connected), by size.
    const seen = new Uint8Array(width * height);
    let inkSpecks = 0;
    let colourSpecks = 0;
    for (let start = 0; start < width * height; start++) {
      if (seen[start]) continue;
      const ink = isInk(start);
      const key = keyAt(start);
      const stack = [start];
      seen[start] = 1;
      let size = 0;
      let touchesInk = false;
      while (stack.length) {
        const p = stack.pop()!;
        size++;
        const x = p % width;
        const y = (p - x) / width;
        for (let dy = -1; dy <= 1; dy++)
          for (let dx = -1; dx <= 1; dx++) {
            if ((!ink && dx !== 0 && dy !== 0) || (dx === 0 && dy === 0)) continue;
            const xx = x + dx;
            const yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue;
            const q = yy * width + xx;
            if (!ink && isInk(q)) touchesInk = true;
            if (seen[q] || isInk(q) !== ink || (!ink && keyAt(q) !== key)) continue;
            seen[q] = 1;
            stack.push(q);
          }
      }
      if (ink && size < 30) inkSpecks++;
      // Slivers between an outline and a border are fine; free-standing dots are not.
      if (!ink && !touchesInk && size < 20) colourSpecks++;
    }
    expect(inkSpecks).toBe(0);
    expect(colourSpecks).toBeLessThan(5);
  });
});
