import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { detectFaces } from "../../vision/human";
import { photo, raw, request, type Raw } from "../../shared/test-utils";
import { render } from "./render";
import { check } from "./rules";

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

describe("hug-my-younger-self", () => {
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
    // Warm grade: red over blue beyond both inputs.
    const inputs = [await raw(adult), await raw(child)].map(redOverBlue);
    expect(redOverBlue(img)).toBeGreaterThan(Math.max(...inputs) + 5);
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
