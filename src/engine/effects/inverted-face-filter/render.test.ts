import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { photo, raw, request } from "../../shared/test-utils";
import { render } from "./render";

describe("inverted-face-filter", () => {
  it("is an exact left-right mirror, pixel for pixel, at the same size", async () => {
    const input = await photo("pet-1-cat.png");
    const out = await render(request("inverted-face-filter", input));
    const got = await raw(out.bytes, 4);
    const src = await raw(input, 4);
    expect([got.width, got.height]).toEqual([src.width, src.height]);
    for (let y = 0; y < src.height; y++) {
      for (let x = 0; x < src.width; x++) {
        const a = (y * src.width + x) * 4;
        const b = (y * src.width + (src.width - 1 - x)) * 4;
        if (got.data.readUInt32BE(a) !== src.data.readUInt32BE(b)) throw new Error(`pixel ${x},${y} differs`);
      }
    }
    expect((await sharp(Buffer.from(out.bytes)).metadata()).format).toBe("png");
  });
});
