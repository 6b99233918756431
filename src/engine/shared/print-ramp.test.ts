import { describe, expect, it } from "vitest";
import { PRINT_STEPS, printRampColours, printTone } from "./print-ramp";

/** n OKLab colours from a function of the index. */
const labs = (n: number, f: (i: number) => [number, number, number]) => {
  const out = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) out.set(f(i), i * 3);
  return out;
};

describe("print ramp", () => {
  it("tells a neutral print, a strong sepia and a colour photo apart", () => {
    const n = 400;
    // Grey: no chroma at all.
    expect(
      printTone(
        labs(n, (i) => [i / n, 0, 0]),
        n,
      ),
    ).toEqual({ warm: false });
    // A strong sepia: chroma rising with lightness along one hue (a wide spread, but on its line).
    const sepia = printTone(
      labs(n, (i) => [i / n, 0.03 * (0.3 + i / n), 0.06 * (0.3 + i / n)]),
      n,
    );
    expect(sepia).toEqual({ warm: true });
    // A colour photo: as much chroma, but across hues.
    expect(
      printTone(
        labs(n, (i) => [0.5, 0.08 * Math.cos(i), 0.08 * Math.sin(i)]),
        n,
      ),
    ).toBeNull();
  });

  it("builds a ramp whose steps rise clearly in lightness, warm or cool along it", () => {
    for (const warm of [true, false]) {
      const ramp = printRampColours(warm);
      expect(ramp.length).toBe(PRINT_STEPS * 3);
      for (let s = 1; s < PRINT_STEPS; s++) expect(ramp[s * 3]! - ramp[(s - 1) * 3]!).toBeGreaterThan(0.05);
      const mid = Math.floor(PRINT_STEPS / 2) * 3;
      // a warm mid-tone is yellow-brown; a cool print's shadows are navy (b < 0)
      if (warm) expect(ramp[mid + 2]!).toBeGreaterThan(0.02);
      else expect(ramp[3 + 2]!).toBeLessThan(-0.01);
    }
    const short = printRampColours(true, 5, [0.2, 0.9]);
    expect(short.length).toBe(15);
    expect(short[0]).toBeCloseTo(0.2);
    expect(short[12]).toBeCloseTo(0.9);
  });
});
