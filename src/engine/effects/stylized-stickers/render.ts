import sharp from "sharp";
import { personMatte } from "../../vision/human";
import { encodePng, type EffectOutput, type RawImage } from "../../shared/image-io";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { cartoonise } from "../../shared/cartoon";
import { cutOutPeople, noSubjectError } from "../../shared/subject";
import { badgeMask, cutOutWholeObject } from "../../shared/whole-object";
import { inspect, WORK_SIDE } from "./rules";
import { drawPeople, withEars } from "./person-art";
import { defringe, guidedSmooth, spreadTones, trueColours } from "./smooth";
import {
  bounds,
  distanceOutside,
  erode,
  fillHoles,
  keepComponents,
  smooth,
  threshold,
  type Mask,
} from "../../shared/mask";

/**
 * Kawaii sticker: the person cut out with the person matte (a pet or an object: the whole
 * object around its detection box, or a rounded badge of a close-up), cartoonised (flat palette
 * colours, soft two-tone shading, thin ink lines, blushing cheeks), a dark contour, a thick
 * white die-cut outline with a faint grey edge, and a light drop shadow, on white.
 */
/** White outline width, as a share of the subject's long side. */
export const OUTLINE_SHARE = 0.045;
export const MIN_OUTLINE = 10;
const INK: readonly [number, number, number] = [62, 40, 48];
const RIM: readonly [number, number, number] = [196, 198, 206];
const SHADOW: readonly [number, number, number] = [70, 78, 100];
const SHADOW_OPACITY = 0.28;
/** Edge-preserving smoothing before the palette (session 11): radius in working pixels, and
 * the variance (8-bit levels squared) below which a window is flattened to its mean. */
const SMOOTH_RADIUS = 4;
const SMOOTH_EPS = 24 ** 2;
/** The matte's edge band repainted from inside (session 11), as a share of the subject's size. */
const FRINGE_SHARE = 0.005;

const NO_FACE = "No face was found in this photo. Please upload a clear portrait.";

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const inspected = await inspect(req);
  const { faces, subject: thing } = inspected;
  // A small photo of a pet or an object is enlarged first, so the sticker is not a thumbnail.
  const grow = faces.length ? 1 : WORK_SIDE / Math.max(inspected.src.width, inspected.src.height);
  const src = grow > 1 ? await enlarge(inspected.src, grow) : inspected.src;
  const { width, height } = src;
  let subject: Mask;
  if (faces.length) {
    // One person: the person matte's parts that hold the face. A group (the selfie matte,
    // made for one close person, misses some of them): every found face with its head and
    // body, joined to the matte and refined by GrabCut, as one sticker.
    let person: Mask;
    if (faces.length > 1) {
      const people = await cutOutPeople(src, faces);
      if (!people) throw new EngineError(NO_FACE, false, "noFace");
      person = people;
    } else {
      const matte = await personMatte(src);
      const centres = faces.map((f): [number, number] => [f.box[0] + f.box[2] / 2, f.box[1] + f.box[3] / 2]);
      person = keepComponents(threshold(matte.alpha, width, height), centres);
    }
    // The face and its ears are whole, whatever the matte cut (an ear at the matte's edge).
    person = await withEars(src, faces, person);
    subject = fillHoles(await smooth(person, Math.max(width, height) * 0.005));
  } else {
    // A pet or an object: the whole object around its detection box (a cup with its saucer
    // and spoon). A close-up running off the frame has no whole silhouette: the sticker is
    // then a rounded badge of the framed photo, not a torn fragment of the animal.
    const k = Math.max(1, grow);
    const whole = thing
      ? await cutOutWholeObject(src, [thing.box[0] * k, thing.box[1] * k, thing.box[2] * k, thing.box[3] * k])
      : null;
    if (!whole) throw noSubjectError();
    subject = whole.closeUp ? badgeMask(whole.mask) : whole.mask;
  }
  const box = bounds(subject);
  if (!box) throw faces.length ? new EngineError(NO_FACE, false, "noFace") : noSubjectError();

  // Sticker geometry, in proportion to the subject.
  const long = Math.max(box.x1 - box.x0, box.y1 - box.y0);
  const outline = Math.round(Math.max(MIN_OUTLINE, long * OUTLINE_SHARE));
  const inkWidth = Math.max(2, Math.round(long * 0.004));
  const shadow = { dx: Math.round(outline * 0.3), dy: Math.round(outline * 0.5), blur: outline * 0.3 };
  const margin = outline + shadow.dy + Math.ceil(shadow.blur * 2.5) + Math.round(long * 0.03);
  const cw = box.x1 - box.x0;
  const ch = box.y1 - box.y0;
  const W = cw + 2 * margin;
  const H = ch + 2 * margin;

  // The subject's crop, cartoonised (the crop and its mask share one size).
  const crop: RawImage = { data: Buffer.alloc(cw * ch * 3), width: cw, height: ch, channels: 3 };
  const cropMask: Mask = { data: new Uint8Array(cw * ch), width: cw, height: ch };
  for (let y = 0; y < ch; y++) {
    const from = (box.y0 + y) * width + box.x0;
    src.data.copy(crop.data, y * cw * 3, from * 3, (from + cw) * 3);
    cropMask.data.set(subject.data.subarray(from, from + cw), y * cw);
  }
  // A faded print's narrow band of tones spread over the paper's range (session 11). Faces'
  // skin is still read on the photo as it is (a shaded cheek stays within the skin's range).
  // The matte's edge (a mix of subject and backdrop) in the subject's own colours first.
  const clean = defringe(crop, cropMask, Math.max(2, long * FRINGE_SHARE));
  const toned = spreadTones(clean, cropMask);
  // Flattened at a size where the largest face (its padded box) is still about 170 px wide, so its features survive.
  const workSide = faces[0] ? Math.max(440, (long * 170) / faces[0].box[2]) : 560;
  // Texture (fur, hair strands, an old print's grain) smoothed away first, contours kept.
  const perWork = Math.max(cw, ch) / Math.min(workSide, Math.max(cw, ch));
  const smoothed = guidedSmooth(toned, cropMask, SMOOTH_RADIUS * perWork, SMOOTH_EPS);
  const cartoon = await cartoonise(smoothed, cropMask, {
    colours: 10,
    workSide,
    median: 7,
    ink: INK,
    inkStep: 55,
  });
  // Each flat area in its own photo colour, not the shared palette's nearest entry.
  trueColours(cartoon, smoothed, cropMask, INK);
  // People: skin in soft tones of its own colour, features and blush drawn from the face mesh.
  if (faces.length)
    await drawPeople({ photo: crop, cartoon, mask: cropMask, faces, offset: [-box.x0, -box.y0] });

  // The subject's shape on the canvas, its distance field outside, and its rim for the contour.
  const shape: Mask = { data: new Uint8Array(W * H), width: W, height: H };
  for (let y = 0; y < ch; y++)
    shape.data.set(cropMask.data.subarray(y * cw, (y + 1) * cw), (y + margin) * W + margin);
  const dist = distanceOutside(shape);
  const core = erode(shape, inkWidth);
  const clamp01 = (v: number) => (v < 0 ? 0 : v > 1 ? 1 : v);
  // The die-cut sticker: everything within `outline` pixels of the subject, anti-aliased.
  const sticker = Buffer.alloc(W * H);
  for (let i = 0; i < W * H; i++) sticker[i] = Math.round(255 * clamp01(outline + 0.5 - dist[i]!));
  // The shadow: the sticker's shape moved down and right, then softened.
  const moved = Buffer.alloc(W * H);
  for (let y = shadow.dy; y < H; y++)
    sticker.copy(moved, y * W + shadow.dx, (y - shadow.dy) * W, (y - shadow.dy + 1) * W - shadow.dx);
  const shadowAlpha = await sharp(moved, { raw: { width: W, height: H, channels: 1 } })
    .blur(Math.max(0.3, shadow.blur))
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  if (shadowAlpha.length !== W * H) throw new Error("shadow plane has the wrong size");

  const out = Buffer.alloc(W * H * 3, 255);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (!shadowAlpha[i] && !sticker[i]) continue; // bare paper
      const d = dist[i]!;
      // White paper, the shadow under the sticker, then the sticker itself.
      const s = (shadowAlpha[i]! / 255) * SHADOW_OPACITY;
      let r = 255 + (SHADOW[0] - 255) * s;
      let g = 255 + (SHADOW[1] - 255) * s;
      let b = 255 + (SHADOW[2] - 255) * s;
      const cut = sticker[i]! / 255;
      // A faint grey edge on the die-cut line, so the white outline reads on white paper.
      const rimT = clamp01(1.2 - Math.abs(d - outline)) * cut;
      r += (255 - r) * cut + (RIM[0] - 255) * rimT;
      g += (255 - g) * cut + (RIM[1] - 255) * rimT;
      b += (255 - b) * cut + (RIM[2] - 255) * rimT;
      if (shape.data[i]) {
        // The subject, with a dark contour along its edge.
        const cx = x - margin;
        const cy = y - margin;
        const j = (cy * cw + cx) * 3;
        const ink = !core.data[i];
        r = ink ? INK[0] : cartoon.data[j]!;
        g = ink ? INK[1] : cartoon.data[j + 1]!;
        b = ink ? INK[2] : cartoon.data[j + 2]!;
      }
      out[i * 3] = Math.round(r);
      out[i * 3 + 1] = Math.round(g);
      out[i * 3 + 2] = Math.round(b);
    }

  // At most WORK_SIDE plus two margins (about 1.3 x 1024 px): within the engine's 2048 cap.
  return encodePng({ data: out, width: W, height: H, channels: 3 });
}

/** The photo enlarged by `factor` (Lanczos), as raw RGB. */
async function enlarge(src: RawImage, factor: number): Promise<RawImage> {
  const width = Math.round(src.width * factor);
  const height = Math.round(src.height * factor);
  const data = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .resize(width, height, { fit: "fill", kernel: "lanczos3" })
    .raw()
    .toBuffer();
  return { data, width, height, channels: 3 };
}
