import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { detectFaces } from "../../vision/human";
import { photo, raw, request, type Raw } from "../../shared/test-utils";
import { oklab } from "../../shared/pixel-art";
import { featureBoxes } from "../../shared/face-features";
import { inPolygon } from "../../shared/mask";
import { MESH_OVAL } from "../../shared/mesh-parts";
import { drawIcon, OUTLINE, render } from "./render";
import { check, safety } from "./rules";

const alphaAt = (img: Raw, x: number, y: number) => img.data[(y * img.width + x) * 4 + 3]!;
const lumaAt = (img: Raw, x: number, y: number) => {
  const i = (y * img.width + x) * 4;
  return 0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!;
};

/** Share of the opaque pixels (or of those `where` allows) held by the `k` commonest colours. */
function topShare(img: Raw, k: number, where: (x: number, y: number) => boolean = () => true): number {
  const counts = new Map<number, number>();
  let total = 0;
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) {
      const i = (y * img.width + x) * 4;
      if (img.data[i + 3] !== 255 || !where(x, y)) continue;
      const key = (img.data[i]! << 16) | (img.data[i + 1]! << 8) | img.data[i + 2]!;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      total++;
    }
  const top = [...counts.values()].sort((a, b) => b - a).slice(0, k);
  return top.reduce((s, v) => s + v, 0) / Math.max(1, total);
}

describe("emoji-icon", () => {
  it.each(["portrait-male-2.jpg", "portrait-female-1.jpg"])(
    "makes a 512 px transparent icon of %s: face centred inside the cut-out, flat colours, bold dark outline",
    async (name) => {
      const input = await photo(name, 700);
      const bytes = (await render(request("emoji-icon", input))).bytes;
      const meta = await sharp(Buffer.from(bytes)).metadata();
      expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(["png", 512, 512, 4]);
      const out = await raw(bytes, 4);
      // Transparent background: all four corners.
      for (const [x, y] of [
        [0, 0],
        [511, 0],
        [0, 511],
        [511, 511],
      ] as const)
        expect(alphaAt(out, x, y)).toBe(0);

      // The cartoon face is found again, centred, and inside the cut-out: no face-mesh point
      // lies off the icon or under the outer half of the outline (a cut-out misaligned with
      // the picture puts part of the face there; half the outline's width is left for the
      // detector placing the cheek points of a turned face on the cut's edge). Human's box
      // is a padded square reaching past the head, so the mesh, not the box, is checked.
      const onWhite = await sharp(Buffer.from(bytes)).flatten({ background: "#ffffff" }).png().toBuffer();
      const { faces } = await detectFaces(onWhite);
      expect(faces.length).toBeGreaterThan(0);
      const [fx, fy, fw, fh] = faces[0]!.box;
      expect(Math.abs(fx + fw / 2 - 256)).toBeLessThan(512 * 0.05);
      expect(Math.abs(fy + fh / 2 - 256)).toBeLessThan(512 * 0.05);
      const clearance = (px: number, py: number) => {
        let best = Infinity;
        for (let y = Math.max(0, py - 30); y <= Math.min(511, py + 30); y++)
          for (let x = Math.max(0, px - 30); x <= Math.min(511, px + 30); x++)
            if (alphaAt(out, x, y) === 0) best = Math.min(best, Math.hypot(x - px, y - py));
        return best;
      };
      const nearest = Math.min(...faces[0]!.mesh.map(([x, y]) => clearance(Math.round(x), Math.round(y))));
      expect(nearest).toBeGreaterThan(OUTLINE / 2);

      // Flat colours: the 16 commonest colours cover nearly all the icon (anti-aliased edges
      // are the rest); the photo's texture would spread over thousands.
      expect(topShare(out, 16)).toBeGreaterThan(0.75);

      // Bold dark outline: walking in from the edge along rays towards the centre, the first
      // opaque pixels are dark for several pixels, all the way round.
      for (let k = 0; k < 36; k++) {
        const angle = (k / 36) * 2 * Math.PI;
        let r = 255;
        const at = (rr: number) => [
          Math.round(256 + rr * Math.cos(angle)),
          Math.round(256 + rr * Math.sin(angle)),
        ];
        while (r > 0 && alphaAt(out, at(r)[0]!, at(r)[1]!) < 255) r--;
        let dark = 0;
        while (r - dark > 0 && lumaAt(out, at(r - dark)[0]!, at(r - dark)[1]!) < 70) dark++;
        expect(dark, `ray ${k}`).toBeGreaterThanOrEqual(6);
      }
    },
    60_000,
  );

  it.each(["portrait-female-1.jpg", "old-bw-1-migrant-mother-1936.jpg"])(
    "draws %s's face as a few flat colours, not the photo's posterised shading",
    async (name) => {
      const { output, face } = await drawIcon(request("emoji-icon", await photo(name, 900)));
      const out = await raw(output.bytes, 4);
      // The skin inside the face oval (shrunk to 85 %), away from the drawn eyes, brows, nose
      // and mouth: skin, its one shade and the blush, with a few anti-aliased edge colours.
      const oval = MESH_OVAL.map((k) => face.mesh[k]!);
      const cx = oval.reduce((s, p) => s + p[0], 0) / oval.length;
      const cy = oval.reduce((s, p) => s + p[1], 0) / oval.length;
      const inner = oval.map(([x, y]): [number, number] => [cx + (x - cx) * 0.85, cy + (y - cy) * 0.85]);
      const boxes = featureBoxes(face, 0.03);
      const skinArea = (x: number, y: number) =>
        inPolygon(x + 0.5, y + 0.5, inner) &&
        !boxes.some(([bx, by, bw, bh]) => x >= bx && y >= by && x < bx + bw && y < by + bh);
      expect(topShare(out, 5, skinArea)).toBeGreaterThan(0.85);
      // Drawn eyes: white and a dark pupil in each.
      for (const [a, b] of [
        [33, 133],
        [263, 362],
      ] as const) {
        const ex = (face.mesh[a]![0] + face.mesh[b]![0]) / 2;
        const ey = (face.mesh[a]![1] + face.mesh[b]![1]) / 2;
        const r = Math.hypot(face.mesh[a]![0] - face.mesh[b]![0], face.mesh[a]![1] - face.mesh[b]![1]) * 0.5;
        let white = 0;
        let dark = 0;
        for (let y = Math.round(ey - r); y <= ey + r; y++)
          for (let x = Math.round(ex - r); x <= ex + r; x++) {
            const L = lumaAt(out, x, y);
            if (L > 245) white++;
            if (L < 60) dark++;
          }
        expect(white, `eye ${a}`).toBeGreaterThan(r * r * 0.3);
        expect(dark, `eye ${a}`).toBeGreaterThan(r * r * 0.2);
      }
    },
    60_000,
  );

  it("hand-colours a b/w print: the emoji's skin is warm, not grey", async () => {
    const { output, face } = await drawIcon(
      request("emoji-icon", await photo("old-bw-1-migrant-mother-1936.jpg", 900)),
    );
    const out = await raw(output.bytes, 4);
    // The forehead and the chin, off the blush and the features.
    for (const k of [151, 199]) {
      const [x, y] = face.mesh[k]!;
      const i = (Math.round(y) * out.width + Math.round(x)) * 4;
      const [, a, b] = oklab(out.data[i]!, out.data[i + 1]!, out.data[i + 2]!);
      expect(Math.hypot(a, b), `mesh ${k}`).toBeGreaterThan(0.04);
      expect(b, `mesh ${k}`).toBeGreaterThan(0.02);
    }
  }, 60_000);

  it.each(["portrait-female-1.jpg", "portrait-male-2.jpg"])(
    "puts %s's blush on the cheeks, never on the nose",
    async (name) => {
      const { output, face, blush } = await drawIcon(request("emoji-icon", await photo(name)));
      const out = await raw(output.bytes, 4);
      const at = (k: number) => face.mesh[k]!;
      const fw = Math.hypot(at(454)[0] - at(234)[0], at(454)[1] - at(234)[1]);
      const tip = at(1);
      // No blush pink on or around the nose tip.
      let pinkNearNose = 0;
      for (let y = Math.round(tip[1] - fw * 0.1); y <= tip[1] + fw * 0.1; y++)
        for (let x = Math.round(tip[0] - fw * 0.1); x <= tip[0] + fw * 0.1; x++) {
          const i = (y * out.width + x) * 4;
          // blush is a light pink (the mouth's dark red inside is not)
          const [L, a, b] = oklab(out.data[i]!, out.data[i + 1]!, out.data[i + 2]!);
          if (L > 0.65 && a > 0.06 && a > b * 1.5) pinkNearNose++;
        }
      expect(pinkNearNose).toBe(0);
      // The blush that is drawn sits inside the face oval, beside the nose, below the eyes.
      const oval = MESH_OVAL.map((k): [number, number] => [at(k)[0], at(k)[1]]);
      const eyes = (at(159)[1] + at(386)[1]) / 2;
      for (const [x, y] of blush) {
        expect(inPolygon(x, y, oval)).toBe(true);
        expect(Math.hypot(x - tip[0], y - tip[1])).toBeGreaterThan(fw * 0.18);
        expect(y).toBeGreaterThan(eyes);
      }
    },
    60_000,
  );

  it("gives the same bytes for the same photo and seed", async () => {
    const input = await photo("portrait-female-1.jpg", 600);
    const a = await render(request("emoji-icon", input));
    const b = await render(request("emoji-icon", input));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
  }, 60_000);

  it("refuses a profile before charging (the local engine draws both eyes), and draws a three-quarter face", async () => {
    const profile = request("emoji-icon", await photo("person-1-cameraman-bw.jpg"));
    for (const step of [() => check(profile), () => render(profile)]) {
      const err = await step().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EngineError);
      expect((err as EngineError).code).toBe("notFrontal");
    }
    // Any engine may draw a profile: only the local engine's rules refuse it.
    await expect(safety(profile)).resolves.toBeUndefined();
    await expect(
      check(request("emoji-icon", await photo("portrait-male-2.jpg", 600))),
    ).resolves.toBeUndefined();
  }, 60_000);

  it("refuses a photo without a face, clearly", async () => {
    const err = await render(request("emoji-icon", await photo("landscape-1-meadow-cc0.jpg", 500))).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).reason).toMatch(/No face/);
    expect((err as EngineError).code).toBe("noFace");
  }, 60_000);
});
