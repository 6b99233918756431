import { describe, expect, it } from "vitest";
import { meanSaturation, photo, raw, request, type Raw } from "../../shared/test-utils";
import { MARGIN, PAGE, REFERENCE, render } from "./render";

/** Connected white regions (4-neighbour) inside a rectangle: how many areas there are to colour. */
function whiteRegions(img: Raw, x0: number, y0: number, x1: number, y1: number): number {
  const w = x1 - x0;
  const h = y1 - y0;
  const seen = new Uint8Array(w * h);
  let regions = 0;
  const stack: number[] = [];
  const white = (x: number, y: number) => img.data[((y0 + y) * img.width + x0 + x) * 3]! > 128;
  for (let s = 0; s < w * h; s++) {
    if (seen[s] || !white(s % w, Math.floor(s / w))) continue;
    regions++;
    seen[s] = 1;
    stack.push(s);
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % w;
      const y = (i - x) / w;
      for (const [nx, ny] of [
        [x + 1, y],
        [x - 1, y],
        [x, y + 1],
        [x, y - 1],
      ]) {
        if (nx! < 0 || ny! < 0 || nx! >= w || ny! >= h) continue;
        const j = ny! * w + nx!;
        if (!seen[j] && white(nx!, ny!)) {
          seen[j] = 1;
          stack.push(j);
        }
      }
    }
  }
  return regions;
}

describe("coloring-page", () => {
  it("lays out bold black outlines on pure white on a US Letter page, with a colour reference bottom-right", async () => {
    const out = await render(request("coloring-page", await photo("pet-1-cat.png")));
    const img = await raw(out.bytes);
    expect([img.width, img.height]).toEqual([PAGE.width, PAGE.height]);
    expect(img.width / img.height).toBeCloseTo(8.5 / 11, 3);

    // The drawing area (above the reference strip) holds only pure black and pure white.
    const drawBottom = PAGE.height - MARGIN - REFERENCE.maxHeight - REFERENCE.gap;
    let black = 0;
    let total = 0;
    for (let y = 0; y < drawBottom; y++)
      for (let x = 0; x < img.width; x++) {
        const i = (y * img.width + x) * 3;
        const [r, g, b] = [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
        const pure = (r === 0 && g === 0 && b === 0) || (r === 255 && g === 255 && b === 255);
        if (!pure) throw new Error(`shading at ${x},${y}: ${r},${g},${b}`);
        if (r === 0) black++;
        total++;
      }
    expect(black / total).toBeGreaterThan(0.02); // there is a drawing
    expect(black / total).toBeLessThan(0.25); // mostly paper to colour in

    // Simple enough for a child: a bounded number of areas to colour.
    const regions = whiteRegions(img, MARGIN, MARGIN, img.width - MARGIN, drawBottom);
    expect(regions).toBeGreaterThan(5);
    expect(regions).toBeLessThan(250);

    // The full-colour reference sits in the bottom-right corner.
    const corner: Raw = { ...img, data: Buffer.alloc(0) };
    const cw = 200;
    const ch = 120;
    const data = Buffer.alloc(cw * ch * 3);
    for (let y = 0; y < ch; y++)
      img.data.copy(
        data,
        y * cw * 3,
        ((img.height - MARGIN - 10 - ch + y) * img.width + img.width - MARGIN - 10 - cw) * 3,
        ((img.height - MARGIN - 10 - ch + y) * img.width + img.width - MARGIN - 10) * 3,
      );
    expect(meanSaturation({ ...corner, data, width: cw, height: ch })).toBeGreaterThan(0.15);
  });
});
