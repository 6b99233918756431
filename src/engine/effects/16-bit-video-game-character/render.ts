import sharp from "sharp";
import { decodeRaw, encodePng, firstImage, transformRaw, type EffectOutput } from "../../shared/image-io";
import { upscaleCells } from "../../shared/pixel-grid";
import type { RenderRequest } from "@/core/ports/renderer";

/**
 * 16-Bit Video Game Character: a 16-bit console sprite look. A finer grid than the 8-bit
 * effect, an image-specific 16-colour palette (libimagequant, no dithering, so flat sprite
 * shading), a one-cell dark outline where shapes meet, and a crisp integer upscale.
 */

/** Cells on the long side: 16-bit sprites are finer than 8-bit ones. */
export const GRID_LONG_SIDE = 96;
/** The spec's 16-colour palette. */
export const COLOURS = 16;
const TARGET_LONG_SIDE = 1056;

const luma = (d: Uint8Array | Buffer, i: number) => 0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const work = await decodeRaw(firstImage(req), { channels: 3, flatten: true, maxSide: GRID_LONG_SIDE * 4 });
  const scale = GRID_LONG_SIDE / Math.max(work.width, work.height);
  const cols = Math.max(1, Math.round(work.width * scale));
  const rows = Math.max(1, Math.round(work.height * scale));
  const grid = await transformRaw(work, (img) =>
    // Game palettes are saturated and contrasty; the resize averages each cell's area.
    img
      .modulate({ saturation: 1.35 })
      .linear(1.12, -12)
      .resize(cols, rows, { fit: "fill", kernel: "mitchell" }),
  );

  // Exactly 16 colours chosen for this image, without dithering (flat sprite shading).
  const quantized = await sharp(grid.data, { raw: { width: cols, height: rows, channels: 3 } })
    .png({ palette: true, colours: COLOURS, dither: 0, effort: 10 })
    .toBuffer();
  const cells = await sharp(quantized).removeAlpha().raw().toBuffer();

  // The outline: a cell darker than a neighbour by a clear step takes the palette's darkest
  // colour, so shapes get the one-pixel outline sprites have. No new colour is introduced.
  let darkest = 0;
  for (let i = 0; i < cols * rows; i++) if (luma(cells, i * 3) < luma(cells, darkest * 3)) darkest = i;
  const outlined = Buffer.from(cells);
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; x++) {
      const i = (y * cols + x) * 3;
      const l = luma(cells, i);
      let edge = false;
      for (const [dx, dy] of [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
      ] as const) {
        const nx = x + dx;
        const ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= cols || ny >= rows) continue;
        if (luma(cells, (ny * cols + nx) * 3) - l > 70) edge = true;
      }
      if (edge) cells.copy(outlined, i, darkest * 3, darkest * 3 + 3);
    }
  }

  return encodePng(upscaleCells(outlined, cols, rows, TARGET_LONG_SIDE));
}
