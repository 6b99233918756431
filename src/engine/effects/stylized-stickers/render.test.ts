import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { distinctColors, photo, raw, request, type Raw } from "../../shared/test-utils";
import { render } from "./render";

const px = (img: Raw, x: number, y: number) => {
  const i = (y * img.width + x) * 3;
  return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!] as const;
};
const isWhite = (img: Raw, x: number, y: number) => px(img, x, y).every((v) => v >= 245);
const isDark = (img: Raw, x: number, y: number) => {
  const [r, g, b] = px(img, x, y);
  return 0.299 * r + 0.587 * g + 0.114 * b < 120;
};

describe("stylized-stickers", () => {
  it("cuts the person out onto white with a thick white outline ring and flat colours", async () => {
    const input = await photo("portrait-female-1.jpg", 700);
    const out = await raw((await render(request("stylized-stickers", input))).bytes);
    const { width: w, height: h } = out;
    expect(Math.max(w, h)).toBeLessThanOrEqual(2048);
    // White paper in all four corners.
    for (const [x, y] of [
      [2, 2],
      [w - 3, 2],
      [2, h - 3],
      [w - 3, h - 3],
    ] as const)
      expect(isWhite(out, x, y)).toBe(true);

    // The outline ring, all the way round: walking from the edge towards the centre, the
    // first pixel of the subject (its dark contour) has a white band of at least `minBand`
    // pixels outside it, and that band ends at the sticker's grey die-cut edge or its shadow
    // within `maxBand` pixels (a band, not the open paper).
    const minBand = Math.round(Math.max(w, h) * 0.02);
    const maxBand = Math.round(Math.max(w, h) * 0.08);
    for (let k = 0; k < 72; k++) {
      const angle = (k / 72) * 2 * Math.PI;
      const reach = Math.hypot(w, h) / 2;
      const at = (r: number) => {
        const x = Math.round(w / 2 + r * Math.cos(angle));
        const y = Math.round(h / 2 + r * Math.sin(angle));
        return x >= 0 && y >= 0 && x < w && y < h ? ([x, y] as const) : null;
      };
      let r = reach;
      while (r > 0 && (!at(r) || !isDark(out, ...at(r)!))) r--;
      expect(r, `ray ${k} finds the subject`).toBeGreaterThan(0);
      // Step over the contour's anti-aliased fringe, then measure the white run.
      let band = 0;
      let s = r + 1;
      while (s < r + 4 && at(s) && !isWhite(out, ...at(s)!)) s++;
      while (at(s + band) && isWhite(out, ...at(s + band)!)) band++;
      expect(band, `ray ${k} white band`).toBeGreaterThanOrEqual(minBand);
      expect(band, `ray ${k} band closes`).toBeLessThanOrEqual(maxBand);
    }

    // Flattened colours: far fewer distinct colours than the photo.
    expect(distinctColors(out)).toBeLessThan(distinctColors(await raw(input)) / 50);
  }, 60_000);

  it("gives the same bytes for the same photo and seed", async () => {
    const input = await photo("portrait-male-1.jpg", 500);
    const a = await render(request("stylized-stickers", input));
    const b = await render(request("stylized-stickers", input));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
  }, 60_000);

  it("refuses a photo without a person, clearly", async () => {
    const err = await render(
      request("stylized-stickers", await photo("landscape-1-meadow-cc0.jpg", 500)),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).reason).toMatch(/No face/);
    expect((err as EngineError).code).toBe("noFace");
  }, 60_000);
});
