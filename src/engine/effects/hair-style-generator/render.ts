import { personMatte, type Face } from "../../vision/human";
import { encodePng, transformRaw, type EffectOutput } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import { hairRegion, headGeometry } from "../../shared/hair/hair-region";
import { inspect } from "../../shared/hair/rules";
import { applyCut, CUTS } from "./cuts";
import { backgroundPlate, hairLuma, type Rgb, type Scene } from "./variations";
import { requireFaceUncovered } from "../../shared/hair/uncover";
import { requireBareHead } from "../../shared/hair/headwear";
import { requireHairApart } from "../../shared/hair/others";

/**
 * Hair Style Generator: one portrait, nine hairstyles in an even 3 x 3 grid of square
 * head-and-shoulders tiles: nine different cuts (cuts.ts: pixie, long straight, bob, bob with
 * bangs, curly volume, top bun, wavy shoulder length, buzz cut, side ponytail), each a shape
 * fitted to the head with its own colour and texture; the old hair outside it is replaced by
 * the background. The face is the same in every tile.
 */

/** Output long side, gutter width (also the outer margin) and gutter colour. */
export const MAX_OUTPUT = 2048;
export const GUTTER = 12;
export const GUTTER_COLOUR: Rgb = [246, 246, 246];

/** `face` moved by (-dx, -dy) and scaled by `k`: its place in the cropped, smaller tile. */
function placed(face: Face, dx: number, dy: number, k: number): Face {
  return {
    ...face,
    box: [(face.box[0] - dx) * k, (face.box[1] - dy) * k, face.box[2] * k, face.box[3] * k],
    mesh: face.mesh.map(([x, y, z]) => [(x - dx) * k, (y - dy) * k, z * k] as [number, number, number]),
  };
}

/** The square of the photo each tile shows: the head and shoulders, room for long hair. */
export function tileBox(
  face: Face,
  width: number,
  height: number,
): { side: number; left: number; top: number } {
  const head = headGeometry(face);
  const side = Math.round(Math.min(width, height, head.fh * 3.4));
  const left = Math.round(Math.min(width - side, Math.max(0, head.cx - side / 2)));
  const top = Math.round(Math.min(height - side, Math.max(0, head.top - head.fh * 0.75)));
  return { side, left, top };
}

/** Tile side in pixels (three across the output, four gutters). */
const TILE = Math.floor((MAX_OUTPUT - 4 * GUTTER) / 3);

/**
 * The tile every cut is drawn on, its matte and hair region; refuses (`hairOverFace`) when
 * hair hides most of the face. Run before charging (rules.ts) and again by the render.
 */
export async function prepare(req: RenderRequest): Promise<Scene> {
  const { src, face } = await inspect(req);
  // Square tiles framing the head and shoulders (room for long hair), inside the photo.
  const { side, left, top } = tileBox(face, src.width, src.height);
  // Every tile is rendered at its final size: nine full-size renders would be wasted work.
  const k = TILE / side;
  const tile = await transformRaw(src, (img) =>
    img.extract({ left, top, width: side, height: side }).resize(TILE, TILE, { kernel: "lanczos3" }),
  );
  const matte = await personMatte(tile);
  const onTile = placed(face, left, top, k);
  // A cap or hat over the hairline (as the pixie cut): its crown would be painted out as hair,
  // a smear with the cap's badge floating above every new cut.
  requireBareHead(tile, onTile, matte.alpha);
  const hair = hairRegion(tile, onTile, matte.alpha);
  requireHairApart(hair.others);
  requireFaceUncovered(hair);
  return { src: tile, matte: matte.alpha, hair, luma: hairLuma(tile, hair), seed: req.seed };
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const scene = await prepare(req);
  const tw = TILE;
  const th = TILE;
  const plate = backgroundPlate(scene);
  const tiles = CUTS.map((cut) => applyCut(scene, cut, plate));

  const width = 3 * tw + 4 * GUTTER;
  const height = 3 * th + 4 * GUTTER;
  const out = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) out.set(GUTTER_COLOUR, i * 3);
  tiles.forEach((t, n) => {
    const left = GUTTER + (n % 3) * (tw + GUTTER);
    const top = GUTTER + Math.floor(n / 3) * (th + GUTTER);
    for (let y = 0; y < th; y++) t.copy(out, ((top + y) * width + left) * 3, y * tw * 3, (y + 1) * tw * 3);
  });
  return encodePng({ data: out, width, height, channels: 3 });
}
