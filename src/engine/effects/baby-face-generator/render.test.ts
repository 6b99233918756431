import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { photo, raw, request, type Raw } from "../../shared/test-utils";
import { render, OUTPUT } from "./render";

const images = (...bytes: Uint8Array[]) => ({ images: bytes.map((b) => ({ bytes: b, mime: "image/png" })) });

/** Mean colour of the baby's forehead (the head's upper middle, clear of eyes, hair and blush). */
function forehead(img: Raw): [number, number, number] {
  const s = [0, 0, 0];
  let n = 0;
  for (let y = Math.round(OUTPUT * 0.3); y < OUTPUT * 0.36; y++)
    for (let x = Math.round(OUTPUT * 0.44); x < OUTPUT * 0.56; x++, n++)
      for (let c = 0; c < 3; c++) s[c]! += img.data[(y * img.width + x) * 3 + c]!;
  return s.map((v) => v / n) as [number, number, number];
}
const luma = (c: number[]) => 0.299 * c[0]! + 0.587 * c[1]! + 0.114 * c[2]!;

describe("baby-face-generator", () => {
  it("draws a baby in the parents' complexion: darker-skinned parents, a darker-skinned baby", async () => {
    const mum = await photo("portrait-female-3-nasa.png", 600);
    const dad = await photo("portrait-male-2.jpg", 600);
    const out = await raw((await render(request("baby-face-generator", mum, images(mum, dad)))).bytes);
    expect([out.width, out.height]).toEqual([OUTPUT, OUTPUT]);
    // The same parents photographed with darker skin (a strong exposure drop stands in for it).
    const darker = (b: Buffer) => sharp(b).modulate({ brightness: 0.5 }).png().toBuffer();
    const out2 = await raw(
      (await render(request("baby-face-generator", mum, images(await darker(mum), await darker(dad))))).bytes,
    );
    const a = forehead(out);
    const b = forehead(out2);
    expect(luma(b)).toBeLessThan(luma(a) - 30);
    // Skin, not grey: red over blue on both.
    expect(a[0] - a[2]).toBeGreaterThan(15);
    expect(b[0] - b[2]).toBeGreaterThan(10);
  }, 60_000);

  it("is reproducible for a seed, and another seed draws another baby", async () => {
    const couple = await photo("couple-1-daguerreotype-1850s.jpg", 700);
    const one = await render(request("baby-face-generator", couple, { seed: 3 }));
    const again = await render(request("baby-face-generator", couple, { seed: 3 }));
    expect(Buffer.from(again.bytes).equals(Buffer.from(one.bytes))).toBe(true);
    const other = await render(request("baby-face-generator", couple, { seed: 4 }));
    expect(Buffer.from(other.bytes).equals(Buffer.from(one.bytes))).toBe(false);
    // An 1850s black-and-white couple gets a toned portrait like their photo, not invented colours.
    const img = await raw(one.bytes);
    let chroma = 0;
    for (let i = 0; i < img.data.length; i += 3 * 97)
      chroma +=
        Math.max(img.data[i]!, img.data[i + 1]!, img.data[i + 2]!) -
        Math.min(img.data[i]!, img.data[i + 1]!, img.data[i + 2]!);
    expect(chroma / (img.data.length / (3 * 97))).toBeLessThan(12);
  }, 60_000);

  it("refuses photos that do not show the two parents, clearly", async () => {
    const meadow = await photo("landscape-1-meadow-cc0.jpg", 400);
    const three = await photo("child-1-three-children-1860s.jpg", 500);
    const mum = await photo("portrait-female-1.jpg", 400);
    const refusal = (req: ReturnType<typeof request>): Promise<EngineError> =>
      render(req).then(
        () => {
          throw new Error("rendered instead of refusing");
        },
        (e: unknown) => e as EngineError,
      );

    const none = await refusal(request("baby-face-generator", meadow));
    expect(none).toBeInstanceOf(EngineError);
    expect(none.code).toBe("noFace");
    const crowd = await refusal(request("baby-face-generator", three));
    expect(crowd.code).toBe("needTwoFaces");
    expect(crowd.reason).toMatch(/exactly two faces/);
    const second = await refusal(request("baby-face-generator", mum, images(mum, meadow)));
    expect(second.code).toBe("noFace");
    expect(second.reason).toMatch(/second photo/);
    const several = await refusal(request("baby-face-generator", mum, images(three, mum)));
    expect(several.code).toBe("severalFaces");
  }, 60_000);
});
