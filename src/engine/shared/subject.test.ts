import { describe, expect, it } from "vitest";
import { decodePortrait } from "./face-rules";
import { photo } from "./test-utils";
import { cutOutPeople } from "./subject";
import { detectFaces } from "../vision/human";
import type { Mask } from "./mask";

/** Share of the box's inner 60 % (the face, no backdrop) that the mask covers. */
function faceCover(mask: Mask, [x, y, w, h]: [number, number, number, number]): number {
  let on = 0;
  let all = 0;
  for (let j = Math.round(y + h * 0.2); j < y + h * 0.8; j++)
    for (let i = Math.round(x + w * 0.2); i < x + w * 0.8; i++) {
      all++;
      on += mask.data[j * mask.width + i]!;
    }
  return on / all;
}

describe("cutOutPeople", () => {
  it("keeps every face of a group photo the selfie matte half misses, and not the backdrop above them", async () => {
    const src = await decodePortrait(await photo("old-damaged-2-daguerreotype-1850s.jpg"), 1024);
    const { faces } = await detectFaces(src);
    expect(faces.length).toBe(5);
    const mask = (await cutOutPeople(src, faces))!;
    for (const f of faces) expect(faceCover(mask, f.box)).toBeGreaterThan(0.95);
    // The plain backdrop above the heads: the top tenth of the photo is left out.
    const top = Math.round(src.height * 0.1);
    let on = 0;
    for (let i = 0; i < src.width * top; i++) on += mask.data[i]!;
    expect(on / (src.width * top)).toBeLessThan(0.05);
  }, 60_000);

  it("cuts the children out of a torn sepia print without the backdrop the matte spills onto above their heads", async () => {
    const src = await decodePortrait(await photo("old-torn-1-sepia-three-children.jpg"), 1024);
    const { faces } = await detectFaces(src);
    expect(faces.length).toBe(3);
    const mask = (await cutOutPeople(src, faces))!;
    for (const f of faces) expect(faceCover(mask, f.box)).toBeGreaterThan(0.95);
    // Above each head (its box's middle half, higher than the hair reaches), the wall, not
    // the bare paper of the torn-off corner: left out (the selfie matte alone kept 61 % of it
    // above the girl on the right).
    let wall = 0;
    let kept = 0;
    for (const [x, y, w, h] of faces.map((f) => f.box))
      for (let j = 0; j < y - h * 0.35; j++)
        for (let i = Math.round(x + w / 4); i < x + (w * 3) / 4; i++) {
          const k = j * src.width + i;
          if (Math.min(src.data[k * 3]!, src.data[k * 3 + 1]!, src.data[k * 3 + 2]!) > 225) continue;
          wall++;
          kept += mask.data[k]!;
        }
    expect(wall).toBeGreaterThan(5000);
    expect(kept / wall).toBeLessThan(0.1);
  }, 60_000);
});
