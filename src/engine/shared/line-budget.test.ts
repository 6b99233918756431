import { describe, expect, it } from "vitest";
import {
  densityMap,
  dropIslands,
  dropScraps,
  isTextured,
  refineSubject,
  salientSpots,
  TEXTURED,
} from "./line-budget";
import { opencv } from "./opencv";
import { uniform } from "./random";

/** Sets the pixels of a polyline (1 px, nearest) in a w-wide mask. */
function stroke(mask: Uint8Array, w: number, points: Array<[number, number]>) {
  for (let k = 1; k < points.length; k++) {
    const [x0, y0] = points[k - 1]!;
    const [x1, y1] = points[k]!;
    const steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1);
    for (let t = 0; t <= steps; t++)
      mask[Math.round(y0 + ((y1 - y0) * t) / steps) * w + Math.round(x0 + ((x1 - x0) * t) / steps)] = 1;
  }
}

/** A circle's outline as a closed polyline. */
function ring(cx: number, cy: number, r: number): Array<[number, number]> {
  const points: Array<[number, number]> = [];
  for (let a = 0; a <= 64; a++)
    points.push([cx + r * Math.cos((a * Math.PI) / 32), cy + r * Math.sin((a * Math.PI) / 32)]);
  return points;
}

const count = (m: Uint8Array, x0: number, y0: number, x1: number, y1: number, w: number) => {
  let n = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) n += m[y * w + x] ? 1 : 0;
  return n;
};

describe("dropScraps", () => {
  const [w, h] = [300, 200];
  const lengths = { detail: 6, subject: 15, background: 40, texture: 80 };

  it("keeps pieces long enough for where they lie: a face's short detail, the subject's contour; drops background scraps", () => {
    const edges = new Uint8Array(w * h);
    stroke(edges, w, [
      [20, 20],
      [20, 150],
    ]); // background, long: kept
    stroke(edges, w, [
      [60, 20],
      [60, 40],
    ]); // background, 21 px: a scrap
    stroke(edges, w, [
      [200, 50],
      [200, 70],
    ]); // subject, 21 px: kept
    stroke(edges, w, [
      [250, 100],
      [257, 100],
    ]); // face detail, 8 px: kept
    const subject = new Uint8Array(w * h);
    const detail = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 150; x < w; x++) subject[y * w + x] = 255;
    for (let y = 90; y < 110; y++) for (let x = 240; x < 270; x++) detail[y * w + x] = 1;
    const keep = dropScraps(edges, w, h, {
      subject,
      detail,
      density: new Float32Array(w * h),
      textureDensity: 0.5,
      lengths,
    });
    expect(count(keep, 15, 20, 25, 151, w)).toBe(131);
    expect(count(keep, 55, 15, 65, 45, w)).toBe(0);
    expect(count(keep, 195, 45, 205, 75, w)).toBe(21);
    expect(count(keep, 245, 95, 262, 105, w)).toBe(8);
  });

  it("needs longer pieces where edges are dense, and drops a wandering scribble by its coherence", () => {
    const edges = new Uint8Array(w * h);
    stroke(edges, w, [
      [20, 30],
      [80, 30],
    ]); // 61 px in dense texture: under the texture minimum
    stroke(edges, w, [
      [20, 150],
      [130, 150],
    ]); // 111 px, coherent: kept
    stroke(edges, w, [
      [180, 150],
      [290, 150],
    ]); // 111 px, but incoherent (a scribble's measure): dropped
    const density = new Float32Array(w * h).fill(0.3);
    const coherence = new Float32Array(w * h).fill(0.9);
    for (let x = 180; x <= 290; x++) coherence[150 * w + x] = 0.2;
    const keep = dropScraps(edges, w, h, {
      subject: null,
      detail: new Uint8Array(w * h),
      density,
      textureDensity: 0.2,
      lengths,
      coherence: { values: coherence, dense: 0.55, sparse: 0.4 },
    });
    expect(count(keep, 0, 25, w, 35, w)).toBe(0);
    expect(count(keep, 0, 145, 150, 155, w)).toBe(111);
    expect(count(keep, 150, 145, w, 155, w)).toBe(0);
  });
});

describe("dropIslands", () => {
  it("drops a short scrap ringing a speck of paper too small to colour, keeps big rings and a face's small features", () => {
    const [w, h] = [300, 200];
    const lines = new Uint8Array(w * h);
    stroke(lines, w, ring(50, 50, 6)); // a speck ringed by a scrap
    stroke(lines, w, ring(150, 100, 60)); // a region to colour
    stroke(lines, w, ring(260, 40, 6)); // an eye, on a face's detail
    const exempt = new Uint8Array(w * h);
    for (let y = 25; y < 55; y++) for (let x = 245; x < 275; x++) exempt[y * w + x] = 1;
    dropIslands(lines, w, h, { minArea: 400, maxPiece: 100, exempt });
    expect(count(lines, 40, 40, 60, 60, w)).toBe(0);
    expect(count(lines, 85, 35, 215, 165, w)).toBeGreaterThan(300);
    expect(count(lines, 250, 30, 270, 50, w)).toBeGreaterThan(30);
  });
});

describe("isTextured", () => {
  it("is true when over the share of the picture has dense edges", () => {
    const density = new Float32Array(1000);
    density.fill(0.5, 0, Math.round(1000 * TEXTURED.share) - 10);
    expect(isTextured(density, 0.2)).toBe(false);
    density.fill(0.5, 0, Math.round(1000 * TEXTURED.share) + 10);
    expect(isTextured(density, 0.2)).toBe(true);
  });

  it("measures density as the share of edge pixels around each pixel", () => {
    const mask = new Uint8Array(100);
    mask.fill(1, 0, 50); // the top half of a 10 x 10 mask
    const d = densityMap(mask, 10, 10, 1);
    expect(d[2 * 10 + 5]).toBe(1);
    expect(d[7 * 10 + 5]).toBe(0);
    expect(d[5 * 10 + 5]).toBeCloseTo(1 / 3, 5);
  });
});

/** A seeded synthetic "animal among leaves": grey fur (noise) filling the top-left, touching the frame, green leaves (stripes) right and below. */
function furAmongLeaves(w: number, h: number) {
  const rnd = uniform(3);
  const data = new Uint8Array(w * h * 3);
  const fur = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      if (x < w * 0.7 && y < h * 0.65 + 20 * Math.sin(x / 25)) {
        fur[y * w + x] = 1;
        const v = 110 + rnd() * 110;
        data.set([v, v, v * 1.02], i);
      } else {
        const light = Math.floor((x + y * 0.6) / 14) % 2 === 0;
        data.set(light ? [90, 190, 60] : [20, 70, 25], i);
      }
    }
  return { data, fur };
}

describe("refineSubject", () => {
  it("completes a cut that kept only the middle of an animal running out of the frame, without taking the leaves", async () => {
    const [w, h] = [400, 300];
    const { data, fur } = furAmongLeaves(w, h);
    // The first cut: a disc in the middle of the fur (what GrabCut keeps when the frame-wide
    // detection box leaves it no background but the animal's own fur).
    const cut = new Uint8Array(w * h);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) if (Math.hypot(x - 140, y - 100) < 45) cut[y * w + x] = 255;
    const refined = await refineSubject(
      { data: Buffer.from(data), width: w, height: h, channels: 3 },
      { data: cut, width: w, height: h },
    );
    let furIn = 0;
    let furAll = 0;
    let leavesIn = 0;
    let leavesAll = 0;
    for (let i = 0; i < w * h; i++) {
      if (fur[i]) {
        furAll++;
        if (refined[i]! >= 128) furIn++;
      } else {
        leavesAll++;
        if (refined[i]! >= 128) leavesIn++;
      }
    }
    let cutIn = 0;
    for (let i = 0; i < w * h; i++) if (cut[i] && fur[i]) cutIn++;
    expect(cutIn / furAll).toBeLessThan(0.2);
    expect(furIn / furAll).toBeGreaterThan(0.85);
    expect(leavesIn / leavesAll).toBeLessThan(0.1);
  });
});

describe("salientSpots", () => {
  it("outlines the dark and light spots of the subject (eye patches, a nose), not those off it", async () => {
    const { cv } = await opencv();
    const [w, h] = [440, 300];
    const rgb = new Uint8Array(w * h * 3).fill(150);
    const disc = (cx: number, cy: number, r: number, v: number) => {
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++)
          if (Math.hypot(x - cx, y - cy) <= r) rgb.fill(v, (y * w + x) * 3, (y * w + x) * 3 + 3);
    };
    disc(100, 120, 14, 30); // dark, on the subject
    disc(200, 120, 14, 250); // light, on the subject
    disc(360, 150, 14, 30); // dark, off the subject
    const subject = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < 280; x++) subject[y * w + x] = 255;
    const flat = cv.matFromArray(h, w, cv.CV_8UC3, rgb);
    try {
      const spots = await salientSpots(flat, w, h, subject);
      expect(count(spots, 80, 100, 120, 140, w)).toBeGreaterThan(40);
      expect(count(spots, 180, 100, 220, 140, w)).toBeGreaterThan(40);
      expect(count(spots, 330, 120, 390, 180, w)).toBe(0);
      // Outlines, not filled blobs: the spots' centres stay empty.
      expect(count(spots, 95, 115, 105, 125, w)).toBe(0);
    } finally {
      flat.delete();
    }
  });
});
