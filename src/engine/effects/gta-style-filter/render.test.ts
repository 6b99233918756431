import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { sobel } from "../../shared/edges";
import { featureBoxes } from "../../shared/face-features";
import { MESH_EYES } from "../../shared/mesh-parts";
import { headGeometry, polygonMask } from "../../shared/hair/hair-region";
import { uniform } from "../../shared/random";
import { distinctColors, meanSaturation, photo, raw, request, type Raw } from "../../shared/test-utils";
import { detectFaces, personMatte } from "../../vision/human";
import { cutOutPeople } from "../../shared/subject";
import { labOf } from "../../shared/pixel-art";
import { EYE_WHITE, INK, POSTER_COLOURS, POSTER_EYE, render } from "./render";
import { chromaSpread } from "../../shared/print-damage";
import { SKIN_CHROMA_MAX, SKIN_CHROMA_MIN, warmSkin } from "./tone";

const isInk = (r: Raw, i: number) =>
  r.data[i * 3] === INK[0] && r.data[i * 3 + 1] === INK[1] && r.data[i * 3 + 2] === INK[2];

/**
 * A toned old print, seeded: a sepia picture of a few soft shapes, crossed by thin bright and
 * dark scratches (long, nearly straight) and sprinkled with dust. Returns the PNG and a mask of
 * the damage (the scratches' and specks' pixels).
 */
async function damagedSepiaPrint(seed: number) {
  const width = 900;
  const height = 660;
  const rand = uniform(seed);
  const tone = new Float32Array(width * height).fill(0.55);
  // Soft blobs: the picture's own forms, which should be outlined.
  for (let b = 0; b < 5; b++) {
    const cx = width * (0.15 + 0.7 * rand());
    const cy = height * (0.2 + 0.6 * rand());
    const rx = 60 + 90 * rand();
    const ry = 60 + 90 * rand();
    const v = rand() < 0.5 ? 0.25 : 0.85;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++)
        if (((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 < 1) tone[y * width + x] = v;
  }
  const blurred = await sharp(Buffer.from(tone.map((t) => Math.round(t * 255))), {
    raw: { width, height, channels: 1 },
  })
    .blur(3)
    .extractChannel(0)
    .raw()
    .toBuffer();
  const level = Float32Array.from(blurred);
  const damage = new Uint8Array(width * height);
  // Scratches: near-vertical and one crease across, 1 to 2 px wide, bright or dark.
  const lines = [
    ...Array.from({ length: 6 }, () => {
      const x = width * (0.1 + 0.8 * rand());
      return {
        x0: x,
        y0: height * 0.05 * rand(),
        x1: x + (rand() - 0.5) * 30,
        y1: height * (0.6 + 0.4 * rand()),
      };
    }),
    { x0: 0, y0: height * 0.7, x1: width - 1, y1: height * 0.71 },
  ];
  for (const [k, l] of lines.entries()) {
    const bright = k % 2 === 0;
    const len = Math.hypot(l.x1 - l.x0, l.y1 - l.y0);
    for (let t = 0; t <= len; t += 0.5) {
      const x = Math.round(l.x0 + ((l.x1 - l.x0) * t) / len);
      const y = Math.round(l.y0 + ((l.y1 - l.y0) * t) / len);
      for (let dx = 0; dx < 2; dx++) {
        const i = y * width + Math.min(width - 1, x + dx);
        level[i] = bright ? 245 : 25;
        damage[i] = 1;
      }
    }
  }
  // Dust: specks of 1 to 3 px radius.
  for (let d = 0; d < 60; d++) {
    const cx = Math.round(width * rand());
    const cy = Math.round(height * rand());
    const r = 1 + 2 * rand();
    const v = rand() < 0.5 ? 250 : 20;
    for (let y = Math.max(0, cy - 3); y <= Math.min(height - 1, cy + 3); y++)
      for (let x = Math.max(0, cx - 3); x <= Math.min(width - 1, cx + 3); x++)
        if (Math.hypot(x - cx, y - cy) <= r) {
          level[y * width + x] = v;
          damage[y * width + x] = 1;
        }
  }
  const rgb = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    // Sepia: one hue, the lightness varying.
    const l = level[i]! / 255;
    rgb[i * 3] = Math.round(255 * Math.min(1, l * 1.08 + 0.04));
    rgb[i * 3 + 1] = Math.round(255 * l * 0.9);
    rgb[i * 3 + 2] = Math.round(255 * l * 0.68);
  }
  const png = await sharp(rgb, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  return { png, damage, width, height };
}

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

  it("does not ink an old print's scratches, crease and dust", async () => {
    for (const seed of [3, 11]) {
      const { png, damage, width, height } = await damagedSepiaPrint(seed);
      const out = await raw((await render(request("gta-style-filter", png))).bytes);
      expect([out.width, out.height]).toEqual([width, height]);
      // Ink on the damage itself (or within 2 px of it), against the ink on the whole picture.
      let onDamage = 0;
      let damaged = 0;
      for (let y = 2; y < height - 2; y++)
        for (let x = 2; x < width - 2; x++) {
          if (!damage[y * width + x]) continue;
          damaged++;
          let inked = false;
          for (let dy = -2; dy <= 2 && !inked; dy++)
            for (let dx = -2; dx <= 2 && !inked; dx++) inked = isInk(out, (y + dy) * width + x + dx);
          if (inked) onDamage++;
        }
      let ink = 0;
      for (let i = 0; i < width * height; i++) if (isInk(out, i)) ink++;
      // The blobs are still outlined; the damage is not drawn (a line crossing an outline is touched there).
      expect(ink / (width * height), `seed ${seed}`).toBeGreaterThan(0.005);
      expect(onDamage / damaged, `seed ${seed}`).toBeLessThan(0.15);
    }
  }, 60_000);

  it("inks nothing inside a face but its eyes, brows, nose and mouth (a watermark's letters over it are not inked)", async () => {
    const input = await photo("watermark-6-mono-proof-portrait.jpg");
    const out = await raw((await render(request("gta-style-filter", input))).bytes);
    const src = await raw(input);
    expect([out.width, out.height]).toEqual([src.width, src.height]);
    const { faces } = await detectFaces({ data: src.data, width: src.width, height: src.height });
    expect(faces.length).toBeGreaterThan(0);
    const face = faces[0]!;
    const { oval } = headGeometry(face);
    const cx = oval.reduce((a, p) => a + p[0], 0) / oval.length;
    const cy = oval.reduce((a, p) => a + p[1], 0) / oval.length;
    // The oval without its rim (the jaw keeps its outline), minus the features' boxes.
    const inner = polygonMask(
      oval.map(([x, y]) => [cx + (x - cx) * 0.85, cy + (y - cy) * 0.85] as [number, number]),
      out.width,
      out.height,
    );
    const boxes = featureBoxes(face, 0.08);
    let area = 0;
    let ink = 0;
    for (let y = 0; y < out.height; y++)
      for (let x = 0; x < out.width; x++) {
        const i = y * out.width + x;
        if (!inner[i] || boxes.some(([bx, by, bw, bh]) => x >= bx && x <= bx + bw && y >= by && y <= by + bh))
          continue;
        area++;
        if (isInk(out, i)) ink++;
      }
    expect(area).toBeGreaterThan(1000);
    expect(ink / area).toBeLessThan(0.01);
    // The features are drawn: ink in the eyes' boxes.
    let eyeInk = 0;
    for (const [bx, by, bw, bh] of boxes.slice(0, 2))
      for (let y = Math.round(by); y < by + bh; y++)
        for (let x = Math.round(bx); x < bx + bw; x++) if (isInk(out, y * out.width + x)) eyeInk++;
    expect(eyeInk).toBeGreaterThan(50);
  }, 60_000);
  it("draws the mouth as a line, not a moustache: the skin between nose and upper lip stays uninked on small faces", async () => {
    // A waist-up portrait and a couple: faces 100-250 px wide, where the picture's stroke width
    // once joined the nose's shadow and the upper lip into one black block.
    for (const name of ["portrait-female-3-nasa.png", "couple-1-daguerreotype-1850s.jpg"]) {
      const input = await photo(name, 1200);
      const src = await raw(input);
      const out = await raw((await render(request("gta-style-filter", input))).bytes);
      expect([out.width, out.height]).toEqual([src.width, src.height]);
      const { faces } = await detectFaces({ data: src.data, width: src.width, height: src.height });
      expect(faces.length, name).toBeGreaterThan(0);
      for (const face of faces) {
        const m = face.mesh;
        const [lx, rx] = [Math.min(m[61]![0], m[291]![0]), Math.max(m[61]![0], m[291]![0])];
        const [top, lip] = [m[2]![1], m[0]![1]];
        let area = 0;
        let ink = 0;
        // The philtrum: the middle half of the mouth's width, from under the nose to above the lip.
        for (let y = Math.round(top + (lip - top) * 0.25); y <= lip - (lip - top) * 0.15; y++)
          for (let x = Math.round(lx + (rx - lx) * 0.25); x <= rx - (rx - lx) * 0.25; x++) {
            area++;
            if (isInk(out, y * out.width + x)) ink++;
          }
        expect(area, name).toBeGreaterThan(20);
        expect(ink / area, `${name}: ink between nose and lip`).toBeLessThan(0.25);
      }
      // The mouth is still drawn: ink along the seam of the lips.
      const face = faces[0]!;
      let seam = 0;
      for (const [u, l] of [
        [13, 14],
        [82, 87],
        [312, 317],
      ] as const) {
        const x = (face.mesh[u]![0] + face.mesh[l]![0]) / 2;
        const y = (face.mesh[u]![1] + face.mesh[l]![1]) / 2;
        for (let dy = -2; dy <= 2; dy++)
          for (let dx = -2; dx <= 2; dx++)
            if (isInk(out, (Math.round(y) + dy) * out.width + Math.round(x) + dx)) seam++;
      }
      expect(seam, `${name}: the lip line`).toBeGreaterThan(0);
    }
  }, 90_000);
  it("shades skin in a few flat cel tones (shadow, mid, highlight), not a stack of contour bands", async () => {
    for (const name of ["portrait-male-2.jpg", "portrait-female-1.jpg"]) {
      const input = await photo(name, 800);
      const out = await raw((await render(request("gta-style-filter", input))).bytes);
      const { faces } = await detectFaces({
        data: (await raw(input)).data,
        width: out.width,
        height: out.height,
      });
      const face = faces[0]!;
      const { oval } = headGeometry(face);
      const cx = oval.reduce((a, p) => a + p[0], 0) / oval.length;
      const cy = oval.reduce((a, p) => a + p[1], 0) / oval.length;
      const inner = polygonMask(
        oval.map(([x, y]) => [cx + (x - cx) * 0.85, cy + (y - cy) * 0.85] as [number, number]),
        out.width,
        out.height,
      );
      const boxes = featureBoxes(face, 0.08);
      // The colours of the cheeks, forehead and chin (no ink, no features), by area.
      const counts = new Map<number, number>();
      let area = 0;
      for (let y = 0; y < out.height; y++)
        for (let x = 0; x < out.width; x++) {
          const i = y * out.width + x;
          if (!inner[i] || isInk(out, i)) continue;
          if (boxes.some(([bx, by, bw, bh]) => x >= bx && x <= bx + bw && y >= by && y <= by + bh)) continue;
          const key = (out.data[i * 3]! << 16) | (out.data[i * 3 + 1]! << 8) | out.data[i * 3 + 2]!;
          counts.set(key, (counts.get(key) ?? 0) + 1);
          area++;
        }
      const top3 = [...counts.values()].sort((a, b) => b - a).slice(0, 3);
      expect(area, name).toBeGreaterThan(5000);
      expect(top3.reduce((a, b) => a + b, 0) / area, name).toBeGreaterThan(0.95);
      // Each of those tones is a warm skin colour (red over blue), not a grey.
      for (const [key, c] of counts)
        if (c > area * 0.1) expect((key >> 16) - (key & 255), name).toBeGreaterThan(30);
    }
  }, 60_000);

  it("paints the garment colours only on the people of a print, never a box of the ground beside them", async () => {
    // The cameraman bends over his tripod: the cut-out's body prior once kept a hard-edged box
    // of lawn under his camera, painted denim blue like his coat.
    const input = await photo("person-1-cameraman-bw.jpg");
    const src = await raw(input);
    const out = await raw((await render(request("gta-style-filter", input))).bytes);
    const matte = (await personMatte(src)).alpha;
    let ground = 0;
    let blue = 0;
    for (let y = Math.round(src.height * 0.55); y < src.height; y++)
      for (let x = 0; x < src.width; x++) {
        const i = y * src.width + x;
        if (matte[i]! > 16 || isInk(out, i)) continue;
        ground++;
        if (out.data[i * 3 + 2]! > out.data[i * 3]!) blue++;
      }
    expect(ground).toBeGreaterThan(5_000);
    expect(blue / ground, `${blue} of ${ground}`).toBeLessThan(0.03);
  }, 60_000);

  it("colours an old black-and-white print in a warm graded palette: warm skin, a coloured backdrop", async () => {
    const input = await photo("old-bw-1-migrant-mother-1936.jpg", 800);
    const src = await raw(input);
    expect(chromaSpread(src.data)).toBeLessThan(15);
    const out = await raw((await render(request("gta-style-filter", input))).bytes);
    expect(chromaSpread(out.data)).toBeGreaterThan(40);
    const { faces } = await detectFaces({ data: src.data, width: src.width, height: src.height });
    const [fx, fy, fw, fh] = faces[0]!.box;
    // The face's middle: warm (red well over blue, green between).
    let r = 0;
    let b = 0;
    let count = 0;
    for (let y = Math.round(fy + fh * 0.3); y < fy + fh * 0.7; y++)
      for (let x = Math.round(fx + fw * 0.3); x < fx + fw * 0.7; x++) {
        const i = y * out.width + x;
        if (isInk(out, i)) continue;
        r += out.data[i * 3]!;
        b += out.data[i * 3 + 2]!;
        count++;
      }
    expect((r - b) / count).toBeGreaterThan(35);
  }, 60_000);
  /**
   * A colour portrait turned into a small, faded sepia print (low contrast, soft, faces about a
   * tenth of the picture): the kind of photo whose eyes are too faint for edges to ink.
   */
  async function fadedSepia(name: string, side: number): Promise<Buffer> {
    return sharp(await photo(name))
      .resize(side, side, { fit: "inside" })
      .blur(1.2)
      .greyscale()
      .linear(0.45, 110)
      .recomb([
        [1.08, 0, 0],
        [0.98, 0, 0],
        [0.8, 0, 0],
      ])
      .png()
      .toBuffer();
  }

  it("draws every face's eyes, even on a faded print with small faces: ink in each eye's opening", async () => {
    const cases: Array<[string, Buffer]> = [
      ["torn sepia print", await photo("old-torn-1-sepia-three-children.jpg")],
      ["faded copy of a colour group", await fadedSepia("couple-1-daguerreotype-1850s.jpg", 900)],
      ["faded small portrait", await fadedSepia("portrait-female-1.jpg", 420)],
    ];
    for (const [label, input] of cases) {
      const src = await raw(input);
      const out = await raw((await render(request("gta-style-filter", input))).bytes);
      const { faces } = await detectFaces({ data: src.data, width: src.width, height: src.height });
      expect(faces.length, label).toBeGreaterThan(0);
      for (const [f, face] of faces.entries()) {
        const at = (k: number) => [face.mesh[k]![0], face.mesh[k]![1]] as [number, number];
        const widths = MESH_EYES.map((e) =>
          Math.hypot(at(e.inner)[0] - at(e.outer)[0], at(e.inner)[1] - at(e.outer)[1]),
        );
        for (const [k, e] of MESH_EYES.entries()) {
          if (widths[k]! < Math.max(...widths) * 0.6) continue; // turned away
          // The eye's opening, between its lids (grown a little about its middle).
          const contour = [at(e.outer), ...e.upper.map(at), at(e.inner), ...[...e.lower].reverse().map(at)];
          const cx = contour.reduce((a, p) => a + p[0], 0) / contour.length;
          const cy = contour.reduce((a, p) => a + p[1], 0) / contour.length;
          const inside = polygonMask(
            contour.map(([x, y]) => [cx + (x - cx) * 1.2, cy + (y - cy) * 1.4] as [number, number]),
            out.width,
            out.height,
          );
          let area = 0;
          let ink = 0;
          for (let i = 0; i < inside.length; i++)
            if (inside[i]) {
              area++;
              if (isInk(out, i)) ink++;
            }
          expect(area, `${label} face ${f} eye ${k}`).toBeGreaterThan(4);
          expect(ink / area, `${label} face ${f} eye ${k}: ink in the eye`).toBeGreaterThan(0.2);
        }
      }
    }
  }, 120_000);

  it("keeps a print's faces in skin colours: no disc of garment blue on a bright forehead or cheek", async () => {
    for (const [label, input] of [
      ["torn sepia print", await photo("old-torn-1-sepia-three-children.jpg")],
      ["faded copy of a colour group", await fadedSepia("couple-1-daguerreotype-1850s.jpg", 900)],
    ] as const) {
      const src = await raw(input);
      const out = await raw((await render(request("gta-style-filter", input))).bytes);
      const { faces } = await detectFaces({ data: src.data, width: src.width, height: src.height });
      expect(faces.length, label).toBeGreaterThan(0);
      for (const [f, face] of faces.entries()) {
        // The face from brow line up to the hairline and down to the chin, inside its oval.
        const { oval } = headGeometry(face);
        const inside = polygonMask(oval, out.width, out.height);
        let area = 0;
        let blue = 0;
        for (let i = 0; i < inside.length; i++) {
          if (!inside[i] || isInk(out, i)) continue;
          area++;
          if (out.data[i * 3 + 2]! > out.data[i * 3]!) blue++;
        }
        expect(area, label).toBeGreaterThan(500);
        expect(blue / area, `${label} face ${f}: blue inside the face`).toBeLessThan(0.01);
      }
    }
  }, 120_000);

  it("paints a simplified poster backdrop behind the people: few, big flat shapes, not a mottle", async () => {
    // The lawn behind the cameraman and the bokeh behind a night portrait were a mottle of small
    // flat patches (every blade and blur spot crossing a tone step). Measured: how often the
    // colour changes from one pixel to the next along the rows, away from the people and ink.
    const limits: Array<[string, number]> = [
      ["person-1-cameraman-bw.jpg", 0.0125],
      ["portrait-male-2.jpg", 0.0165],
    ];
    for (const [name, limit] of limits) {
      const input = await photo(name);
      const src = await raw(input);
      const out = await raw((await render(request("gta-style-filter", input))).bytes);
      const { width, height } = out;
      const matte = (await personMatte(src)).alpha;
      const near = await sharp(Buffer.from(matte), { raw: { width, height, channels: 1 } })
        .blur(Math.max(width, height) / 50)
        .extractChannel(0)
        .raw()
        .toBuffer();
      let pairs = 0;
      let changes = 0;
      for (let y = 0; y < height; y++)
        for (let x = 0; x + 1 < width; x++) {
          const i = y * width + x;
          if (near[i]! > 8 || near[i + 1]! > 8 || isInk(out, i) || isInk(out, i + 1)) continue;
          pairs++;
          const d = out.data;
          if (d[i * 3] !== d[i * 3 + 3] || d[i * 3 + 1] !== d[i * 3 + 4] || d[i * 3 + 2] !== d[i * 3 + 5])
            changes++;
        }
      expect(pairs, name).toBeGreaterThan(50_000);
      expect(changes / pairs, name).toBeLessThan(limit);
    }
  }, 120_000);

  it("spares everyone the person model finds from the backdrop, faces seen or not: the Migrant Mother's children", async () => {
    // Her children turn their faces away: only the mother's face is found. The backdrop was cut
    // round her alone and painted over them in its sunset ramp (a child's head as orange blobs,
    // another's as violet and orange). Measured on the model's people outside her cut-out: the
    // share in the people's colours (denim, blue-black, cream: OKLab a and b low), not the
    // backdrop's (violet, orange, yellow: a or b well up). HEAD had 14 % and 2 %.
    for (const name of ["old-toned-1-sepia-migrant-mother.jpg", "old-bw-1-migrant-mother-1936.jpg"]) {
      const input = await photo(name);
      const src = await raw(input);
      const out = await raw((await render(request("gta-style-filter", input))).bytes);
      const { width, height } = out;
      const { faces } = await detectFaces({ data: src.data, width, height });
      expect(faces.length, name).toBe(1);
      const matte = (await personMatte(src)).alpha;
      // The people the model finds outside the found face's own cut-out (its person).
      const hers = (await cutOutPeople({ data: src.data, width, height, channels: 3 }, faces))!.data;
      const lab = labOf(out.data, width * height);
      let people = 0;
      let garment = 0;
      for (let i = 0; i < width * height; i++) {
        if (matte[i]! < 96 || hers[i] || isInk(out, i)) continue;
        people++;
        if (lab[i * 3 + 1]! < 0.035 && lab[i * 3 + 2]! < 0.08) garment++;
      }
      expect(people, name).toBeGreaterThan(10_000);
      expect(garment / people, `${name}: ${garment} of ${people}`).toBeGreaterThan(0.4);
    }
  }, 120_000);

  it("draws a group's small eyes as eyes, not black bars: little ink across each eye's box", async () => {
    // Five women of a daguerreotype, eyes about 15 px wide: their inked sockets, lids and lashes
    // were one black bar each, sunglasses on every face.
    const input = await photo("old-damaged-2-daguerreotype-1850s.jpg", 1280);
    const src = await raw(input);
    const out = await raw((await render(request("gta-style-filter", input))).bytes);
    const { faces } = await detectFaces({ data: src.data, width: src.width, height: src.height });
    expect(faces.length).toBeGreaterThanOrEqual(4);
    for (const [f, face] of faces.entries())
      for (const [e, [bx, by, bw, bh]] of featureBoxes(face).slice(0, 2).entries()) {
        let ink = 0;
        let all = 0;
        for (let y = Math.max(0, Math.floor(by)); y < Math.min(out.height, by + bh); y++)
          for (let x = Math.max(0, Math.floor(bx)); x < Math.min(out.width, bx + bw); x++) {
            all++;
            if (isInk(out, y * out.width + x)) ink++;
          }
        expect(all).toBeGreaterThan(0);
        // A drawn eye (lid line and iris) inks about a third of its box; a black bar most of it.
        expect(ink / all, `face ${f} eye ${e}`).toBeLessThan(0.45);
      }
  }, 120_000);
  it("paints eyes big enough to read as poster eyes: a light eye white, a dark iris, a lid line (session 11)", async () => {
    // The picture's own ink made each eye a solid black bar (a squint's dark socket and lashes).
    for (const name of ["portrait-male-2.jpg", "portrait-female-1.jpg"]) {
      const input = await photo(name, 1000);
      const src = await raw(input);
      const out = await raw((await render(request("gta-style-filter", input))).bytes);
      const { faces } = await detectFaces({ data: src.data, width: src.width, height: src.height });
      expect(faces.length, name).toBeGreaterThan(0);
      let painted = 0;
      for (const face of faces) {
        const at = (k: number) => [face.mesh[k]![0], face.mesh[k]![1]] as [number, number];
        for (const [k, e] of MESH_EYES.entries()) {
          const ew = Math.hypot(at(e.inner)[0] - at(e.outer)[0], at(e.inner)[1] - at(e.outer)[1]);
          const open = Math.hypot(
            at(e.upper[3]!)[0] - at(e.lower[3]!)[0],
            at(e.upper[3]!)[1] - at(e.lower[3]!)[1],
          );
          if (ew < POSTER_EYE * 1.5 || open < ew * 0.25) continue;
          painted++;
          const contour = [at(e.outer), ...e.upper.map(at), at(e.inner), ...[...e.lower].reverse().map(at)];
          const inside = polygonMask(contour, out.width, out.height);
          let area = 0;
          let white = 0;
          let ink = 0;
          for (let i = 0; i < inside.length; i++)
            if (inside[i]) {
              area++;
              if (isInk(out, i)) ink++;
              const d = out.data;
              if (d[i * 3] === EYE_WHITE[0] && d[i * 3 + 1] === EYE_WHITE[1] && d[i * 3 + 2] === EYE_WHITE[2])
                white++;
            }
          const label = `${name} eye ${k}`;
          // Not a black bar: part of the opening is eye white (none before session 11).
          expect(white / area, `${label}: eye white`).toBeGreaterThan(0.12);
          expect(ink / area, `${label}: iris and lid`).toBeGreaterThan(0.15);
          // The upper lid is a line of ink along it.
          let lidInk = 0;
          for (const u of e.upper) {
            const [x, y] = at(u);
            let hit = false;
            for (let dy = -2; dy <= 2 && !hit; dy++)
              for (let dx = -2; dx <= 2; dx++)
                if (isInk(out, (Math.round(y) + dy) * out.width + Math.round(x) + dx)) hit = true;
            if (hit) lidInk++;
          }
          expect(lidInk / e.upper.length, `${label}: lid line`).toBeGreaterThan(0.8);
        }
      }
      expect(painted, name).toBeGreaterThan(0);
    }
  }, 120_000);

  it("keeps a wall the person model spilled onto out of the people's colours: the torn print's wall between heads (session 11)", async () => {
    // The person matte covers the plain wall above the girls' heads; the cut-out's GrabCut takes
    // it away, but the matte's people were joined back in and painted the wall garment denim.
    // Measured where the cut-out's first guess said person, GrabCut did not and the model is not
    // sure: the share in the
    // people's colours (OKLab a and b low), not the backdrop ramp's. HEAD had 97 %.
    const input = await photo("old-torn-1-sepia-three-children.jpg");
    const src = await raw(input);
    const out = await raw((await render(request("gta-style-filter", input))).bytes);
    const { width, height } = out;
    const { faces } = await detectFaces({ data: src.data, width, height });
    type Small = { data: Uint8Array; width: number; height: number };
    const found: { rejected?: Small; matte?: Small } = {};
    await cutOutPeople({ data: src.data, width, height, channels: 3 }, faces, found);
    const r = found.rejected!;
    const lab = labOf(out.data, width * height);
    let wall = 0;
    let garment = 0;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        const s = Math.min(r.height - 1, Math.floor((y * r.height) / height)) * r.width;
        const j = s + Math.min(r.width - 1, Math.floor((x * r.width) / width));
        // Where the model is not sure (where it is, the person stays: GrabCut can be wrong).
        if (!r.data[j] || found.matte!.data[j]! >= 192 || isInk(out, i)) continue;
        wall++;
        if (lab[i * 3 + 1]! < 0.035 && lab[i * 3 + 2]! < 0.08) garment++;
      }
    expect(wall).toBeGreaterThan(5_000);
    expect(garment / wall, `${garment} of ${wall}`).toBeLessThan(0.35);
  }, 120_000);

  it("brings a colour photo's skin to a poster tan's colour: no neon orange, no grey (session 11)", () => {
    // An orange-lit face (OKLab chroma 0.17) was left neon; a grey one raised to a tan.
    const lab = Float32Array.from([0.7, 0.12, 0.12, 0.7, 0.01, 0.01, 0.2, 0.12, 0.12]);
    warmSkin(lab, 3, Uint8Array.from([255, 255, 255]));
    const chroma = (i: number) => Math.hypot(lab[i * 3 + 1]!, lab[i * 3 + 2]!);
    expect(chroma(0)).toBeLessThanOrEqual(SKIN_CHROMA_MAX + 1e-6);
    expect(chroma(1)).toBeGreaterThanOrEqual(SKIN_CHROMA_MIN - 1e-6);
    // A dark part of the skin region (a beard) keeps its own colour.
    expect(chroma(2)).toBeCloseTo(Math.hypot(0.12, 0.12), 5);
  });
});
