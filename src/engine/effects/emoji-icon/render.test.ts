import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { detectFaces } from "../../vision/human";
import { distinctColors, photo, raw, request, type Raw } from "../../shared/test-utils";
import { OUTLINE, render } from "./render";

const alphaAt = (img: Raw, x: number, y: number) => img.data[(y * img.width + x) * 4 + 3]!;
const lumaAt = (img: Raw, x: number, y: number) => {
  const i = (y * img.width + x) * 4;
  return 0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!;
};

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

      // Flat cartoon colours: far fewer than the photo's.
      const src = await raw(input);
      expect(distinctColors(out)).toBeLessThan(distinctColors(src) / 100);

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

  it("gives the same bytes for the same photo and seed", async () => {
    const input = await photo("portrait-female-1.jpg", 600);
    const a = await render(request("emoji-icon", input));
    const b = await render(request("emoji-icon", input));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
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
