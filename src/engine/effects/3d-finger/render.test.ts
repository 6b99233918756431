import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { detectFaces } from "../../vision/human";
import { boxDetail, boxGray } from "../../shared/box-measures";
import { correlation, photo, raw, request, type Raw } from "../../shared/test-utils";
import { render } from "./render";
import { check } from "./rules";
import { ART, BASE, BOX, backdrop, HEIGHT, PALETTES, WIDTH } from "./scene";
import { mulberry32 } from "../../shared/random";

type Box = [number, number, number, number];

/**
 * Width of the run of dark, neutral (black acrylic) pixels through x = cx on row y. Gaps of a
 * dozen pixels (the rim's thin highlight line) do not end the run.
 */
function darkRun(img: Raw, y: number, cx: number): number {
  const dark = (x: number) => {
    const o = (y * img.width + x) * 3;
    const [r, g, b] = [img.data[o]!, img.data[o + 1]!, img.data[o + 2]!];
    return 0.299 * r + 0.587 * g + 0.114 * b < 70 && Math.max(r, g, b) - Math.min(r, g, b) < 20;
  };
  let left = Math.round(cx);
  let right = Math.round(cx);
  if (!dark(left)) return 0;
  const GAP = 14;
  const darkNear = (x: number, dir: number) => {
    for (let k = 1; k <= GAP + 1; k++)
      if (x + dir * k >= 0 && x + dir * k < img.width && dark(x + dir * k)) return k;
    return 0;
  };
  for (let k = darkNear(left, -1); k > 0; k = darkNear(left, -1)) left -= k;
  for (let k = darkNear(right, 1); k > 0; k = darkNear(right, 1)) right += k;
  return right - left + 1;
}

describe("3d-finger", () => {
  it("stands the stylised figure on a round base, before its box, on a wooden desk", async () => {
    const input = await photo("portrait-female-1.jpg", 700);
    const result = await render(request("3d-finger", input));
    expect([result.width, result.height]).toEqual([WIDTH, HEIGHT]);
    const out = await raw(result.bytes);

    // The figure: the person's face is found, above the base and centred on it.
    const { faces } = await detectFaces(result.bytes);
    const inArt = (f: (typeof faces)[number]) =>
      f.box[0] + f.box[2] / 2 > ART.x && f.box[0] + f.box[2] / 2 < ART.x + ART.width;
    const figure = faces.find((f) => !inArt(f));
    expect(figure).toBeDefined();
    const [fx, fy, fw, fh] = figure!.box;
    expect(Math.abs(fx + fw / 2 - BASE.cx)).toBeLessThan(BASE.rx * 0.5);
    expect(fy + fh).toBeLessThan(BASE.cy);

    // The base: black acrylic, as wide as the ellipse where its side is straight, then
    // narrowing like an ellipse's lower half.
    const { cx, cy, rx, ry, depth } = BASE;
    expect(darkRun(out, Math.round(cy + ry * 0.8), cx)).toBeGreaterThan(rx * 1.8);
    const mid = darkRun(out, Math.round(cy + depth + ry * 0.7), cx);
    expect(mid).toBeGreaterThan(rx * 1.2);
    expect(mid).toBeLessThan(rx * 1.65);
    expect(darkRun(out, Math.round(cy + depth + ry * 0.95), cx)).toBeLessThan(rx * 0.9);

    // The box's window shows the same figure, smaller: a second face, matching the first.
    const printed = faces.find(inArt);
    expect(printed).toBeDefined();
    expect(printed!.box[2]).toBeLessThan(fw);
    // The face's centre (inner 60 %: no backdrop), matched within a few pixels' shift.
    const inner = ([x, y, w, h]: Box, dx = 0, dy = 0): Box => [
      x + w * (0.2 + dx),
      y + h * (0.2 + dy),
      w * 0.6,
      h * 0.6,
    ];
    const ref = await boxGray(result.bytes, inner(figure!.box), 32);
    let best = -1;
    for (const dx of [-0.05, 0, 0.05])
      for (const dy of [-0.05, 0, 0.05])
        best = Math.max(best, correlation(ref, await boxGray(result.bytes, inner(printed!.box, dx, dy), 32)));
    expect(best).toBeGreaterThan(0.75);

    // The desk: warm wood colours in the bottom band.
    let [r, g, bl] = [0, 0, 0];
    for (let y = HEIGHT - 80; y < HEIGHT; y++)
      for (let x = 0; x < WIDTH; x++) {
        const o = (y * WIDTH + x) * 3;
        r += out.data[o]!;
        g += out.data[o + 1]!;
        bl += out.data[o + 2]!;
      }
    expect(r).toBeGreaterThan(g);
    expect(g).toBeGreaterThan(bl);
    expect((r - bl) / (80 * WIDTH)).toBeGreaterThan(40);

    // Painted plastic: the figure's face has less fine detail than the photo's.
    const source = (await detectFaces(input)).faces[0]!;
    expect(await boxDetail(result.bytes, figure!.box)).toBeLessThan(
      (await boxDetail(input, source.box)) * 0.8,
    );
  }, 60_000);

  it("is reproducible: same photo and seed, same bytes", async () => {
    const input = await photo("portrait-female-3-nasa.png", 400);
    const a = await render(request("3d-finger", input));
    const b = await render(request("3d-finger", input));
    expect(Buffer.compare(Buffer.from(a.bytes), Buffer.from(b.bytes))).toBe(0);
  }, 60_000);

  it("makes a figure of a pet or an object as well: something stands on the base and shows in the box", async () => {
    const input = await photo("pet-2-raccoon.jpg", 800);
    const result = await render(request("3d-finger", input));
    expect([result.width, result.height]).toEqual([WIDTH, HEIGHT]);
    const out = await raw(result.bytes);
    // Above the base's centre, and in the box's window, the raccoon's grey fur: many pixels
    // of low saturation and middling lightness, which neither the wall nor the desk has.
    const furShare = (x0: number, y0: number, x1: number, y1: number) => {
      let fur = 0;
      for (let y = y0; y < y1; y++)
        for (let x = x0; x < x1; x++) {
          const i = (y * out.width + x) * 3;
          const [r, g, b] = [out.data[i]!, out.data[i + 1]!, out.data[i + 2]!];
          const max = Math.max(r, g, b);
          if (max - Math.min(r, g, b) < 30 && max > 70 && max < 230) fur++;
        }
      return fur / ((x1 - x0) * (y1 - y0));
    };
    expect(furShare(BASE.cx - 120, BASE.cy - 220, BASE.cx + 120, BASE.cy - 20)).toBeGreaterThan(0.3);
    expect(
      furShare(ART.x + 60, ART.y + 100, ART.x + ART.width - 60, ART.y + ART.height - 100),
    ).toBeGreaterThan(0.2);
  }, 60_000);

  it("makes a figure of the whole object: the red cup with its saucer and spoon stands on the base", async () => {
    // The detector names only the cup; the old cut kept the coffee inside it.
    const req = request("3d-finger", await photo("object-coffee.png"));
    const out = await raw((await render(req)).bytes);
    const empty = await backdrop(mulberry32(req.seed)() % PALETTES.length);
    // The figure: above the base's top face, left of the box, what differs from the bare scene.
    let red = 0;
    let figure = 0;
    for (let y = 0; y < BASE.cy - BASE.ry; y++)
      for (let x = 0; x < BOX.x - 20; x++) {
        const i = (y * WIDTH + x) * 3;
        const [r, g, b] = [out.data[i]!, out.data[i + 1]!, out.data[i + 2]!];
        if (Math.abs(r - empty[i]!) + Math.abs(g - empty[i + 1]!) + Math.abs(b - empty[i + 2]!) <= 60)
          continue;
        figure++;
        if (r > 110 && r > 2 * g && r > 2 * b) red++;
      }
    expect(figure).toBeGreaterThan(50_000);
    expect(red / figure).toBeGreaterThan(0.3);
  }, 60_000);

  it("stands a whole group on the base: the figure reaches down to the disc, it does not float as heads", async () => {
    // Five women; the selfie matte alone found two heads and a few scraps.
    const req = request("3d-finger", await photo("old-damaged-2-daguerreotype-1850s.jpg"));
    const out = await raw((await render(req)).bytes);
    const empty = await backdrop(mulberry32(req.seed)() % PALETTES.length);
    // Just above the base's top face, across its middle: the figure, not the bare wall and desk.
    let covered = 0;
    let all = 0;
    for (let y = BASE.cy - BASE.ry - 60; y < BASE.cy - BASE.ry - 10; y++)
      for (let x = BASE.cx - BASE.rx * 0.6; x < BASE.cx + BASE.rx * 0.6; x++) {
        const i = (y * WIDTH + x) * 3;
        const d =
          Math.abs(out.data[i]! - empty[i]!) +
          Math.abs(out.data[i + 1]! - empty[i + 1]!) +
          Math.abs(out.data[i + 2]! - empty[i + 2]!);
        all++;
        if (d > 30) covered++;
      }
    expect(covered / all).toBeGreaterThan(0.8);
  }, 60_000);

  it("refuses, before charging, a photo without a clear subject", async () => {
    const err = await check(request("3d-finger", await photo("landscape-1-meadow-cc0.jpg", 500))).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe("noSubject");
    expect((err as EngineError).reason).toMatch(/No person, pet or object/);
  }, 60_000);
});
