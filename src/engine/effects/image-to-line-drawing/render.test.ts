import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { photo, raw, request, texturedScene } from "../../shared/test-utils";
import { sobel } from "../../shared/edges";
import { uniform } from "../../shared/random";
import { decodeRaw } from "../../shared/image-io";
import { detectFaces } from "../../vision/human";
import { featureBoxes, type Box } from "../../shared/face-features";
import { render } from "./render";
import { traceLines } from "./lines";
import { animalScene, outlineCovered, paperArea, reachable } from "../../shared/animal-scene.test-helper";

/** Grey levels of a rendered drawing. */
async function drawing(input: Buffer) {
  const out = await render(request("image-to-line-drawing", input));
  const img = await raw(out.bytes);
  const gray = new Uint8Array(img.width * img.height);
  for (let i = 0; i < gray.length; i++) gray[i] = img.data[i * 3]!;
  return { gray, width: img.width, height: img.height };
}

/** A grey image (w x h) from a function of the pixel, as PNG. */
function synthetic(w: number, h: number, value: (x: number, y: number) => number, colour = [1, 1, 1]) {
  const data = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const v = value(x, y);
      for (let c = 0; c < 3; c++)
        data[(y * w + x) * 3 + c] = Math.max(0, Math.min(255, Math.round(v * colour[c]!)));
    }
  return sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

/** Both eyes and the mouth of a face (the shared feature boxes: eyes first, lips last). */
function eyesAndMouth(face: Parameters<typeof featureBoxes>[0]): { eyes: Box[]; mouth: Box } | null {
  const boxes = featureBoxes(face);
  if (!boxes.length) return null;
  return { eyes: [boxes[0]!, boxes[1]!], mouth: boxes[5]! };
}

describe("image-to-line-drawing", () => {
  it("draws clean dark lines on white that follow the input's edges, unlike a plain threshold", async () => {
    const input = await photo("pet-1-cat.png");
    const out = await render(request("image-to-line-drawing", input));
    const img = await raw(out.bytes);
    const src = await sharp(input)
      .resize(img.width, img.height, { fit: "fill" })
      .grayscale()
      .raw()
      .toBuffer();
    const n = img.width * img.height;
    const gray = new Uint8Array(n);
    for (let i = 0; i < n; i++)
      gray[i] = Math.round((img.data[i * 3]! + img.data[i * 3 + 1]! + img.data[i * 3 + 2]!) / 3);

    const white = gray.filter((v) => v >= 230).length / n;
    expect(white).toBeGreaterThanOrEqual(0.85);

    // Dark pixels sit on strong input edges (within 2 px).
    const { mag } = sobel(src, img.width, img.height);
    const sorted = Float64Array.from(mag).sort();
    const strong = sorted[Math.floor(sorted.length * 0.8)]!;
    let dark = 0;
    let onEdge = 0;
    for (let y = 2; y < img.height - 2; y++)
      for (let x = 2; x < img.width - 2; x++) {
        if (gray[y * img.width + x]! >= 100) continue;
        dark++;
        let best = 0;
        for (let dy = -2; dy <= 2; dy++)
          for (let dx = -2; dx <= 2; dx++) best = Math.max(best, mag[(y + dy) * img.width + x + dx]!);
        if (best >= strong) onEdge++;
      }
    expect(dark).toBeGreaterThan(n * 0.005);
    expect(onEdge / dark).toBeGreaterThan(0.8);

    // A plain global threshold of the photo would look very different.
    let agree = 0;
    for (let i = 0; i < n; i++) if (gray[i]! < 128 === src[i]! < 100) agree++;
    expect(agree / n).toBeLessThan(0.9);
  });

  it("draws a shape's contour but not the fine texture around it", async () => {
    // A flat dark disc on a field of fine random texture (blobs of a few pixels, like fur or
    // grass), seeded.
    const W = 1000;
    const H = 750;
    const rnd = uniform(11);
    const cw = 250;
    const ch = 188;
    const cells = new Float32Array(cw * ch).map(() => rnd());
    const noise = await sharp(Buffer.from(Uint8Array.from(cells, (v) => Math.round(v * 255))), {
      raw: { width: cw, height: ch, channels: 1 },
    })
      .resize(W, H, { fit: "fill", kernel: "cubic" })
      .extractChannel(0)
      .raw()
      .toBuffer();
    const [cx, cy, r] = [500, 375, 200];
    const input = await synthetic(W, H, (x, y) =>
      Math.hypot(x - cx, y - cy) < r ? 45 : 150 + (noise[y * W + x]! - 128) * 0.7,
    );
    const { gray, width } = await drawing(input);
    let contour = 0;
    let texture = 0;
    let textureArea = 0;
    const angles = new Set<number>();
    for (let i = 0; i < gray.length; i++) {
      const x = i % width;
      const y = (i - x) / width;
      const d = Math.abs(Math.hypot(x - cx, y - cy) - r);
      const outside = Math.hypot(x - cx, y - cy) > r + 25;
      if (outside) textureArea++;
      if (gray[i]! >= 128) continue;
      if (d <= 8) {
        contour++;
        angles.add(Math.floor(((Math.atan2(y - cy, x - cx) + Math.PI) / (2 * Math.PI)) * 72));
      } else if (outside) texture++;
    }
    // The contour goes most of the way round (texture touching it can break it in places);
    // the texture, many times its area, gets far
    // less ink than the contour.
    expect(angles.size).toBeGreaterThanOrEqual(54);
    expect(texture).toBeLessThan(contour * 0.5);
    expect(texture / textureArea).toBeLessThan(0.01);
  });

  it("on dense grass blades draws the subject's contour, not the blades", async () => {
    // A cream disc on thousands of seeded grass blades (the previous engine drew the disc and
    // about 25 ragged blobs of grass: 3 % of the background inked, twice the contour's ink).
    const scene = await texturedScene(900, 600, 150);
    const { gray, width, height } = await drawing(scene.bytes);
    const k = width / 900;
    const [cx, cy, r] = [scene.cx * k, scene.cy * k, scene.r * k];
    let round = 0;
    for (let a = 0; a < 360; a++) {
      const [c, s] = [Math.cos((a * Math.PI) / 180), Math.sin((a * Math.PI) / 180)];
      for (let d = -4; d <= 4; d++) {
        const x = Math.round(cx + c * (r + d));
        const y = Math.round(cy + s * (r + d));
        if (gray[y * width + x]! < 128) {
          round++;
          break;
        }
      }
    }
    expect(round / 360).toBeGreaterThan(0.9);
    let contour = 0;
    let texture = 0;
    let textureArea = 0;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const d = Math.hypot(x - cx, y - cy);
        const ink = gray[y * width + x]! < 128;
        if (Math.abs(d - r) <= 6) contour += ink ? 1 : 0;
        else if (d > r + 6) {
          textureArea++;
          if (ink) texture++;
        }
      }
    expect(texture / textureArea).toBeLessThan(0.01);
    expect(texture).toBeLessThan(contour * 0.5);
  }, 60_000);

  it("does not draw a thin bright scratch across an old print, but draws the print's shapes", async () => {
    // Sepia-toned: a soft dark rounded shape, a long bright 2 px scratch across the picture
    // and a second one down it, both away from the shape.
    const W = 1000;
    const H = 750;
    const input = await synthetic(
      W,
      H,
      (x, y) => {
        const inside = x > 300 && x < 650 && y > 260 && y < 560;
        let v = inside ? 80 : 175 - y * 0.04;
        if (Math.abs(y - 150) <= 1) v = 245;
        if (Math.abs(x - 820) <= 1) v = 240;
        return v;
      },
      [1.0, 0.86, 0.66],
    );
    const { gray, width, height } = await drawing(input);
    let onScratch = 0;
    let scratchLength = 0;
    for (let x = 40; x < width - 40; x++) {
      if (x > 800 && x < 840) continue;
      scratchLength++;
      let ink = false;
      for (let y = 144; y <= 156; y++) if (gray[y * width + x]! < 128) ink = true;
      if (ink) onScratch++;
    }
    let onVertical = 0;
    for (let y = 40; y < height - 40; y++) {
      let ink = false;
      for (let x = 814; x <= 826; x++) if (gray[y * width + x]! < 128) ink = true;
      if (ink) onVertical++;
    }
    expect(onScratch / scratchLength).toBeLessThan(0.05);
    expect(onVertical / (height - 80)).toBeLessThan(0.05);
    // The shape's top edge is drawn along most of its length.
    let onShape = 0;
    for (let x = 320; x < 630; x++) {
      let ink = false;
      for (let y = 254; y <= 266; y++) if (gray[y * width + x]! < 128) ink = true;
      if (ink) onShape++;
    }
    expect(onShape / 310).toBeGreaterThan(0.8);
  });

  it("keeps a face's eyes and mouth drawn", async () => {
    const input = await photo("portrait-female-1.jpg");
    const { gray, width, height } = await drawing(input);
    const src = await decodeRaw(input, { channels: 3, flatten: true, maxSide: 1280 });
    const { faces } = await detectFaces({ data: src.data, width: src.width, height: src.height });
    expect(faces.length).toBeGreaterThan(0);
    const parts = eyesAndMouth(faces[0]!);
    expect(parts).not.toBeNull();
    const k = width / src.width;
    const inkIn = ([bx, by, bw, bh]: [number, number, number, number]) => {
      let ink = 0;
      let all = 0;
      for (let y = Math.floor(by * k); y < Math.min(height, (by + bh) * k); y++)
        for (let x = Math.floor(bx * k); x < Math.min(width, (bx + bw) * k); x++) {
          all++;
          if (gray[y * width + x]! < 128) ink++;
        }
      return ink / all;
    };
    for (const box of [...parts!.eyes, parts!.mouth]) expect(inkIn(box)).toBeGreaterThan(0.03);
    // ...while the cheek between an eye and the mouth stays mostly paper.
    const [ex, ey, ew, eh] = parts!.eyes[0]!;
    const [, my] = parts!.mouth;
    const cheek: [number, number, number, number] = [
      ex,
      ey + eh * 1.5,
      ew * 0.6,
      Math.max(4, my - ey - eh * 2),
    ];
    expect(inkIn(cheek)).toBeLessThan(inkIn(parts!.mouth));
  });
});

describe("an animal among foliage", () => {
  it("is drawn with a bold closed silhouette along its outline and its eyes as closed ovals, the foliage mostly gone", async () => {
    const { w, h, rgb, mask, eyes } = await animalScene();
    const lines = await traceLines(Buffer.from(rgb), w, h, {
      subject: mask,
      features: new Uint8Array(w * h),
      people: false,
    });
    const bold = (x: number, y: number) => x >= 0 && y >= 0 && x < w && y < h && lines[y * w + x] === 2;
    // The bold contour follows the outline within 3 px for most of its length...
    expect(outlineCovered(mask, w, h, 3, bold)).toBeGreaterThan(0.85);
    // ...and is closed: the paper outside cannot reach the animal's middle.
    expect(reachable(w, h, (x, y) => !bold(x, y), 380, 390)).toBe(false);
    // Each eye is ringed: the paper round its centre (or the oval's ink there) is an eye-sized
    // closed region, not the head's.
    for (const [ex, ey] of eyes)
      expect(paperArea(w, h, (x, y) => !lines[y * w + x], ex, ey, 20_000)).toBeLessThan(
        4 * 13 * 13 * Math.PI,
      );
    // Outside the animal, the grass gets little ink.
    let ink = 0;
    let out = 0;
    for (let i = 0; i < w * h; i++)
      if (!mask[i]) {
        out++;
        if (lines[i]) ink++;
      }
    expect(ink / out).toBeLessThan(0.005);
  }, 60_000);
});
