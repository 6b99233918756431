import sharp from "sharp";
import { personMatte, type Face } from "../../vision/human";
import { encodePng, type EffectOutput, type RawImage } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import { findGlasses } from "../../shared/pixel-face";
import { oklabToRgb } from "../../shared/pixel-art";
import { drawEmoji, INK } from "./draw";
import { inspectLocal } from "./rules";
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
 * Emoji icon: the largest face's head drawn as an emoji (a rounded face from the mesh, the
 * hair the person matte finds around it smoothed into one mass, a cap when there is one), in a
 * few flat colours read from the photo, with the mesh's features and blushing cheeks, ringed
 * by a bold dark outline, centred on the face in a 512 x 512 PNG with a transparent background.
 */
export const SIZE = 512;
/** The dark outline's width at 512 px. */
export const OUTLINE = 12;
/** The light rim beyond the outline, at 512 px (session 11, second pass), and its colour. */
export const RIM = 3;
const RIM_RGB = [250, 248, 244];
/** Side at which the photo's regions are read. */
const ANALYSIS = SIZE / 2;
/** Clear space between the outline's rim and the icon's edge (the rim takes half of the
 * session-10 space, so the head is cut and scaled as before). */
const PAD = 3;
/** How far the face-mesh oval is grown to make the face's part of the cut-out: room for the
 * drawn face (the oval smoothed and grown up to 1.16; session 11) and its outline. */
const GROW = 1.15;
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
  // The skull's dome above the brows, as a round head has it: where the matte lost the top of
  // the head (dark hair on a dark backdrop, a faded print) the icon is not cut flat there. Not
  // on a face turned far (a profile): its mesh says little about where the skull is.
  const brow: [number, number] = [
    (face.mesh[105]![0] + face.mesh[334]![0]) / 2,
    (face.mesh[105]![1] + face.mesh[334]![1]) / 2,
  ];
  const upLen =
    Math.hypot(face.mesh[10]![0] - face.mesh[152]![0], face.mesh[10]![1] - face.mesh[152]![1]) || 1;
  const ux = (face.mesh[10]![0] - face.mesh[152]![0]) / upLen;
  const uy = (face.mesh[10]![1] - face.mesh[152]![1]) / upLen;
  const cheeks = Math.hypot(right[0] - left[0], right[1] - left[1]);
  const da = cheeks * 0.52;
  const db = cheeks * 0.55;
  if (Math.abs(face.rotation.yaw) < 0.5)
    for (
      let y = Math.max(0, Math.floor(brow[1] - db - da));
      y < Math.min(height, Math.ceil(brow[1] + da));
      y++
    )
      for (
        let x = Math.max(0, Math.floor(brow[0] - da - db));
        x < Math.min(width, Math.ceil(brow[0] + da + db));
        x++
      ) {
        const v = (x - brow[0]) * ux + (y - brow[1]) * uy; // up the face
        if (v < 0) continue;
        const u = (x - brow[0]) * -uy + (y - brow[1]) * ux; // across
        if ((u / da) ** 2 + (v / db) ** 2 <= 1) head.data[y * width + x] = 1;
      }
  // The part that holds the face, without holes, edges rounded.
  return keepComponents(head, [[cx, cy]]);
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  return (await drawIcon(req)).output;
}

/**
 * The icon, with the face (its mesh mapped into the icon's 512 px) and where the blush went:
 * what the tests check the drawing against.
 */
export async function drawIcon(req: RenderRequest): Promise<{
  output: EffectOutput;
  face: Face;
  blush: Array<[number, number]>;
  /** The drawn flat colours (OKLab): skin, its shade, hair, then a cap's and a beard's. */
  palette: Array<[number, number, number]>;
}> {
  const { src, face } = await inspectLocal(req);
  const { width, height } = src;
  const matte = await personMatte(src);
  sameSize(src, matte);
  const head = fillHoles(await smooth(headMask(face, matte.alpha, width, height), face.box[2] * 0.012));
  const box = bounds(head)!;

  // A square centred on the face box, just large enough for the head and its outline.
  const cx = face.box[0] + face.box[2] / 2;
  const cy = face.box[1] + face.box[3] / 2;
  const reach = Math.max(cx - box.x0, box.x1 - cx, cy - box.y0, box.y1 - cy);
  const half = reach * (SIZE / 2 / (SIZE / 2 - OUTLINE - RIM - PAD));
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
  if (rgb.length !== SIZE * SIZE * 3 || alpha.length !== SIZE * SIZE)
    throw new Error("icon planes mis-sized");
  const k = SIZE / side;
  const inPhoto = new Uint8Array(SIZE * SIZE);
  for (let y = 0; y < SIZE; y++)
    for (let x = 0; x < SIZE; x++) {
      const sx = left + (x + 0.5) / k;
      const sy = top + (y + 0.5) / k;
      if (sx >= 0 && sy >= 0 && sx < width && sy < height) inPhoto[y * SIZE + x] = 1;
    }
  const map = (p: readonly number[]): [number, number] => [(p[0]! - left) * k, (p[1]! - top) * k];
  const mapped: Face = {
    ...face,
    box: [(face.box[0] - left) * k, (face.box[1] - top) * k, face.box[2] * k, face.box[3] * k],
    mesh: face.mesh.map((p) => [...map(p), p[2] * k]),
  };
  // The regions are read at half the icon's size (colours are smoothed there anyway); the
  // drawing is made at twice the icon's size and scaled down, so every edge is anti-aliased.
  const halve = (p: readonly number[]): [number, number, number] => [p[0]! / 2, p[1]! / 2, (p[2] ?? 0) / 2];
  const small = (img: Buffer, channels: 1 | 3) => {
    const s = sharp(img, { raw: { width: SIZE, height: SIZE, channels } }).resize(ANALYSIS, ANALYSIS, {
      kernel: "cubic",
    });
    return (channels === 1 ? s.toColourspace("b-w").extractChannel(0) : s).raw().toBuffer();
  };
  const smallAlpha = await small(alpha, 1);
  const smallIn = new Uint8Array(ANALYSIS * ANALYSIS);
  for (let y = 0; y < ANALYSIS; y++)
    for (let x = 0; x < ANALYSIS; x++) smallIn[y * ANALYSIS + x] = inPhoto[2 * y * SIZE + 2 * x]!;
  const analysed: RawImage = { data: await small(rgb, 3), width: ANALYSIS, height: ANALYSIS, channels: 3 };
  const smallFace: Face = {
    ...mapped,
    box: [mapped.box[0] / 2, mapped.box[1] / 2, mapped.box[2] / 2, mapped.box[3] / 2],
    mesh: mapped.mesh.map(halve),
  };
  const drawn = await drawEmoji(
    {
      rgb: analysed,
      shape: threshold(smallAlpha, ANALYSIS, ANALYSIS).data,
      inPhoto: smallIn,
      face: smallFace,
      // glasses looked for on the same small copy: far cheaper than on a large face
      glasses: findGlasses(smallFace, analysed),
    },
    2 * SIZE,
  );

  // Bold outline around the drawn head (session 11: the drawing's own rounded silhouette, not
  // the photo's cut-out), at twice the size, then everything scaled down.
  const S = drawn.side;
  const silhouette = Buffer.alloc(S * S);
  for (let i = 0; i < S * S; i++) silhouette[i] = drawn.rgba[i * 4 + 3]!;
  const bigShape = threshold(silhouette, S, S);
  const dist = distanceOutside(bigShape);
  // Session 11, second pass: a thin light rim beyond the ink (a sticker's edge), so the
  // outline and black hair stay apart from a dark chat background.
  const ink = oklabToRgb(...INK);
  const out = Buffer.alloc(S * S * 4);
  for (let i = 0; i < S * S; i++) {
    const a = Math.min(1, Math.max(0, 2 * (OUTLINE + RIM) + 0.5 - dist[i]!));
    if (a <= 0) continue;
    const d = drawn.rgba[i * 4 + 3]! / 255;
    // ink up to the outline's width, then the rim, each edge a pixel's ramp
    const r = Math.min(1, Math.max(0, dist[i]! - 2 * OUTLINE + 0.5));
    for (let c = 0; c < 3; c++) {
      const edge = ink[c]! * (1 - r) + RIM_RGB[c]! * r;
      out[i * 4 + c] = Math.round(edge * (1 - d) + drawn.rgba[i * 4 + c]! * d);
    }
    out[i * 4 + 3] = Math.round(255 * a);
  }
  const final = await sharp(out, { raw: { width: S, height: S, channels: 4 } })
    .resize(SIZE, SIZE, { kernel: "lanczos3" })
    .raw()
    .toBuffer();
  return {
    output: await encodePng({ data: final, width: SIZE, height: SIZE, channels: 4 }),
    face: mapped,
    blush: drawn.blush.map(([x, y]) => [x * 2, y * 2]),
    palette: drawn.palette,
  };
}
