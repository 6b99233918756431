import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { detectFaces } from "../../vision/human";
import { photo, raw, request, type Raw } from "../../shared/test-utils";
import { compose, HEIGHT, WIDTH, type Layer } from "./render";
import { render } from "./render";
import { check, inspect } from "./rules";
import sharp from "sharp";

const mean = (img: Raw, x0: number, y0: number, x1: number, y1: number) => {
  const acc = [0, 0, 0];
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++)
      for (let c = 0; c < 3; c++) acc[c]! += img.data[(y * img.width + x) * 3 + c]!;
  return acc.map((v) => v / ((x1 - x0) * (y1 - y0)));
};
const hue = ([r, g, b]: number[]) => (Math.atan2(Math.sqrt(3) * (g! - b!), 2 * r! - g! - b!) * 180) / Math.PI;
const hueGap = (a: number, b: number) => Math.min(Math.abs(a - b), 360 - Math.abs(a - b));
const corners = (img: Raw) => {
  const s = 40;
  const { width: w, height: h } = img;
  return [
    mean(img, 0, 0, s, s),
    mean(img, w - s, 0, w, s),
    mean(img, 0, h - s, s, h),
    mean(img, w - s, h - s, w, h),
  ];
};
const redOverBlue = (img: Raw) => {
  const m = mean(img, 0, 0, img.width, img.height);
  return m[0]! - m[2]!;
};

/** Both people of a pair drawn into the frame's layers, with their face sizes in the frame. */
async function layers(adultName: string, childName: string) {
  const adult = await photo(adultName, 700);
  const child = await photo(childName, 700);
  const people = await inspect(
    request("hug-my-younger-self", adult, {
      images: [
        { bytes: adult, mime: "image/png" },
        { bytes: child, mime: "image/png" },
      ],
    }),
  );
  const comp = await compose(people.adult, people.child);
  const face = (who: "adult" | "child") => {
    const { head } = people[who];
    const { k, y } = comp.placement[who];
    return { width: head.width * k, height: head.height * k, chin: y + (head.chin - head.cy) * k };
  };
  return { comp, adultFace: face("adult"), childFace: face("child") };
}

/** Coverage of a layer below a frame row (sum of alpha). */
const areaBelow = (l: Layer, row: number) => {
  let sum = 0;
  for (let i = Math.max(0, Math.ceil(row)) * WIDTH; i < WIDTH * HEIGHT; i++) sum += l.alpha[i]!;
  return sum;
};

/**
 * The longest straight run of hard alpha steps (over 0.6 within 2 pixels) along a row or a
 * column inside the frame: a photo's cut edge shows as a long straight one.
 */
function longestCut(l: Layer): number {
  const at = (x: number, y: number) => l.alpha[y * WIDTH + x]!;
  let longest = 0;
  for (let y = 0; y + 2 < HEIGHT; y++) {
    let run = 0;
    for (let x = 0; x < WIDTH; x++) {
      run = Math.abs(at(x, y) - at(x, y + 2)) > 0.6 ? run + 1 : 0;
      longest = Math.max(longest, run);
    }
  }
  for (let x = 0; x + 2 < WIDTH; x++) {
    let run = 0;
    for (let y = 0; y < HEIGHT; y++) {
      run = Math.abs(at(x, y) - at(x + 2, y)) > 0.6 ? run + 1 : 0;
      longest = Math.max(longest, run);
    }
  }
  return longest;
}

describe("hug-my-younger-self", () => {
  // Tight head-and-shoulder crops (cut at the neck) next to a childhood photo: the pairs that
  // used to float as lone heads.
  it.each([
    ["portrait-male-1.jpg", "child-2-girl-1860s-crop.jpg"],
    ["portrait-male-2.jpg", "child-2-girl-1860s-crop.jpg"],
  ])(
    "shows %s and %s each with head and body, touching, with no cut edge",
    async (a, c) => {
      const { comp, adultFace, childFace } = await layers(a, c);
      // Never a lone head: below each chin, at least 2.5 face areas of the person in the frame.
      expect(areaBelow(comp.adult, adultFace.chin)).toBeGreaterThan(2.5 * adultFace.width * adultFace.height);
      expect(areaBelow(comp.child, childFace.chin)).toBeGreaterThan(2.5 * childFace.width * childFace.height);
      // Together: the two people overlap by at least a fifth of the child's face area.
      let overlap = 0;
      for (let i = 0; i < WIDTH * HEIGHT; i++)
        overlap += Math.min(comp.adult.alpha[i]!, comp.child.alpha[i]!);
      expect(overlap).toBeGreaterThan(0.2 * childFace.width * childFace.height);
      // The child is child-sized, and drawn lower, against the adult.
      expect(childFace.height).toBeLessThan(adultFace.height);
      expect(comp.placement.child.y).toBeGreaterThan(comp.placement.adult.y);
      // No photo edge cuts a person in a straight line: every edge fades.
      expect(longestCut(comp.adult)).toBeLessThan(0.5 * adultFace.width);
      expect(longestCut(comp.child)).toBeLessThan(0.5 * childFace.width);
    },
    60_000,
  );

  it("refuses, before charging, a face-only crop (it would float as a lone head)", async () => {
    const full = await photo("portrait-female-1.jpg");
    // The face and hair only, cut just below the chin.
    const face = await sharp(full).extract({ left: 240, top: 120, width: 520, height: 570 }).png().toBuffer();
    const child = await photo("child-2-girl-1860s-crop.jpg", 500);
    const err = await check(
      request("hug-my-younger-self", face, {
        images: [
          { bytes: face, mime: "image/png" },
          { bytes: child, mime: "image/png" },
        ],
      }),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe("noShoulders");
    expect((err as EngineError).reason).toMatch(/^The first photo/);
  }, 60_000);

  it("puts today's face on the left and the child's on the right, leaning together on one warm background", async () => {
    const adult = await photo("portrait-male-1.jpg", 600);
    const child = await photo("child-2-girl-1860s-crop.jpg", 600);
    const out = await render(
      request("hug-my-younger-self", adult, {
        images: [
          { bytes: adult, mime: "image/png" },
          { bytes: child, mime: "image/png" },
        ],
      }),
    );
    const img = await raw(out.bytes);
    const { faces } = await detectFaces(out.bytes);
    expect(faces.length).toBe(2);
    const [left, right] = [...faces].sort((a, b) => a.box[0] - b.box[0]) as [
      (typeof faces)[0],
      (typeof faces)[0],
    ];
    const centre = (f: (typeof faces)[0]) => f.box[0] + f.box[2] / 2;
    expect(centre(left)).toBeLessThan(img.width / 2);
    expect(centre(right)).toBeGreaterThan(img.width / 2);
    // Leaning in: the faces are close, closer than their widths side by side (times 1.2).
    expect(centre(right) - centre(left)).toBeLessThan((left.box[2] + right.box[2]) * 1.2);
    // The child is shown smaller than the adult.
    expect(right.box[2]).toBeLessThan(left.box[2]);
    // One shared background: the four corners have about the same hue.
    const hues = corners(img).map(hue);
    for (const h of hues) expect(hueGap(h, hues[0]!)).toBeLessThan(30);
    // A black-and-white childhood photo: everything is toned one warm duotone.
    expect(redOverBlue(img)).toBeGreaterThan(10);
    // One grade: where each person shows alone, about the same colourfulness and hue.
    const people = await inspect(
      request("hug-my-younger-self", adult, {
        images: [
          { bytes: adult, mime: "image/png" },
          { bytes: child, mime: "image/png" },
        ],
      }),
    );
    const { adult: a, child: c } = await compose(people.adult, people.child);
    const tone = (own: Layer, other: Layer) => {
      const acc = [0, 0, 0];
      let chroma = 0;
      let n = 0;
      for (let i = 0; i < WIDTH * HEIGHT; i++) {
        if (own.alpha[i]! < 0.95 || other.alpha[i]! > 0.05) continue;
        const px = [0, 1, 2].map((k) => img.data[i * 3 + k]!);
        for (let k = 0; k < 3; k++) acc[k]! += px[k]!;
        chroma += Math.max(...px) - Math.min(...px);
        n++;
      }
      return { hue: hue(acc.map((v) => v / n)), chroma: chroma / n };
    };
    const [ta, tc] = [tone(a, c), tone(c, a)];
    expect(Math.abs(ta.chroma - tc.chroma)).toBeLessThan(10);
    expect(hueGap(ta.hue, tc.hue)).toBeLessThan(25);
  }, 60_000);

  it("lets the mood prompt change the background", async () => {
    const adult = await photo("portrait-female-1.jpg", 500);
    const child = await photo("child-2-girl-1860s-crop.jpg", 500);
    const images = [
      { bytes: adult, mime: "image/png" },
      { bytes: child, mime: "image/png" },
    ];
    const [snow, sunset] = await Promise.all(
      ["snow", "sunset"].map(async (prompt) =>
        raw((await render(request("hug-my-younger-self", adult, { images, prompt }))).bytes),
      ),
    );
    const a = corners(snow!);
    const b = corners(sunset!);
    // Top corners: clearly different colours (snow is cool, sunset is warm).
    const gap = Math.hypot(...a[0]!.map((v, c) => v - b[0]![c]!));
    expect(gap).toBeGreaterThan(40);
    expect(a[0]![2]! - a[0]![0]!).toBeGreaterThan(b[0]![2]! - b[0]![0]!);
  }, 60_000);

  it("says which photo has no face", async () => {
    const adult = await photo("portrait-male-1.jpg", 400);
    const meadow = await photo("landscape-1-meadow-cc0.jpg", 400);
    const err = await render(
      request("hug-my-younger-self", adult, {
        images: [
          { bytes: adult, mime: "image/png" },
          { bytes: meadow, mime: "image/png" },
        ],
      }),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe("noFace");
    expect((err as EngineError).reason).toMatch(/second photo/);
  }, 60_000);

  it("refuses, before charging, a childhood photo with several faces (the group would be pasted into the hug)", async () => {
    const adult = await photo("portrait-male-1.jpg", 400);
    const group = await photo("child-1-three-children-1860s.jpg", 800);
    const err = await check(
      request("hug-my-younger-self", adult, {
        images: [
          { bytes: adult, mime: "image/png" },
          { bytes: group, mime: "image/png" },
        ],
      }),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe("severalFaces");
    expect((err as EngineError).reason).toMatch(/^The second photo/);
  }, 60_000);
});
