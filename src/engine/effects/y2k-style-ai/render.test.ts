import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { meanSaturation, photo, raw, request, type Raw } from "../test-utils";
import { render, styleFor } from "./render";

/** A 12-bin hue histogram of saturated pixels, normalised. */
function hueHistogram(img: Raw): number[] {
  const bins = new Array(12).fill(0);
  let total = 0;
  for (let i = 0; i < img.data.length; i += 3) {
    const [r, g, b] = [img.data[i]! / 255, img.data[i + 1]! / 255, img.data[i + 2]! / 255];
    const mx = Math.max(r, g, b);
    const mn = Math.min(r, g, b);
    if (mx - mn < 0.15) continue;
    let h = mx === r ? (g - b) / (mx - mn) : mx === g ? 2 + (b - r) / (mx - mn) : 4 + (r - g) / (mx - mn);
    h = (((h * 60) % 360) + 360) % 360;
    bins[Math.floor(h / 30)]++;
    total++;
  }
  return bins.map((c) => c / Math.max(1, total));
}
const l1 = (a: number[], b: number[]) => a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0);

describe("y2k-style-ai", () => {
  it("steers colours by the prompt: two prompts give clearly different hue histograms", async () => {
    const input = await photo("portrait-female-1.jpg", 400);
    const a = await raw(
      (await render(request("y2k-style-ai", input, { prompt: "dreamy pink and purple pastel" }))).bytes,
    );
    const b = await raw(
      (await render(request("y2k-style-ai", input, { prompt: "cyber night, lime and cyan" }))).bytes,
    );
    expect(l1(hueHistogram(a), hueHistogram(b))).toBeGreaterThan(0.5);
    // Prompts without colour words differ too (the text's hash picks the hues).
    expect(styleFor("a walk in the city").dark).not.toEqual(styleFor("my birthday party").dark);
  });

  it("is neon: far more saturated and no darker than a dull photo, with a new background", async () => {
    const dull = await sharp(await photo("portrait-male-2.jpg", 400))
      .modulate({ saturation: 0.3 })
      .png()
      .toBuffer();
    const src = await raw(dull);
    const out = await raw((await render(request("y2k-style-ai", dull))).bytes);
    expect(meanSaturation(out)).toBeGreaterThan(meanSaturation(src) + 0.25);
    const mean = (img: Raw) => img.data.reduce((s, v) => s + v, 0) / img.data.length;
    expect(mean(out)).toBeGreaterThanOrEqual(mean(src));
    // The top corners (background) are replaced, not tinted.
    let diff = 0;
    let count = 0;
    for (let y = 0; y < 30; y++)
      for (const x of [...Array(30).keys(), ...Array.from({ length: 30 }, (_, k) => out.width - 1 - k)]) {
        const i = (y * out.width + x) * 3;
        diff +=
          Math.abs(out.data[i]! - src.data[i]!) +
          Math.abs(out.data[i + 1]! - src.data[i + 1]!) +
          Math.abs(out.data[i + 2]! - src.data[i + 2]!);
        count += 3;
      }
    expect(diff / count).toBeGreaterThan(40);
  });

  it("is deterministic for the same input, prompt and seed", async () => {
    const input = await photo("pet-1-cat.png");
    const a = await render(request("y2k-style-ai", input, { prompt: "chrome" }));
    const b = await render(request("y2k-style-ai", input, { prompt: "chrome" }));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
  });
});
