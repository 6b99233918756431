import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { photo, raw, request } from "../../shared/test-utils";
import { bustField, motionField, readLight, render } from "./render";
import { footprint, inspect } from "./rules";

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

  it("moves the garment by a visible amount in one smooth volume per side: one maximum, falling off along every ray, no fold, nothing beyond the form", async () => {
    const { region } = await inspect(consented(await photo(HOPPER)));
    const W = region.width;
    const mag = (x: number, y: number) => {
      const f = bustField(region, x, y);
      return Math.hypot(f.mx, f.my);
    };
    for (const side of [0, 1] as const) {
      // The maximum over the footprint (a grid of a hundredth of the shoulder width).
      let peak = 0;
      let at: [number, number] = region.centres[side];
      const [cx, cy] = region.centres[side];
      for (let y = cy - 0.4 * W; y <= cy + 0.3 * W; y += W / 100)
        for (let x = cx - 0.3 * W; x <= cx + 0.3 * W; x += W / 100) {
          if (footprint(region, side, x, y).q >= 1) continue;
          const m = mag(x, y);
          if (m > peak) [peak, at] = [m, [x, y]];
        }
      // Visible: at least 4 % of the shoulder width (about 2 mm on a phone's portrait).
      expect(peak / W, `side ${side}`).toBeGreaterThan(0.04);
      expect(peak / W, `side ${side}`).toBeLessThan(0.08);
      // One maximum and no ring: along 32 rays from it the motion never rises again (up to the
      // midline).
      for (let k = 0; k < 32; k++) {
        const [dx, dy] = [Math.cos((k * Math.PI) / 16), Math.sin((k * Math.PI) / 16)];
        let last = peak;
        for (let t = W / 200; t < 0.5 * W; t += W / 200) {
          const [x, y] = [at[0] + dx * t, at[1] + dy * t];
          // This side's half of the chest (across the midline the other side's volume rises).
          const across =
            (x - region.shoulderMid[0]) * region.along[0] + (y - region.shoulderMid[1]) * region.along[1];
          if ((side === 0 ? -across : across) < 0) break;
          const m = mag(x, y);
          expect(m, `side ${side}, ray ${k}, at ${t.toFixed(1)} px`).toBeLessThanOrEqual(last + peak * 0.005);
          last = m;
        }
      }
    }
    // Smooth and one-to-one: the map x -> x - m(x) never folds or pinches (Jacobian > 0.5).
    let minDet = Infinity;
    const [[ax, ay], [bx, by]] = region.centres;
    for (let y = Math.min(ay, by) - 0.45 * W; y <= Math.max(ay, by) + 0.35 * W; y += W / 60)
      for (let x = ax - 0.35 * W; x <= bx + 0.35 * W; x += W / 60) {
        const e = 0.5;
        const [fx1, fx0, fy1, fy0] = [
          bustField(region, x + e, y),
          bustField(region, x - e, y),
          bustField(region, x, y + e),
          bustField(region, x, y - e),
        ];
        const a = 1 - (fx1.mx - fx0.mx) / (2 * e);
        const b = -(fy1.mx - fy0.mx) / (2 * e);
        const c = -(fx1.my - fx0.my) / (2 * e);
        const d = 1 - (fy1.my - fy0.my) / (2 * e);
        minDet = Math.min(minDet, a * d - b * c);
        // Beyond both footprints nothing moves.
        if (footprint(region, 0, x, y).q >= 1 && footprint(region, 1, x, y).q >= 1) expect(mag(x, y)).toBe(0);
      }
    expect(minDet).toBeGreaterThan(0.5);
  }, 60_000);

  it("renders Hopper's portrait: a visible change on the chest only, the name tag and ribbon bar moved whole", async () => {
    const input = await photo(HOPPER);
    const req = consented(input);
    const { region, pieces, matte, src, face } = await inspect(req);
    const out = await raw((await render(req)).bytes);
    expect([out.width, out.height]).toEqual([src.width, src.height]);
    const W = region.width;
    const [[ax], [bx]] = region.centres;
    // The torso: between the shoulders, below the shoulder line.
    const shoulderY = region.shoulderMid[1];
    let changedOffTorso = 0;
    let diff = 0;
    let n = 0;
    for (let y = 0; y < src.height; y++)
      for (let x = 0; x < src.width; x++) {
        const i = (y * src.width + x) * 3;
        const d =
          Math.abs(out.data[i]! - src.data[i]!) +
          Math.abs(out.data[i + 1]! - src.data[i + 1]!) +
          Math.abs(out.data[i + 2]! - src.data[i + 2]!);
        const onTorso =
          matte.alpha[y * src.width + x]! > 0 && y > shoulderY && x > ax - 0.45 * W && x < bx + 0.45 * W;
        if (d > 0 && !onTorso) changedOffTorso++;
        if (footprint(region, 0, x, y).q < 0.8 || footprint(region, 1, x, y).q < 0.8) {
          diff += d / 3;
          n++;
        }
      }
    expect(changedOffTorso).toBe(0);
    // Visibly changed where the form is (dark navy cloth: the texture moves, the light changes).
    expect(diff / n).toBeGreaterThan(3);
    expect(diff / n).toBeLessThan(40);
    // The name tag and the ribbon bar are stiff pieces: each moves whole, by one displacement.
    expect(pieces.sizes.length).toBeGreaterThanOrEqual(2);
    const field = motionField(region, pieces, src.width, src.height, readLight(src, face));
    const [x0, y0, x1] = field.box;
    const fw = x1 - x0 + 1;
    const pw = pieces.box[2] - pieces.box[0] + 1;
    const spread = pieces.sizes.map(() => ({ min: [Infinity, Infinity], max: [-Infinity, -Infinity] }));
    for (let k = 0; k < pieces.label.length; k++) {
      const l = pieces.label[k]!;
      if (!l) continue;
      const j = (pieces.box[1] + Math.floor(k / pw) - y0) * fw + pieces.box[0] + (k % pw) - x0;
      const m = [field.mx[j]!, field.my[j]!];
      for (const c of [0, 1]) {
        spread[l - 1]!.min[c] = Math.min(spread[l - 1]!.min[c]!, m[c]!);
        spread[l - 1]!.max[c] = Math.max(spread[l - 1]!.max[c]!, m[c]!);
      }
    }
    for (const s of spread) for (const c of [0, 1]) expect(s.max[c]! - s.min[c]!).toBeLessThan(1e-3);
    // ... and it does move (down the torso with the form).
    expect(Math.max(...spread.map((s) => s.max[1]!))).toBeGreaterThan(2);
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
