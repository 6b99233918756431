import sharp, { type OverlayOptions } from "sharp";
import type { RenderRequest } from "@/core/ports/renderer";
import { decodeRaw, encodePng, firstImage, type EffectOutput, type RawImage } from "../../shared/image-io";
import { components } from "../../shared/components";
import { refineMatte } from "../../shared/portrait/matte";
import { uniform } from "../../shared/random";
import { detectFaces, personMatte, type Face } from "../../vision/human";
import { fringe, sparkleLayer, stampLayer, stampText, type Sparkle } from "./digicam";
import {
  airbrush,
  gradeSubject,
  faceOvals,
  isMonochrome,
  mostlyOneTone,
  skinLikelihood,
  skinModel,
  type GradeOptions,
  type SkinModel,
} from "./grade";
import { handColour } from "./colourise";
import { lookFromPrompt } from "./look";
import { applyFoil, background, composeFrame, composePerson, outfitZone, palette } from "./scene";

/**
 * Y2K Style AI: an airbrushed early-2000s glam portrait. A person (found by the face model,
 * cut out with the selfie matte refined to the photo's edges) is set on a generated chrome,
 * gradient, holographic or grid backdrop with a neon rim light; the picture is smoothed to an
 * airbrushed finish, graded vibrant with the palette's shadow and highlight tints while skin
 * keeps its own hue, the outfit gets an iridescent foil sheen, and the digicam finish adds
 * bloom, star sparkles, slight colour fringing and an orange date stamp. Photos without a
 * person (pets, objects, landscapes) keep their scene and get the grade and the finish.
 * Black-and-white and toned prints are hand-coloured first (colourise.ts: skin, hair,
 * clothes and background apart) and keep their scene in the photo card. The prompt steers
 * hues, backdrop and mood (see look.ts).
 */

/** Long side of the matte's refinement copy. */
const MATTE_WORK = 768;
/** Long side of the copy the faces are searched on (large enough for a group's small heads). */
const FACE_WORK = 1280;

/** Faces at the image's own scale. */
async function findFaces(src: RawImage): Promise<Face[]> {
  const s = Math.min(1, FACE_WORK / Math.max(src.width, src.height));
  const copy = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .resize(Math.round(src.width * s), Math.round(src.height * s), { fit: "fill" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { faces } = await detectFaces({ data: copy.data, width: copy.info.width, height: copy.info.height });
  const kx = src.width / copy.info.width;
  const ky = src.height / copy.info.height;
  return faces.map((f) => ({
    ...f,
    box: [f.box[0] * kx, f.box[1] * ky, f.box[2] * kx, f.box[3] * ky] as [number, number, number, number],
    mesh: f.mesh.map(([x, y, z]) => [x * kx, y * ky, z * kx] as [number, number, number]),
  }));
}

/** The selfie model's person matte on a copy of the photo of up to MATTE_WORK px (scale `s`). */
async function workMatte(src: RawImage) {
  const { width: W, height: H } = src;
  const s = Math.min(1, MATTE_WORK / Math.max(W, H));
  const aw = Math.max(1, Math.round(W * s));
  const ah = Math.max(1, Math.round(H * s));
  const work = await sharp(src.data, { raw: { width: W, height: H, channels: 3 } })
    .resize(aw, ah, { fit: "fill" })
    .raw()
    .toBuffer();
  const { alpha } = await personMatte({ data: work, width: aw, height: ah });
  return { s, aw, ah, work, alpha };
}

/**
 * The people's matte (0..1) at the image's size: the selfie model on a copy of up to
 * 768 px, stray specks dropped (pieces of under 1.5 % of the photo with no face), then
 * snapped to the photo's own edges by a guided filter in a band around the outline. Null
 * when the matte cannot be trusted to cut every person out whole: a face whose head or
 * body below it the model missed (old group photos often lose a body or keep a floating
 * head), or people covering almost nothing or nearly everything. The caller then keeps the
 * photo's own scene rather than pasting a broken cut-out onto the backdrop.
 */
async function personAlpha(
  src: RawImage,
  faces: readonly Face[],
  skin: SkinModel | null,
): Promise<{ alpha: Float32Array; bytes: Buffer } | null> {
  const { width: W, height: H } = src;
  const { s, aw, ah, work, alpha } = await workMatte(src);
  const bin = new Uint8Array(aw * ah);
  for (let i = 0; i < bin.length; i++) bin[i] = alpha[i]! >= 128 ? 1 : 0;
  const { labels, count } = components(bin, aw, ah);
  const size = new Int32Array(count + 1);
  for (let i = 0; i < bin.length; i++) size[labels[i]!]!++;
  const keep = new Uint8Array(count + 1);
  for (let l = 1; l <= count; l++) keep[l] = size[l]! >= bin.length * 0.015 ? 1 : 0;
  for (const f of faces) {
    const x = Math.min(aw - 1, Math.round((f.box[0] + f.box[2] / 2) * s));
    const y = Math.min(ah - 1, Math.round((f.box[1] + f.box[3] / 2) * s));
    keep[labels[y * aw + x]!] = 1;
  }
  keep[0] = 0;
  const coarse = Uint8Array.from(alpha);
  let area = 0;
  for (let i = 0; i < bin.length; i++) {
    if (!keep[labels[i]!]) coarse[i] = Math.min(coarse[i]!, 60);
    else area++;
  }
  if (area < bin.length * 0.04 || area > bin.length * 0.9) return null;
  // Ears and lit cheek edges the model is unsure of (it often leaves an ear at half weight,
  // which the blend then drops): beside a face, down to the mouth, the pixels of the face's own
  // skin colour that the model gave some weight and that join the face through such pixels
  // are part of the head (a warm patch of background beside the shoulder does not join).
  if (skin)
    for (const f of faces) {
      const [fx, fy, fw, fh] = f.box.map((v) => v * s) as [number, number, number, number];
      const cx = fx + fw / 2;
      const cy = fy + fh / 2;
      const x0 = Math.max(0, Math.floor(cx - fw * 0.8));
      const x1 = Math.min(aw, Math.ceil(cx + fw * 0.8));
      const y0 = Math.max(0, Math.floor(fy - fh * 0.3));
      const y1 = Math.min(ah, Math.ceil(cy + fh * 0.35));
      if (x1 - x0 < 3 || y1 - y0 < 3) continue;
      const bw = x1 - x0;
      const ok = new Uint8Array(bw * (y1 - y0));
      for (let y = y0; y < y1; y++)
        for (let x = x0; x < x1; x++) {
          const i = y * aw + x;
          if (coarse[i]! < 38) continue;
          if (((x - cx) / (fw * 0.78)) ** 2 + ((y - cy) / (fh * 0.7)) ** 2 > 1) continue;
          if (skinLikelihood(skin, work[i * 3]!, work[i * 3 + 1]!, work[i * 3 + 2]!) < 0.5) continue;
          ok[(y - y0) * bw + x - x0] = 1;
        }
      // Grown from the middle of the face through skin-coloured pixels.
      const stack: number[] = [];
      for (let y = Math.max(y0, Math.floor(cy - fh * 0.15)); y < Math.min(y1, cy + fh * 0.15); y++)
        for (let x = Math.max(x0, Math.floor(cx - fw * 0.15)); x < Math.min(x1, cx + fw * 0.15); x++) {
          const k = (y - y0) * bw + x - x0;
          if (ok[k] === 1) {
            ok[k] = 2;
            stack.push(k);
          }
        }
      while (stack.length) {
        const k = stack.pop()!;
        const x = k % bw;
        const y = (k - x) / bw;
        coarse[(y + y0) * aw + x + x0] = 255;
        for (const q of [x > 0 ? k - 1 : -1, x < bw - 1 ? k + 1 : -1, k - bw, k + bw])
          if (q >= 0 && q < ok.length && ok[q] === 1) {
            ok[q] = 2;
            stack.push(q);
          }
      }
    }
  const cover = (
    x0: number,
    y0: number,
    x1: number,
    y1: number,
    inside: (x: number, y: number) => boolean,
  ) => {
    let k = 0;
    let on = 0;
    for (let y = Math.max(0, Math.floor(y0)); y < Math.min(ah, y1); y++)
      for (let x = Math.max(0, Math.floor(x0)); x < Math.min(aw, x1); x++) {
        if (!inside(x, y)) continue;
        k++;
        on += coarse[y * aw + x]! >= 128 ? 1 : 0;
      }
    return k ? on / k : 1;
  };
  for (const f of faces) {
    const [fx, fy, fw, fh] = f.box.map((v) => v * s) as [number, number, number, number];
    const cx = fx + fw / 2;
    const cy = fy + fh / 2;
    const head = cover(
      fx,
      fy,
      fx + fw,
      fy + fh,
      (x, y) => ((x - cx) / (fw * 0.4)) ** 2 + ((y - cy) / (fh * 0.45)) ** 2 <= 1,
    );
    // The body: a band under the chin, as wide as the face.
    const top = fy + fh * 1.25;
    const body =
      top + fh * 0.4 < ah ? cover(cx - fw * 0.5, top, cx + fw * 0.5, top + fh * 0.9, () => true) : 1;
    if (head < 0.75 || body < 0.6) return null;
  }
  const long = Math.max(aw, ah);
  const refined = refineMatte(work, coarse, aw, ah, {
    radius: Math.max(2, Math.round(long / 160)),
    band: Math.max(3, Math.round(long / 70)),
    eps: 2e-3,
  });
  const bytes = Buffer.alloc(aw * ah);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.round(refined[i]! * 255);
  const full =
    aw === W && ah === H
      ? bytes
      : await sharp(bytes, { raw: { width: aw, height: ah, channels: 1 } })
          .resize(W, H, { fit: "fill", kernel: "cubic" })
          .extractChannel(0)
          .raw()
          .toBuffer();
  const out = new Float32Array(W * H);
  for (let i = 0; i < out.length; i++) out[i] = full[i]! / 255;
  return { alpha: out, bytes: full };
}

/**
 * The people of an old print as a soft weight (0..1) at the image's size, for colouring only
 * (never to cut them out): the selfie model on a copy of up to 768 px, snapped to the print's
 * edges and blurred a little, so a part it misses or adds only takes another tint. Null when
 * it finds (almost) nobody.
 */
async function softPeople(src: RawImage): Promise<Float32Array | null> {
  const { width: W, height: H } = src;
  const { aw, ah, work, alpha } = await workMatte(src);
  const coarse = Uint8Array.from(alpha.subarray(0, aw * ah));
  let area = 0;
  for (let i = 0; i < aw * ah; i++) area += coarse[i]! >= 128 ? 1 : 0;
  if (area < aw * ah * 0.03) return null;
  const long = Math.max(aw, ah);
  const refined = refineMatte(work, coarse, aw, ah, {
    radius: Math.max(2, Math.round(long / 100)),
    band: Math.max(3, Math.round(long / 70)),
    eps: 2e-3,
  });
  const bytes = Buffer.alloc(aw * ah);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.round(refined[i]! * 255);
  const full = await sharp(bytes, { raw: { width: aw, height: ah, channels: 1 } })
    .blur(Math.max(0.5, long / 300))
    .resize(W, H, { fit: "fill", kernel: "linear" })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const out = new Float32Array(W * H);
  for (let i = 0; i < out.length; i++) out[i] = full[i]! / 255;
  return out;
}

/** Star sparkles: on the photo's brightest glints and scattered, never on a face. */
function placeSparkles(
  src: RawImage,
  faces: readonly Face[],
  alpha: Float32Array | null,
  count: number,
  rand: () => number,
): Sparkle[] {
  const { width: W, height: H, data } = src;
  const long = Math.max(W, H);
  const onFace = (x: number, y: number) =>
    faces.some(
      (f) =>
        Math.abs(x - (f.box[0] + f.box[2] / 2)) < f.box[2] * 0.8 &&
        Math.abs(y - (f.box[1] + f.box[3] / 2)) < f.box[3] * 0.85,
    );
  const out: Sparkle[] = [];
  // Glints: the brightest local maxima of a coarse luma grid (a cup's rim, water, chrome).
  const cell = Math.max(4, Math.round(long / 48));
  const cells: Array<{ x: number; y: number; l: number }> = [];
  for (let y = 0; y + cell <= H; y += cell)
    for (let x = 0; x + cell <= W; x += cell) {
      let best = -1;
      let bx = 0;
      let by = 0;
      for (let yy = y; yy < y + cell; yy += 2)
        for (let xx = x; xx < x + cell; xx += 2) {
          const i = (yy * W + xx) * 3;
          const l = 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!;
          if (l > best) {
            best = l;
            bx = xx;
            by = yy;
          }
        }
      cells.push({ x: bx, y: by, l: best });
    }
  cells.sort((a, b) => b.l - a.l);
  for (const c of cells) {
    if (out.length >= 3 || c.l < 235) break;
    if (onFace(c.x, c.y) || (alpha && alpha[c.y * W + c.x]! < 0.5)) continue;
    // Inside the photo card's window (a scene's border is the frame).
    if (Math.min(c.x, c.y, W - c.x, H - c.y) < Math.min(W, H) * 0.14) continue;
    if (out.some((s) => Math.hypot(s.x - c.x, s.y - c.y) < long * 0.15)) continue;
    out.push({ x: c.x, y: c.y, r: long * (0.025 + 0.015 * rand()) });
  }
  for (let k = 0; out.length < count && k < count * 10; k++) {
    const x = rand() * W;
    const y = rand() * H;
    const r = long * (0.01 + 0.03 * rand() * rand());
    if (onFace(x, y)) continue;
    if (alpha && alpha[Math.floor(y) * W + Math.floor(x)]! > 0.5 && rand() < 0.8) continue;
    if (out.some((s) => Math.hypot(s.x - x, s.y - y) < (s.r + r) * 1.2)) continue;
    out.push({ x, y, r });
  }
  return out;
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const look = lookFromPrompt(req.prompt ?? "");
  const pal = palette(look);
  const rand = uniform((req.seed ^ look.hash) >>> 0);

  const input = await decodeRaw(firstImage(req), { channels: 3, flatten: true });
  const { width: W, height: H } = input;
  const long = Math.max(W, H);
  const n = W * H;

  const faces = await findFaces(input);
  const tiny = await sharp(input.data, { raw: { width: W, height: H, channels: 3 } })
    .resize(96, 96, { fit: "inside" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  // Old b/w and toned prints keep their own scene, in the photo card: on them the selfie
  // model cuts children in half, keeps floating clumps of hair and pieces of a torn print's
  // wall, in ways the checks of personAlpha do not all catch (independent review, session 7).
  const oldPrint =
    isMonochrome(tiny.data, tiny.info.width * tiny.info.height) ||
    mostlyOneTone(tiny.data, tiny.info.width * tiny.info.height);
  const ovals = faceOvals(faces, W, H);
  // They are hand-coloured first (skin, hair, clothes and background apart), so the grade
  // below works on a colour picture: the look's pinks and blues read, not a tinted grey.
  const coloured = oldPrint
    ? handColour({
        rgb: input.data,
        W,
        H,
        faces,
        ovals,
        people: faces.length ? await softPeople(input) : null,
        hues: look.hues,
      })
    : null;
  const src: RawImage = coloured ? { ...input, data: Buffer.from(coloured.rgb) } : input;
  const { data } = src;
  const skin = skinModel(data, ovals);
  const matte = faces.length && !oldPrint ? await personAlpha(src, faces, skin) : null;
  const alpha = matte?.alpha ?? null;

  // Airbrushed finish: texture and noise flattened, edges kept.
  const soft = airbrush(data, W, H, Math.max(2, Math.round(long / 300)), 0.05 * 0.05);
  const people = alpha !== null;
  const grade: GradeOptions = people
    ? { saturation: 1.3, shadowTint: 0.22, highTint: 0.12 }
    : { saturation: 1.35, shadowTint: 0.4, highTint: 0.24 };

  // The picture's own pixels, airbrushed and graded, and each pixel's skin weight.
  const { fg, skinW } = gradeSubject({
    rgb: data,
    soft,
    W,
    H,
    alpha,
    ovals,
    skin,
    skinHint: coloured?.skin ?? null,
    pal,
    grade,
  });

  // The outfit's iridescent foil (cut-out people only: old prints are hand-coloured).
  if (alpha) {
    const zone = outfitZone(faces, W, H);
    const gl = Buffer.alloc(n);
    for (let i = 0; i < n; i++) {
      zone[i] = zone[i]! * alpha[i]! * (1 - skinW[i]!);
      gl[i] = Math.max(
        0,
        Math.min(255, Math.round(0.299 * fg[i * 3]! + 0.587 * fg[i * 3 + 1]! + 0.114 * fg[i * 3 + 2]!)),
      );
    }
    // The folds, not the weave: the shading is read from a blurred copy.
    const folds = await sharp(gl, { raw: { width: W, height: H, channels: 1 } })
      .blur(Math.max(0.8, long / 260))
      .extractChannel(0)
      .raw()
      .toBuffer();
    applyFoil(fg, zone, gl, folds, W, H, look.hues, rand() * Math.PI * 2);
  }

  // The picture: the person over the generated backdrop with a neon outline and glow, or the
  // whole scene inside a rounded frame of the backdrop (a Y2K photo card).
  // Rendered small and scaled up (its patterns are smooth): half size behind a person,
  // quarter size for a frame.
  const div = alpha ? 2 : 4;
  const bw = Math.max(1, Math.round(W / div));
  const bh = Math.max(1, Math.round(H / div));
  const bg = await sharp(background(look, pal, bw, bh, rand), { raw: { width: bw, height: bh, channels: 3 } })
    .resize(W, H, { fit: "fill", kernel: "linear" })
    .raw()
    .toBuffer();
  let out: Buffer;
  if (matte) {
    const a8 = matte.bytes;
    const spread = async (div: number, sigma: number) =>
      sharp(a8, { raw: { width: W, height: H, channels: 1 } })
        .resize(Math.max(1, Math.round(W / div)), Math.max(1, Math.round(H / div)), { fit: "fill" })
        .blur(Math.max(0.4, sigma / div))
        .resize(W, H, { fit: "fill", kernel: "linear" })
        .extractChannel(0)
        .raw()
        .toBuffer();
    const [near, far] = await Promise.all([spread(2, long * 0.005), spread(4, long * 0.02)]);
    out = composePerson(fg, bg, matte.alpha, near, far, pal, n);
  } else {
    out = composeFrame(fg, bg, W, H, pal);
  }

  // Bloom: bright-pass at quarter size, blurred, scaled back up and screened on (libvips).
  const rawOpts = { raw: { width: W, height: H, channels: 3 as const } };
  const strength = (people ? 0.32 : 0.4) * look.glow;
  const gain = strength / 0.32;
  const bloom = await sharp(out, rawOpts)
    .resize(Math.max(1, Math.round(W / 4)), Math.max(1, Math.round(H / 4)), { fit: "fill", kernel: "linear" })
    .linear(gain, -255 * 0.68 * gain)
    .blur(Math.max(0.6, long / 4 / 60))
    .resize(W, H, { fit: "fill", kernel: "linear" })
    .raw()
    .toBuffer();
  const glowing = await sharp(out, rawOpts)
    .composite([{ input: bloom, raw: rawOpts.raw, blend: "screen" }])
    .removeAlpha()
    .raw()
    .toBuffer();
  await fringe(glowing, W, H, 0.006);

  // Sparkles and the date stamp.
  const count = Math.round(look.sparkle * (7 + 5 * Math.sqrt(n / 1e6)));
  const sparkles = placeSparkles(src, faces, alpha, count, rand);
  const stamp = stampLayer(stampText(rand), Math.max(10, Math.round(Math.min(W, H) * 0.036)));
  const layers: OverlayOptions[] = [];
  if (sparkles.length) layers.push({ input: sparkleLayer(W, H, sparkles, pal), blend: "screen" });
  if (stamp.width < W && stamp.height < H)
    layers.push({
      input: stamp.svg,
      left: Math.max(0, W - stamp.width - Math.round(W * 0.025)),
      top: Math.max(0, H - stamp.height - Math.round(H * 0.025)),
    });
  const final = await sharp(glowing, rawOpts).composite(layers).removeAlpha().raw().toBuffer();
  return encodePng({ data: final, width: W, height: H, channels: 3 });
}
