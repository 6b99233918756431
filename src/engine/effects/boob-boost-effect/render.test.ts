import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { photo, raw, request } from "../../shared/test-utils";
import sharp from "sharp";
import { render } from "./render";
import { inspect } from "./rules";
import { warpAt, warpCoords } from "./warp";

const HOPPER = "portrait-female-4-hopper-navy.jpg";

const consented = (bytes: Uint8Array) =>
  request("boob-boost-effect", bytes, { options: { adultConsent: true } });
const refusal = async (bytes: Uint8Array) => {
  const err = await render(consented(bytes)).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
};

describe("boob-boost-effect", () => {
  it("accepts a chest-up portrait (Grace Hopper, and her watermarked copy) and places the form a third of the way down the torso", async () => {
    for (const name of [HOPPER, "watermark-6-mono-proof-portrait.jpg"]) {
      const { region, src } = await inspect(consented(await photo(name)));
      const [a, b] = region.centres;
      // Both fullest points level with each other, either side of the midline, on the chest.
      expect(Math.abs(a[1] - b[1]), name).toBeLessThan(region.width * 0.05);
      expect(b[0] - a[0], name).toBeGreaterThan(region.width * 0.3);
      for (const [x, y] of region.centres) {
        expect(x, name).toBeGreaterThan(0);
        expect(x, name).toBeLessThan(src.width);
        // Anatomical height: 0.25-0.45 of the shoulder-to-hip distance below the shoulder line,
        // the torso 1.1-1.9 shoulder widths long.
        const [mx, my] = region.shoulderMid;
        const below = ((x - mx) * region.down[0] + (y - my) * region.down[1]) / region.torso;
        expect(region.torso / region.width, name).toBeGreaterThanOrEqual(1.1);
        expect(region.torso / region.width, name).toBeLessThanOrEqual(1.9);
        expect(below, name).toBeGreaterThanOrEqual(0.25);
        expect(below, name).toBeLessThanOrEqual(0.45);
      }
    }
  }, 60_000);

  it("warps like a liquify bloat: a visible push outward from each side's fullest point, smooth and one-to-one, nothing moving beyond the supports or above the shoulders, insignia carried without bending", async () => {
    const { region, pieces } = await inspect(consented(await photo(HOPPER)));
    const W = region.width;
    const mag = (x: number, y: number) => Math.hypot(...warpAt(region, x, y));
    for (const side of [0, 1] as const) {
      // The largest motion over the side's support (a grid of a hundredth of the shoulder width).
      let peak = 0;
      const [cx, cy] = region.centres[side];
      for (let y = cy - 0.45 * W; y <= cy + 0.35 * W; y += W / 100)
        for (let x = cx - 0.65 * W; x <= cx + 0.65 * W; x += W / 100) peak = Math.max(peak, mag(x, y));
      // Visible (several % of the shoulder width), never cartoonish.
      expect(peak / W, `side ${side}`).toBeGreaterThan(0.04);
      expect(peak / W, `side ${side}`).toBeLessThan(0.09);
      // Outward: towards the arm, the content moves away from the midline; below the fullest
      // point, down.
      const out = side === 0 ? -1 : 1;
      const [mx] = warpAt(region, cx + out * 0.3 * W * region.along[0], cy + out * 0.3 * W * region.along[1]);
      expect(mx * out, `side ${side}`).toBeGreaterThan(0.02 * W);
      const [, my] = warpAt(region, cx + 0.15 * W * region.down[0], cy + 0.15 * W * region.down[1]);
      expect(my, `side ${side}`).toBeGreaterThan(0.01 * W);
    }
    // Smooth and one-to-one: the map x -> x - m(x) never folds or pinches (Jacobian > 0.5);
    // nothing moves outside both supports, nor anywhere above the shoulder line.
    let minDet = Infinity;
    const [[ax, ay], [bx, by]] = region.centres;
    for (let y = Math.min(ay, by) - 0.7 * W; y <= Math.max(ay, by) + 0.4 * W; y += W / 60)
      for (let x = ax - 0.7 * W; x <= bx + 0.7 * W; x += W / 60) {
        const e = 0.5;
        const [px1, px0, py1, py0] = [
          warpAt(region, x + e, y),
          warpAt(region, x - e, y),
          warpAt(region, x, y + e),
          warpAt(region, x, y - e),
        ];
        const a = 1 - (px1[0] - px0[0]) / (2 * e);
        const b = -(py1[0] - py0[0]) / (2 * e);
        const c = -(px1[1] - px0[1]) / (2 * e);
        const d = 1 - (py1[1] - py0[1]) / (2 * e);
        minDet = Math.min(minDet, a * d - b * c);
        if (warpCoords(region, 0, x, y).q >= 1 && warpCoords(region, 1, x, y).q >= 1)
          expect(mag(x, y)).toBe(0);
        const above =
          (x - region.shoulderMid[0]) * region.down[0] + (y - region.shoulderMid[1]) * region.down[1];
        if (above < 0) expect(mag(x, y)).toBe(0);
      }
    expect(minDet).toBeGreaterThan(0.5);
    // The name tag and the ribbon bar ride the warp as flat plates: over each, the motion departs
    // from its best affine map (a plate shifted, scaled and tilted with the surface) by under
    // 1.5 % of the shoulder width (no bend, no kink; 5 px on Hopper's 378 px shoulders).
    expect(pieces.sizes.length).toBeGreaterThanOrEqual(2);
    const pw = pieces.box[2] - pieces.box[0] + 1;
    for (let l = 1; l <= pieces.sizes.length; l++) {
      const pts: number[][] = [];
      for (let k = 0; k < pieces.label.length; k++)
        if (pieces.label[k] === l) {
          const x = pieces.box[0] + (k % pw);
          const y = pieces.box[1] + Math.floor(k / pw);
          pts.push([x, y, ...warpAt(region, x, y)]);
        }
      const mean = (f: (p: number[]) => number) => pts.reduce((s, p) => s + f(p), 0) / pts.length;
      const [cx, cy] = [mean((p) => p[0]!), mean((p) => p[1]!)];
      const [sxx, syy, sxy] = [
        mean((p) => (p[0]! - cx) ** 2),
        mean((p) => (p[1]! - cy) ** 2),
        mean((p) => (p[0]! - cx) * (p[1]! - cy)),
      ];
      const det = sxx * syy - sxy * sxy;
      // Least squares, per motion component c: m ≈ mean + b·(x − cx) + d·(y − cy).
      const fit = [2, 3].map((c) => {
        const m = mean((p) => p[c]!);
        const sxm = mean((p) => (p[0]! - cx) * (p[c]! - m));
        const sym = mean((p) => (p[1]! - cy) * (p[c]! - m));
        return [m, (sxm * syy - sym * sxy) / det, (sym * sxx - sxm * sxy) / det] as const;
      });
      const worst = Math.max(
        ...pts.map((p) =>
          Math.hypot(...fit.map(([m, b, d], i) => p[2 + i]! - (m + b * (p[0]! - cx) + d * (p[1]! - cy)))),
        ),
      );
      expect(worst / W, `piece ${l}`).toBeLessThan(0.015);
      // ... and it does move, with the form.
      expect(Math.hypot(fit[0]![0], fit[1]![0]), `piece ${l}`).toBeGreaterThan(0.02 * W);
    }
  }, 60_000);

  it("renders Hopper's portrait: the jacket's outline pushed outward over the flag, the face and the background away from the torso untouched", async () => {
    const input = await photo(HOPPER);
    const req = consented(input);
    const { region, matte, src, face, shift } = await inspect(req);
    const out = await raw((await render(req)).bytes);
    expect([out.width, out.height]).toEqual([src.width, src.height]);
    const W = region.width;
    const { width, height } = src;
    const px = (d: Buffer, x: number, y: number) => {
      const i = (y * width + x) * 3;
      return [d[i]!, d[i + 1]!, d[i + 2]!] as const;
    };
    const diff = (x: number, y: number) => {
      const [a, b] = [px(src.data, x, y), px(out.data, x, y)];
      return Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1]), Math.abs(a[2] - b[2]));
    };
    // The jacket's outline on the left (the first dark navy pixels after the flag's red and
    // white stripes), row by row: moved outward (never inward) by a visible amount.
    const navy = (d: Buffer, x: number, y: number) =>
      [0, 1, 2].every((k) => px(d, x + k, y).reduce((s, v) => s + v) < 150);
    const edge = (d: Buffer, y: number) => {
      for (let x = 0; x < width / 3; x++) if (navy(d, x, y)) return x;
      return -1;
    };
    let moved = 0;
    for (let y = Math.round(region.shoulderMid[1]); y < height; y += 5) {
      const [before, after] = [edge(src.data, y), edge(out.data, y)];
      if (before < 0) continue;
      expect(after, `row ${y}`).toBeLessThanOrEqual(before);
      moved = Math.max(moved, before - after);
    }
    expect(moved / W).toBeGreaterThan(0.02);
    // The warp's largest motion on the person, which the pre-charge check measured.
    expect(shift / W).toBeGreaterThan(0.04);
    // The face (the mesh's box) and everything above the shoulders: pixel-exact.
    const xs = face.mesh.map((p) => p[0]);
    const ys = face.mesh.map((p) => p[1]);
    for (let y = Math.max(0, Math.floor(Math.min(...ys))); y < Math.min(height, Math.max(...ys)); y++)
      for (let x = Math.max(0, Math.floor(Math.min(...xs))); x < Math.min(width, Math.max(...xs)); x++)
        expect(diff(x, y)).toBe(0);
    let changedAbove = 0;
    for (let y = 0; y < Math.min(...region.centres.map((c) => c[1])) - 0.45 * W; y++)
      for (let x = 0; x < width; x++) if (diff(x, y)) changedAbove++;
    expect(changedAbove).toBe(0);
    // Off the person, a pixel changes only where the outline moved over it: within the largest
    // motion (plus 2 px of anti-aliasing) of the person's matte.
    const reach = Math.ceil(shift) + 2;
    const person = (x: number, y: number) => matte.alpha[y * width + x]! > 0;
    let changedBackground = 0;
    let visible = 0;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const d = diff(x, y);
        if (d > 10) visible++;
        if (!d || person(x, y)) continue;
        changedBackground++;
        let near = false;
        for (let yy = Math.max(0, y - reach); yy <= Math.min(height - 1, y + reach) && !near; yy++)
          for (let xx = Math.max(0, x - reach); xx <= Math.min(width - 1, x + reach); xx++)
            if (person(xx, yy)) {
              near = true;
              break;
            }
        expect(near, `background at ${x},${y}`).toBe(true);
      }
    expect(changedBackground).toBeGreaterThan(0);
    // Visibly changed: well over a (0.1 W)² patch's worth of pixels by more than 10 levels.
    expect(visible).toBeGreaterThan((0.1 * W) ** 2 * 10);
  }, 60_000);

  it("refuses a person too small in the frame for the change to show (changeNotVisible), before charging", async () => {
    // Hopper's portrait at the bottom of a large plain canvas: the same pose and crop, a fifth
    // of the photo's width (its warp would move about 0.9 % of the photo's width; a canvas of
    // 2000 px, 1.06 %, is accepted).
    const inset = await photo(HOPPER);
    const big = await sharp({ create: { width: 2400, height: 2400, channels: 3, background: "#7fa3d6" } })
      .composite([{ input: inset, left: 944, top: 1800 }])
      .png()
      .toBuffer();
    const err = await inspect(consented(big)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe("changeNotVisible");
    expect((err as EngineError).reason).toMatch(/barely show/);
  }, 60_000);

  it("refuses a chest covered by something stiff (a spacesuit's straps, hose and badge), before charging", async () => {
    const err = await inspect(consented(await photo("portrait-female-3-nasa.png"))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe("chestCovered");
    expect((err as EngineError).reason).toMatch(/stiff/);
  }, 60_000);

  it("refuses head-and-shoulders crops that end at the neckline as chestOutOfFrame, whoever they show", async () => {
    for (const name of ["portrait-female-1.jpg", "portrait-male-1.jpg", "portrait-male-2.jpg"]) {
      const err = await refusal(await photo(name));
      expect(err.code, name).toBe("chestOutOfFrame");
      expect(err.reason, name).toMatch(/ends above the chest/);
    }
  }, 60_000);

  it("refuses a person turned sideways (the cameraman) as bodyTurned", async () => {
    const err = await refusal(await photo("person-1-cameraman-bw.jpg"));
    expect(err.code).toBe("bodyTurned");
  }, 60_000);

  it("refuses children as possibly minors, and a group of adults as several faces (not as a minor)", async () => {
    for (const name of [
      "child-1-three-children-1860s.jpg",
      "child-2-girl-1860s-crop.jpg",
      "old-torn-1-sepia-three-children.jpg",
    ]) {
      const err = await refusal(await photo(name));
      expect(err.code, name).toBe("mayBeMinor");
      expect(err.reason).toMatch(/under 18/);
    }
    for (const name of ["old-damaged-2-daguerreotype-1850s.jpg", "couple-1-daguerreotype-1850s.jpg"]) {
      const err = await refusal(await photo(name, name.startsWith("couple") ? 900 : undefined));
      expect(err.code, name).toBe("severalFaces");
    }
  }, 90_000);

  it("refuses a photo without a face", async () => {
    expect((await refusal(await photo("landscape-1-meadow-cc0.jpg", 600))).code).toBe("noFace");
  }, 60_000);

  it("refuses a mother with children on her shoulders whose faces are turned away (nobody else may be in the photo)", async () => {
    for (const name of ["old-bw-1-migrant-mother-1936.jpg", "old-toned-1-sepia-migrant-mother.jpg"]) {
      const err = await refusal(await photo(name));
      expect(err.code, name).toBe("severalPeople");
    }
  }, 60_000);

  it("requires the confirmation that the person is an adult who consented", async () => {
    const err = await render(request("boob-boost-effect", await photo(HOPPER))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).reason).toMatch(/adult who consented/);
  }, 60_000);
});
