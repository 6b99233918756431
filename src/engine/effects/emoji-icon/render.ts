import sharp from "sharp";
import { personMatte, type Face } from "../../vision/human";
import { encodePng, type EffectOutput, type RawImage } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import { addBlush } from "../../shared/blush";
import { inspect } from "./rules";
import { cartoonise } from "../../shared/cartoon";
import {
  bounds,
  fillHoles,
  fillPolygon,
  keepComponents,
  sameSize,
  distanceOutside,
  smooth,
  threshold,
  type Mask,
} from "../../shared/mask";

/**
 * Emoji icon: the largest face's head (face oval plus the hair and ears the person matte
 * finds around it) cut out, cartoonised into a few flat colours with blushing cheeks, ringed
 * by a bold dark outline, centred on the face in a 512 x 512 PNG with a transparent background.
 */
export const SIZE = 512;
/** The dark outline's width at 512 px. */
export const OUTLINE = 12;
/** Clear space between the outline and the icon's edge. */
const PAD = 6;
/** How far the face-mesh oval is grown to make the face's part of the cut-out. */
const GROW = 1.08;
const INK: readonly [number, number, number] = [40, 26, 34];
/** MediaPipe FaceMesh's face-oval ring, in order. */
const FACE_OVAL = [
  10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377, 152, 148, 176, 149,
  150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109,
];

/**
 * The head at source size: the face oval, grown a little, plus the person matte near the
 * face (hair, ears).
 */
function headMask(face: Face, alpha: Uint8Array, width: number, height: number): Mask {
  const [fx, fy, fw, fh] = face.box;
  const cx = fx + fw / 2;
  const cy = fy + fh / 2;
  const person = threshold(alpha, width, height);
  const head: Mask = { data: new Uint8Array(width * height), width, height };
  // The oval grown from the mesh's centre: the mesh's oval sits on the jaw line, and the
  // whole face must stay clear of the outline drawn around the cut-out.
  const mx = FACE_OVAL.reduce((t, k) => t + face.mesh[k]![0], 0) / FACE_OVAL.length;
  const my = FACE_OVAL.reduce((t, k) => t + face.mesh[k]![1], 0) / FACE_OVAL.length;
  fillPolygon(
    head,
    FACE_OVAL.map((k): [number, number] => {
      const [x, y] = face.mesh[k]!;
      return [mx + (x - mx) * GROW, my + (y - my) * GROW];
    }),
  );
  // Hair and ears: the matte inside an ellipse from well above the brow down to the chin,
  // a little wider than the face, so hair beside the jaw stays while the neck and shoulders
  // are left out. Measured on the mesh: the detector's box has a margin of its own.
  const top = face.mesh[10]![1];
  const chin = face.mesh[152]![1];
  const left = face.mesh[234]!;
  const right = face.mesh[454]!;
  const ecx = (left[0] + right[0]) / 2;
  const ea = Math.hypot(right[0] - left[0], right[1] - left[1]) * 0.8;
  const eb = (chin - top) * 0.7;
  const ecy = chin - eb;
  for (let y = Math.max(0, Math.floor(ecy - eb)); y < Math.min(height, Math.ceil(chin)); y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const ex = (x - ecx) / ea;
      const ey = (y - ecy) / eb;
      if (person.data[i] && ex * ex + ey * ey <= 1) head.data[i] = 1;
    }
  // The part that holds the face, without holes, edges rounded.
  return keepComponents(head, [[cx, cy]]);
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { src, face } = await inspect(req);
  const { width, height } = src;
  const matte = await personMatte(src);
  sameSize(src, matte);
  const head = fillHoles(await smooth(headMask(face, matte.alpha, width, height), face.box[2] * 0.012));
  const box = bounds(head)!;

  // A square centred on the face box, just large enough for the head and its outline.
  const cx = face.box[0] + face.box[2] / 2;
  const cy = face.box[1] + face.box[3] / 2;
  const reach = Math.max(cx - box.x0, box.x1 - cx, cy - box.y0, box.y1 - cy);
  const half = reach * (SIZE / 2 / (SIZE / 2 - OUTLINE - PAD));
  const side = Math.ceil(2 * half);
  const left = Math.round(cx - side / 2);
  const top = Math.round(cy - side / 2);
  // Copy that square out of the photo and the mask (outside the photo: mask 0).
  const crop: RawImage = { data: Buffer.alloc(side * side * 3, 255), width: side, height: side, channels: 3 };
  const cropMask = Buffer.alloc(side * side);
  for (let y = 0; y < side; y++) {
    const sy = top + y;
    if (sy < 0 || sy >= height) continue;
    const x0 = Math.max(0, left);
    const x1 = Math.min(width, left + side);
    if (x1 <= x0) continue;
    src.data.copy(crop.data, (y * side + (x0 - left)) * 3, (sy * width + x0) * 3, (sy * width + x1) * 3);
    for (let x = x0; x < x1; x++) cropMask[y * side + (x - left)] = head.data[sy * width + x]! * 255;
  }
  // Both to the icon's size, each keeping its own channel count.
  const rgb = await sharp(crop.data, { raw: { width: side, height: side, channels: 3 } })
    .resize(SIZE, SIZE, { fit: "fill", kernel: "lanczos3" })
    .raw()
    .toBuffer();
  const alpha = await sharp(cropMask, { raw: { width: side, height: side, channels: 1 } })
    .resize(SIZE, SIZE, { fit: "fill", kernel: "cubic" })
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  const icon: RawImage = { data: rgb, width: SIZE, height: SIZE, channels: 3 };
  if (rgb.length !== SIZE * SIZE * 3 || alpha.length !== SIZE * SIZE)
    throw new Error("icon planes mis-sized");
  const shape = threshold(alpha, SIZE, SIZE);

  const cartoon = await cartoonise(icon, shape, {
    colours: 8,
    workSide: 280,
    median: 5,
    ink: INK,
    inkStep: 45,
  });
  const k = SIZE / side;
  addBlush(cartoon, face, { dx: -left, dy: -top, scale: k }, (i) => shape.data[i] === 1);

  // Bold outline around the cut-out, anti-aliased on its outer edge; transparent beyond.
  const dist = distanceOutside(shape);
  const out = Buffer.alloc(SIZE * SIZE * 4);
  for (let i = 0; i < SIZE * SIZE; i++) {
    const a = Math.min(1, Math.max(0, OUTLINE + 0.5 - dist[i]!));
    if (a <= 0) continue;
    const ink = !shape.data[i];
    out[i * 4] = ink ? INK[0] : cartoon.data[i * 3]!;
    out[i * 4 + 1] = ink ? INK[1] : cartoon.data[i * 3 + 1]!;
    out[i * 4 + 2] = ink ? INK[2] : cartoon.data[i * 3 + 2]!;
    out[i * 4 + 3] = Math.round(255 * a);
  }
  return encodePng({ data: out, width: SIZE, height: SIZE, channels: 4 });
}
