import { describe, expect, it } from "vitest";
import { fillFromBackground } from "./fill-background";

/** A grainy background (a seeded pseudo-random grey per pixel around 128) of `w` x `h`. */
function grain(w: number, h: number): Buffer {
  const out = Buffer.alloc(w * h * 3);
  let s = 12345;
  for (let i = 0; i < w * h; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const v = 128 + ((s >>> 16) % 81) - 40;
    out.fill(v, i * 3, i * 3 + 3);
  }
  return out;
}

describe("fillFromBackground", () => {
  it("fills a wide hole smoothly, without streaks along the rows, and keeps the known pixels", () => {
    const w = 240;
    const h = 120;
    const rgb = grain(w, h);
    // Background only in narrow strips at both sides: the hole is far wider than them.
    const known = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (x < 24 || x >= w - 24) known[y * w + x] = 1;
    const out = fillFromBackground(rgb, known, w, h);
    // Known pixels well inside the strips are untouched.
    for (let y = 0; y < h; y++) expect(out[(y * w + 2) * 3]).toBe(rgb[(y * w + 2) * 3]);
    // In the middle of the hole, each column varies little from row to row: a row copied
    // from its edge pixel (a streak) would carry the grain's full spread (about 23) down it.
    let worst = 0;
    for (let x = 100; x < 140; x++) {
      const col: number[] = [];
      for (let y = 10; y < h - 10; y++) col.push(out[(y * w + x) * 3]!);
      const mean = col.reduce((a, b) => a + b, 0) / col.length;
      const sd = Math.sqrt(col.reduce((a, b) => a + (b - mean) ** 2, 0) / col.length);
      worst = Math.max(worst, sd);
    }
    expect(worst).toBeLessThan(4);
    // And the fill is the background's colour, not black or a stray value.
    expect(Math.abs(out[(60 * w + 120) * 3]! - 128)).toBeLessThan(12);
  });

  it("continues a background that changes from top to bottom (sky over lake) into the hole", () => {
    const w = 200;
    const h = 100;
    const rgb = Buffer.alloc(w * h * 3);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) rgb.fill(y < 50 ? 220 : 60, (y * w + x) * 3, (y * w + x) * 3 + 3);
    const known = new Uint8Array(w * h).fill(1);
    for (let y = 20; y < 80; y++) for (let x = 60; x < 140; x++) known[y * w + x] = 0;
    const out = fillFromBackground(rgb, known, w, h);
    // Well above and below the horizon, inside the hole, the colour of its own band.
    expect(out[(28 * w + 100) * 3]!).toBeGreaterThan(170);
    expect(out[(72 * w + 100) * 3]!).toBeLessThan(110);
  });
});
