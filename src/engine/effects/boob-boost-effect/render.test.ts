import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { photo, raw, request } from "../../shared/test-utils";
import { personMatte } from "../../vision/human";
import { bustField, render } from "./render";
import { inspect } from "./rules";

const consented = (bytes: Uint8Array) =>
  request("boob-boost-effect", bytes, { options: { adultConsent: true } });
const refusal = async (bytes: Uint8Array) => {
  const err = await render(consented(bytes)).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
};

describe("boob-boost-effect", () => {
  it("warps only the bust region found from the shoulders, subtly, and leaves every other pixel alone", async () => {
    const input = await photo("portrait-female-3-nasa.png");
    const req = consented(input);
    const { region } = await inspect(req);
    const out = await raw((await render(req)).bytes);
    const src = await raw(input);
    expect([out.width, out.height]).toEqual([src.width, src.height]);

    const inRegion = (x: number, y: number) =>
      region.centres.some(([cx, cy]) => Math.hypot(x - cx, y - cy) < region.radius);
    let changedOutside = 0;
    let diffInside = 0;
    let inside = 0;
    for (let y = 0; y < src.height; y++)
      for (let x = 0; x < src.width; x++) {
        const i = (y * src.width + x) * 3;
        const d =
          Math.abs(out.data[i]! - src.data[i]!) +
          Math.abs(out.data[i + 1]! - src.data[i + 1]!) +
          Math.abs(out.data[i + 2]! - src.data[i + 2]!);
        if (inRegion(x, y)) {
          diffInside += d / 3;
          inside++;
        } else if (d > 0) changedOutside++;
      }
    expect(changedOutside).toBe(0);
    // Visibly changed inside, but not a repaint.
    expect(diffInside / inside).toBeGreaterThan(8);
    expect(diffInside / inside).toBeLessThan(60);
    // The region sits on the chest: below the face, within the frame.
    for (const [, cy] of region.centres) expect(cy).toBeGreaterThan(src.height * 0.6);
  }, 60_000);

  it("accepts a chest-up photo of one adult cut near the bust line, and keeps the warp on the torso", async () => {
    for (const name of ["portrait-female-4-hopper-navy.jpg", "watermark-6-mono-proof-portrait.jpg"]) {
      const input = await photo(name);
      const req = consented(input);
      const { region, src } = await inspect(req);
      const out = await raw((await render(req)).bytes);
      const matte = await personMatte(src);
      let changed = 0;
      let offPerson = 0;
      let outside = 0;
      for (let y = 0; y < src.height; y++)
        for (let x = 0; x < src.width; x++) {
          const i = (y * src.width + x) * 3;
          if (
            out.data[i] === src.data[i] &&
            out.data[i + 1] === src.data[i + 1] &&
            out.data[i + 2] === src.data[i + 2]
          )
            continue;
          changed++;
          if (matte.alpha[y * src.width + x]! <= 128) offPerson++;
          if (!region.centres.some(([cx, cy]) => Math.hypot(x - cx, y - cy) < region.radius)) outside++;
        }
      // A visible edit, all of it inside the discs and on the person (the torso, not the flag or wall).
      expect(changed, name).toBeGreaterThan(region.radius ** 2);
      expect(outside, name).toBe(0);
      expect(offPerson / changed, name).toBeLessThan(0.01);
      // Below the face, each centre inside the frame, the discs apart on either side of the midline.
      const chin = Math.max(...(await inspect(req)).face.mesh.map((p) => p[1]));
      for (const [cx, cy] of region.centres) {
        expect(cy, name).toBeGreaterThan(chin + region.radius);
        expect(cy, name).toBeLessThan(src.height);
        expect(cx - region.radius, name).toBeGreaterThan(0);
      }
    }
  }, 60_000);

  it("makes a change a user sees at phone size: a warp of a few % of the shoulder width, and shading of the form", async () => {
    for (const name of ["portrait-female-3-nasa.png", "portrait-female-4-hopper-navy.jpg"]) {
      const input = await photo(name);
      const req = consented(input);
      const { region, src } = await inspect(req);
      const out = await raw((await render(req)).bytes);
      const matte = await personMatte(src);
      // The discs' radius is 0.2 shoulder widths (rules.ts).
      const shoulderWidth = region.radius / 0.2;
      let moved = 0;
      let count = 0;
      // Lightness change where the field lights the form up, and where it shades it (on the person).
      let lit = 0;
      let litN = 0;
      let shaded = 0;
      let shadedN = 0;
      let shadedBase = 0;
      const light = (d: Uint8Array | Buffer, i: number) =>
        0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;
      for (const [cx, cy] of region.centres)
        for (let y = Math.ceil(cy - region.radius); y <= cy + region.radius; y++)
          for (let x = Math.ceil(cx - region.radius); x <= cx + region.radius; x++) {
            if (Math.hypot(x - cx, y - cy) >= region.radius || y >= src.height) continue;
            const f = bustField(region, x, y);
            moved += Math.hypot(f.dx, f.dy);
            count++;
            if (matte.alpha[y * src.width + x]! < 250) continue;
            const i = (y * src.width + x) * 3;
            const d = light(out.data, i) - light(src.data, i);
            if (f.shade > 1.1) {
              lit += d;
              litN++;
            } else if (f.shade < 0.85) {
              shaded += d;
              shadedBase += light(src.data, i);
              shadedN++;
            }
          }
      expect(moved / count / shoulderWidth, name).toBeGreaterThan(0.02);
      // Each side of the form is visibly lighter or darker, not a hint: the highlight by some
      // levels even on dark cloth, the shadow by a tenth of the cloth's own lightness.
      if (litN > 50) expect(lit / litN, name).toBeGreaterThan(4);
      if (shadedN > 50) expect(shaded / shadedBase, name).toBeLessThan(-0.1);
      expect(litN + shadedN, name).toBeGreaterThan(100);
    }
  }, 60_000);

  it("refuses both child fixture photos as possibly showing a minor", async () => {
    for (const name of ["child-1-three-children-1860s.jpg", "child-2-girl-1860s-crop.jpg"]) {
      const err = await refusal(await photo(name));
      expect(err.code, name).toBe("mayBeMinor");
      expect(err.reason).toMatch(/under 18/);
    }
  }, 60_000);

  it("refuses when it cannot place the region: no face, several people, or shoulders out of frame", async () => {
    expect((await refusal(await photo("landscape-1-meadow-cc0.jpg", 600))).code).toBe("noFace");
    expect((await refusal(await photo("couple-1-daguerreotype-1850s.jpg", 900))).code).toBe("severalFaces");
    // A head-and-shoulders crop: the chest is not in the picture.
    const err = await refusal(await photo("portrait-female-1.jpg", 700));
    expect(err.code).toBe("noUpperBody");
    expect(err.reason).toMatch(/shoulders and chest/);
  }, 60_000);

  it("refuses a mother with children on her shoulders whose faces are turned away (nobody else may be in the photo)", async () => {
    for (const name of ["old-bw-1-migrant-mother-1936.jpg", "old-toned-1-sepia-migrant-mother.jpg"]) {
      const err = await refusal(await photo(name));
      expect(err.code, name).toBe("severalPeople");
    }
  }, 60_000);

  it("requires the confirmation that the person is an adult who consented", async () => {
    const err = await render(request("boob-boost-effect", await photo("portrait-female-3-nasa.png"))).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).reason).toMatch(/adult who consented/);
  }, 60_000);
});
