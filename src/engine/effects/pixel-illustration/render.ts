import type { RenderRequest } from "@/core/ports/renderer";
import { decodeRaw, encodePng, firstImage, transformRaw, type EffectOutput } from "../../shared/image-io";
import { upscaleCells } from "../../shared/pixel-grid";
import { oklab } from "../../shared/pixel-art";

/**
 * Pixel Illustration: the photo as 8-bit pixel art. A coarse even grid of cells, each cell
 * one colour of a fixed 32-colour retro palette, blown up with hard nearest-neighbour edges.
 */

/** Cells along the image's long side: coarse enough to read as pixel art, fine enough for faces. */
export const GRID_LONG_SIDE = 64;
/** Target long side of the output in pixels (each cell becomes a k x k block). */
const TARGET_LONG_SIDE = 1024;

/**
 * DawnBringer's 32-colour palette (DB32), a classic pixel-art palette: it has ramps for skin,
 * foliage, sky and a usable grey scale, which a photo needs more than a console palette does.
 */
export const PALETTE: readonly (readonly [number, number, number])[] = [
  "000000",
  "222034",
  "45283c",
  "663931",
  "8f563b",
  "df7126",
  "d9a066",
  "eec39a",
  "fbf236",
  "99e550",
  "6abe30",
  "37946e",
  "4b692f",
  "524b24",
  "323c39",
  "3f3f74",
  "306082",
  "5b6ee1",
  "639bff",
  "5fcde4",
  "cbdbfc",
  "ffffff",
  "9badb7",
  "847e87",
  "696a6a",
  "595652",
  "76428a",
  "ac3232",
  "d95763",
  "d77bba",
  "8f974a",
  "8a6f30",
].map(
  (hex) =>
    [parseInt(hex.slice(0, 2), 16), parseInt(hex.slice(2, 4), 16), parseInt(hex.slice(4, 6), 16)] as const,
);

const PALETTE_LAB = PALETTE.map(([r, g, b]) => oklab(r, g, b));

/** Index of the palette colour nearest to an sRGB colour (ties go to the lower index). */
export function nearestPaletteIndex(r: number, g: number, b: number): number {
  const [L, A, B] = oklab(r, g, b);
  let best = 0;
  let bestD = Infinity;
  for (let i = 0; i < PALETTE_LAB.length; i++) {
    const p = PALETTE_LAB[i]!;
    // Lightness weighted up a little: in pixel art readable shapes come from value contrast.
    const dL = (L - p[0]) * 1.5;
    const dA = A - p[1];
    const dB = B - p[2];
    const d = dL * dL + dA * dA + dB * dB;
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

/** Grid size: long side GRID_LONG_SIDE cells, short side in proportion (at least one). */
export function gridSize(width: number, height: number): { cols: number; rows: number } {
  const long = Math.max(width, height);
  const scale = GRID_LONG_SIDE / long;
  const cols = Math.max(1, Math.round(width * scale));
  const rows = Math.max(1, Math.round(height * scale));
  return { cols, rows };
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const bytes = firstImage(req);
  // A small upright working copy first (its size gives the grid), then one shrink straight
  // to the grid: the averaging kernel gives each cell its area's mean colour.
  const work = await decodeRaw(bytes, { channels: 3, flatten: true, maxSide: GRID_LONG_SIDE * 4 });
  const { cols, rows } = gridSize(work.width, work.height);
  const cells = await transformRaw(work, (img) =>
    img
      // Slightly punchier colour and contrast, as hand-made pixel art tends to be; it also
      // keeps muted photo tones from all collapsing onto the palette's greys.
      .modulate({ saturation: 1.2 })
      .linear(1.08, -8)
      .resize(cols, rows, { fit: "fill", kernel: "mitchell" }),
  );

  // Palette mapping, one colour per cell. Deterministic: no dithering noise, no randomness.
  const cellColour = new Uint8Array(cols * rows * 3);
  for (let i = 0; i < cols * rows; i++) {
    const p =
      PALETTE[nearestPaletteIndex(cells.data[i * 3]!, cells.data[i * 3 + 1]!, cells.data[i * 3 + 2]!)]!;
    cellColour[i * 3] = p[0];
    cellColour[i * 3 + 1] = p[1];
    cellColour[i * 3 + 2] = p[2];
  }

  return encodePng(upscaleCells(cellColour, cols, rows, TARGET_LONG_SIDE));
}
