import sharp from "sharp";
import { forEachPiece8 } from "../../shared/components";
import { sobel } from "../../shared/edges";
import { decodeRaw, encodePng, firstImage, type EffectOutput, type RawImage } from "../../shared/image-io";
import { boxMask, featureBoxes } from "../../shared/face-features";
import { headGeometry, polygonMask } from "../../shared/hair/hair-region";
import { opencv } from "../../shared/opencv";
import { chromaSpread, PRINT_CHROMA, repairPrintDamage } from "../../shared/print-damage";
import type { RenderRequest } from "@/core/ports/renderer";
import { detectFaces, type Face } from "../../vision/human";
import type { Mask } from "../../shared/mask";
import { cutOutPeople } from "../../shared/subject";
import { labOf } from "../../shared/pixel-art";
import { MESH_BROWS, MESH_EYES } from "../../shared/mesh-parts";
import { celShade, colourPrint, gradeColour, SKIN_SHADE_STEP, warmSkin } from "./tone";

/**
 * Game-poster illustration (the look of open-world game loading-screen art): clean flat
 * cel-shaded regions, two or three tones each, smooth dark outlines on silhouettes and the
 * face's features, and a saturated, warm grade.
 * 1. Edge-preserving smoothing (bilateral passes, OpenCV) at reduced size wipes skin
 *    texture, stubble and noise while keeping the forms; behind the people the backdrop is
 *    flattened much further (a simplified poster backdrop: big soft bands, no mottle).
 * 2. The grade, in OKLab (tone.ts): a colour photo gets contrast, colour and a warm light
 *    with cool shadows; an old monochrome or toned print is coloured in the same warm palette
 *    (skin in tans, the people in denim blue and cream, the backdrop in a sunset ramp).
 * 3. Cel shading (tone.ts): the skin (the faces and what joins them in the person matte,
 *    shared/subject.ts) and a few k-means materials, each in at most a shadow, a mid and a
 *    highlight tone; speckles merged into their neighbours.
 * 4. Outlines: the long contours (Canny chains on the smoothed picture, texture blurred away
 *    first, short chains dropped) and the eyes, brows, nose and mouth; the strokes rounded
 *    and 3 to 5 px wide.
 * Before all this, an old print (monochrome or toned) loses its scratches, creases and dust
 * (shared/print-damage.ts, filled by Telea inpainting), or they would be inked as bold lines
 * and dots. Inside a face's oval only the eyes, brows, nose and mouth are inked: any other
 * stroke there (a wrinkle, a watermark's letters, a reflection) is dropped.
 */
const WORK_SIDE = 1280;
const SMOOTH_SIDE = 560;
/** Materials of the cel shading: at most three tones each, plus the ink. */
const MATERIALS = 6;
/** The flat colours: the materials and the skin, three tones each, and the eye white (session 11). */
export const POSTER_COLOURS = (MATERIALS + 1) * 3 + 1;
/** Outline ink: a very dark blue-black, as poster art inks. */
export const INK: readonly [number, number, number] = [18, 16, 28];
/** Regions smaller than this share of the picture are speckles, merged into a neighbour. */
const MIN_REGION_SHARE = 0.00035;

const luma = (d: Uint8Array | Buffer, i: number) =>
  (0.299 * d[i * 3]! + 0.587 * d[i * 3 + 1]! + 0.114 * d[i * 3 + 2]!) | 0;

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const src = await decodeRaw(firstImage(req), { channels: 3, flatten: true, maxSide: WORK_SIDE });
  const { width, height } = src;
  const n = width * height;
  const { faces } = await detectFaces({ data: src.data, width, height });
  const features = boxMask(
    faces.flatMap((f) => featureBoxes(f)),
    width,
    height,
    1,
  );
  const print = chromaSpread(src.data) < PRINT_CHROMA;
  const clean = print ? ((await repairPrintDamage(src, features)) ?? src) : src;
  const matteOut: { matte?: Mask; rejected?: Mask } = {};
  const cut = faces.length ? await cutOutPeople(clean, faces, matteOut) : null;
  // On a print the people take the garment colours: only where the person model agrees too
  // (the cut-out's body prior can keep a box of lawn beside a bent figure, painted as denim).
  // The cut-out's own matte (the person model runs once).
  const people = cut && print && matteOut.matte ? await withinPersonMatte(matteOut.matte, cut) : cut;
  const side = Math.max(width, height);
  // Everyone the person model finds, faces seen or not (a child turned away, the back of a
  // head): the cut-out keeps only the people joined to a found face, and what is left out of
  // it would be painted over as backdrop (a child's head as sunset blobs).
  const everyone =
    people && matteOut.matte
      ? await withPersonMatte(
          people,
          matteOut.matte,
          matteOut.rejected && { rejected: matteOut.rejected, picture: clean },
        )
      : people;
  // Behind the people, a simplified poster backdrop: the picture's texture and mottle (grass,
  // bokeh, a studio backdrop's blotches, film grain) flattened, its strong shapes kept.
  const backSoft = everyone ? await softMask(everyone.data, width, height, side * 0.006) : null;
  const scene = backSoft ? await flattenBackdrop(clean, backSoft) : clean;
  const { full: smooth, small, sw, sh } = await smoothForms(scene);
  const lab = labOf(smooth, n);
  const skinWeight = people ? skinMask(lab, people.data, faces, width, height, !print) : null;
  const skin = skinWeight && skinWeight.map((v) => (v >= 128 ? 1 : 0));
  if (print) {
    const soft = everyone ? await softMask(everyone.data, width, height, side * 0.004) : null;
    colourPrint(lab, n, skinWeight ? await blurred(skinWeight, width, height, side * 0.006) : null, soft);
  } else {
    gradeColour(lab, n);
    if (skinWeight) warmSkin(lab, n, await blurred(skinWeight, width, height, side * 0.004));
  }
  // The backdrop's light and shade in big, smooth bands (its tones decided on a wider blur).
  const [toneL, wide] = (await blurredLightness(
    lab,
    width,
    height,
    backSoft ? [Math.max(1, side / 400), side / 110] : [Math.max(1, side / 400)],
  )) as [Float32Array, Float32Array | undefined];
  if (backSoft && wide) {
    for (let i = 0; i < n; i++) {
      const p = backSoft[i]! / 255;
      toneL[i] = toneL[i]! * p + wide[i]! * (1 - p);
    }
  }
  // A print's skin light and shade in big shapes, at the face's own scale: on a soft,
  // low-contrast face the picture's blur leaves a mottle of small patches of all three tones.
  // Not in a colour photo: there the skin's dark tone draws glasses' frames, stubble and brows.
  if (skin && print) await smoothSkinTone(toneL, lab, skin, width, height, faces);
  const cel = celShade(lab, toneL, n, MATERIALS, req.seed ?? 1, skin, print ? SKIN_SHADE_STEP : undefined);
  mergeSpeckles(cel, width, height, Math.max(24, Math.round(n * MIN_REGION_SHARE)));

  const contours = await longEdges(small, sw, sh);
  const ink = await outlines(smooth, contours, sw, sh, width, height, {
    quiet: faceQuiet(faces, width, height),
    features,
    faces,
  });
  // Session 11: eyes big enough to read get poster eyes (whites, iris, lid line), painted last;
  // the picture's ink in and around their opening (a dark socket, lashes) goes first.
  const posterEyes = faces.flatMap((f) => eyeShapes(f, smooth, width, height));
  if (posterEyes.length) clearAroundEyes(ink, width, height, posterEyes);
  for (let i = 0; i < n; i++) {
    if (ink[i]! > 127) {
      cel[i * 3] = INK[0];
      cel[i * 3 + 1] = INK[1];
      cel[i * 3 + 2] = INK[2];
    }
  }
  // Ink taken off a face leaves the regions it cut: slivers too small to read are merged again.
  mergeSpeckles(cel, width, height, 20);
  for (const e of posterEyes) paintEye(cel, width, height, e);
  return encodePng({ data: cel, width, height, channels: 3 });
}

/** A 0/1 mask blurred to 0..255 (soft edges for colour blends). */
async function softMask(mask: Uint8Array, width: number, height: number, sigma: number): Promise<Uint8Array> {
  return sharp(Buffer.from(mask.map((v) => (v ? 255 : 0))), { raw: { width, height, channels: 1 } })
    .blur(Math.max(0.3, sigma))
    .extractChannel(0)
    .raw()
    .toBuffer();
}

/** A 0..255 plane, Gaussian-blurred. */
async function blurred(plane: Uint8Array, width: number, height: number, sigma: number): Promise<Uint8Array> {
  return sharp(Buffer.from(plane), { raw: { width, height, channels: 1 } })
    .blur(Math.max(0.3, sigma))
    .extractChannel(0)
    .raw()
    .toBuffer();
}

/** OKLab lightness, Gaussian-blurred by each of `sigmas` (the tone of each pixel is decided on it: clean shapes). */
async function blurredLightness(lab: Float32Array, width: number, height: number, sigmas: number[]) {
  const n = width * height;
  const bytes = Buffer.alloc(n);
  for (let i = 0; i < n; i++) bytes[i] = Math.max(0, Math.min(255, Math.round(lab[i * 3]! * 255)));
  return Promise.all(
    sigmas.map(async (sigma) => {
      const out = await sharp(bytes, { raw: { width, height, channels: 1 } })
        .blur(Math.max(0.3, sigma))
        .extractChannel(0)
        .raw()
        .toBuffer();
      const L = new Float32Array(n);
      for (let i = 0; i < n; i++) L[i] = out[i]! / 255;
      return L;
    }),
  );
}

/** Working side of the backdrop's flattening (bilateral passes). */
const BACKDROP_SIDE = 200;

/**
 * The picture with its backdrop (where `people`, 0..255 soft, is low) flattened: five bilateral
 * passes at a small size (each wipes the low-contrast texture and keeps the strong edges: a
 * tripod's legs, a flag's stripes), enlarged smoothly. The people stay as they are.
 */
async function flattenBackdrop(src: RawImage, people: Uint8Array): Promise<RawImage> {
  const { width, height } = src;
  const scale = Math.min(1, BACKDROP_SIDE / Math.max(width, height));
  const sw = Math.max(1, Math.round(width * scale));
  const sh = Math.max(1, Math.round(height * scale));
  const small = await sharp(src.data, { raw: { width, height, channels: 3 } })
    .resize(sw, sh, { fit: "fill" })
    .raw()
    .toBuffer();
  const { cv } = await opencv();
  let a = cv.matFromArray(sh, sw, cv.CV_8UC3, small);
  let b = new cv.Mat();
  let flat: Buffer;
  try {
    for (let pass = 0; pass < 8; pass++) {
      cv.bilateralFilter(a, b, 7, 40, 5, cv.BORDER_DEFAULT);
      [a, b] = [b, a];
    }
    flat = await sharp(Buffer.from(a.data as Uint8Array), { raw: { width: sw, height: sh, channels: 3 } })
      .resize(width, height, { fit: "fill", kernel: "cubic" })
      .raw()
      .toBuffer();
  } finally {
    a.delete();
    b.delete();
  }
  const data = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    const p = people[i]! / 255;
    for (let c = 0; c < 3; c++)
      data[i * 3 + c] = Math.round(src.data[i * 3 + c]! * p + flat[i * 3 + c]! * (1 - p));
  }
  return { data, width, height, channels: 3 };
}

/**
 * The skin's tone lightness (in `toneL`, in place) blurred over the skin only (a normalised
 * blur: the backdrop's lightness does not bleed in), by a 14th of the smallest face's width.
 */
async function smoothSkinTone(
  toneL: Float32Array,
  lab: Float32Array,
  skin: Uint8Array,
  width: number,
  height: number,
  faces: Face[],
): Promise<void> {
  const widths = faces.filter((f) => f.mesh.length >= 468).map((f) => headGeometry(f).fw);
  if (!widths.length) return;
  const sigma = Math.min(...widths) / 14;
  // A face under about 70 px keeps the picture's own tone (blurred, its nose and mouth shade
  // would join into one dark patch).
  if (sigma < 5) return;
  const n = width * height;
  const wL = Buffer.alloc(n);
  const w = Buffer.alloc(n);
  for (let i = 0; i < n; i++)
    if (skin[i]) {
      w[i] = 255;
      wL[i] = Math.max(0, Math.min(255, Math.round(lab[i * 3]! * 255)));
    }
  const [bl, bw] = (await Promise.all(
    [wL, w].map((b) =>
      sharp(b, { raw: { width, height, channels: 1 } })
        .blur(sigma)
        .extractChannel(0)
        .raw()
        .toBuffer(),
    ),
  )) as [Buffer, Buffer];
  for (let i = 0; i < n; i++) if (skin[i] && bw[i]! > 8) toneL[i] = bl[i]! / bw[i]!;
}

/** The cut-out's pixels that the person model also calls person (its matte grown a little). */
async function withinPersonMatte(small: Mask, cut: Mask): Promise<Mask> {
  const { width, height } = cut;
  const grown = await sharp(Buffer.from(small.data), {
    raw: { width: small.width, height: small.height, channels: 1 },
  })
    .resize(width, height, { fit: "fill" })
    .blur(Math.max(1, Math.max(width, height) / 200))
    .extractChannel(0)
    .raw()
    .toBuffer();
  const data = Uint8Array.from(cut.data, (v, i) => (v && grown[i]! >= 48 ? v : 0));
  // The person model sees almost no one where the faces found people (a daguerreotype's
  // group): it failed on this picture, not the cut-out (its bodies were left to the backdrop).
  let all = 0;
  let seen = 0;
  for (let i = 0; i < data.length; i++) {
    if (cut.data[i]) all++;
    if (grown[i]! >= 48) seen++;
  }
  if (seen < all * 0.25) return cut;
  return { ...cut, data };
}

/**
 * Session 11: 1 where the picture, at w x h, is plain: the spread of its grey over 5 x 5 pixels
 * under {@link PLAIN_SPREAD} (a wall, a studio backdrop; not hair, cloth folds or a face).
 */
async function plainAt(picture: RawImage, w: number, h: number): Promise<Uint8Array> {
  const grey = await sharp(picture.data, {
    raw: { width: picture.width, height: picture.height, channels: 3 },
  })
    .resize(w, h, { fit: "fill" })
    .greyscale()
    .extractChannel(0)
    .raw()
    .toBuffer();
  const plain = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let sum = 0;
      let sq = 0;
      let k = 0;
      for (let dy = -2; dy <= 2; dy++)
        for (let dx = -2; dx <= 2; dx++) {
          const yy = Math.min(h - 1, Math.max(0, y + dy));
          const xx = Math.min(w - 1, Math.max(0, x + dx));
          const v = grey[yy * w + xx]!;
          sum += v;
          sq += v * v;
          k++;
        }
      const mean = sum / k;
      plain[y * w + x] = Math.sqrt(Math.max(0, sq / k - mean * mean)) < PLAIN_SPREAD ? 1 : 0;
    }
  return plain;
}

/** Session 11: the grey spread (0..255, over 5 x 5 px at the matte's size) under which a place is plain. */
const PLAIN_SPREAD = 6;

/** The person matte's levels (0..255): surely person, and person where joined to a sure part. */
const MATTE_SURE = 128;
const MATTE_LIKELY = 64;
/** Session 11: the matte's level above which GrabCut's taking a part away is overruled. */
const MATTE_CONFIDENT = 192;

/**
 * The cut-out joined with everyone the person model finds (its matte, at its own size, by
 * hysteresis: the pieces over {@link MATTE_LIKELY} that reach {@link MATTE_SURE} or the
 * cut-out; then enlarged smoothly): people whose face is not found (a child turned away, the
 * back of a head, a face too small) and limbs the cut-out left out. A head turned away is
 * often only half sure for the model; a stray low smear that touches no one is not taken.
 */
async function withPersonMatte(
  cut: Mask,
  small: Mask,
  spill?: { rejected: Mask; picture: RawImage },
): Promise<Mask> {
  const { width, height } = cut;
  const { width: w, height: h } = small;
  const cutSmall = await sharp(Buffer.from(cut.data.map((v) => (v ? 255 : 0))), {
    raw: { width, height, channels: 1 },
  })
    .resize(w, h, { fit: "fill" })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const likely = Uint8Array.from(small.data, (v) => (v >= MATTE_LIKELY ? 1 : 0));
  const found = new Uint8Array(w * h);
  forEachPiece8(likely, w, h, (piece) => {
    if (piece.some((p) => small.data[p]! >= MATTE_SURE || cutSmall[p]! >= 128))
      for (const p of piece) found[p] = 255;
  });
  // A hole the model leaves inside someone (the crown of a head turned away) is theirs too.
  const gaps = Uint8Array.from(found, (v) => (v ? 0 : 1));
  forEachPiece8(gaps, w, h, (piece) => {
    if (piece.length > w * h * 0.02) return;
    for (const p of piece) {
      const x = p % w;
      if (x === 0 || x === w - 1 || p < w || p >= w * (h - 1)) return;
    }
    for (const p of piece) found[p] = 255;
  });
  // Not where the cut-out's GrabCut took the matte's guess away and the model is not sure
  // (session 11): there the matte spilled onto the backdrop (a plain wall between heads was
  // painted as garment denim). Where the model is sure, GrabCut is overruled (it took a dark
  // coat off a cameraman bent over his tripod).
  // Only where the picture is plain there (a wall): a child's hair turned away is textured.
  if (spill) {
    const plain = await plainAt(spill.picture, w, h);
    for (let i = 0; i < w * h; i++)
      if (spill.rejected.data[i] && plain[i] && small.data[i]! < MATTE_CONFIDENT && cutSmall[i]! < 128)
        found[i] = 0;
  }
  const big = await sharp(Buffer.from(found), { raw: { width: w, height: h, channels: 1 } })
    .resize(width, height, { fit: "fill" })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const data = Uint8Array.from(cut.data, (v, i) => v || (big[i]! >= 128 ? 1 : 0));
  return { ...cut, data };
}

/**
 * The people's skin (0..255, how surely skin): each face's oval (the features left out when its colour is
 * measured), and the person's pixels of the face's own lightness (and, in a colour photo, its
 * own colour) joined to it near the face: a neck, a hand against the cheek.
 */
function skinMask(
  lab: Float32Array,
  people: Uint8Array,
  faces: Face[],
  width: number,
  height: number,
  byColour: boolean,
): Uint8Array {
  const n = width * height;
  const skin = new Uint8Array(n);
  const queue: number[] = [];
  for (const face of faces) {
    if (face.mesh.length < 468) continue;
    const { oval } = headGeometry(face);
    const inside = polygonMask(oval, width, height);
    const feat = boxMask(featureBoxes(face, 0.02), width, height, 1);
    const ls: number[] = [];
    const as: number[] = [];
    const bs: number[] = [];
    for (let i = 0; i < n; i++)
      if (inside[i] && !feat[i]) {
        ls.push(lab[i * 3]!);
        as.push(lab[i * 3 + 1]!);
        bs.push(lab[i * 3 + 2]!);
      }
    if (ls.length < 50) continue;
    const q = (v: number[], p: number) => v[Math.floor((v.length - 1) * p)]!;
    ls.sort((a, b) => a - b);
    as.sort((a, b) => a - b);
    bs.sort((a, b) => a - b);
    const lo = q(ls, 0.08) - 0.04;
    const hi = q(ls, 0.98) + 0.04;
    const ma = q(as, 0.5);
    const mb = q(bs, 0.5);
    for (let i = 0; i < n; i++)
      if (inside[i] && !skin[i]) {
        skin[i] = 255;
        queue.push(i);
      }
    // Within reach of the face (a neck, a hand at the cheek), not down a whole same-grey
    // garment; fading out between 1 and 1.6 face widths from its centre (no visible cut).
    // A print has no colour to tell skin from a same-grey backdrop or fair hair (the cut-out is
    // rough round the head): there the skin reaches only the head's own outline (the oval
    // grown to the hairline and ears) and the neck below it, or a pale disc rings the head.
    const { cx, fw } = headGeometry(face);
    const cy = face.box[1] + face.box[3] / 2;
    const head = byColour ? null : headReach(face, oval, cx, fw, width, height);
    for (let h = 0; h < queue.length; h++) {
      const p = queue[h]!;
      const x = p % width;
      for (let k = 0; k < 4; k++) {
        const nb =
          k === 0
            ? x > 0
              ? p - 1
              : -1
            : k === 1
              ? x < width - 1
                ? p + 1
                : -1
              : k === 2
                ? p - width
                : p + width;
        if (nb < 0 || nb >= n || skin[nb] || !people[nb]) continue;
        if (head && !head[nb]) continue;
        const d = Math.hypot((nb % width) - cx, Math.floor(nb / width) - cy) / fw;
        if (d > 1.6) continue;
        const L = lab[nb * 3]!;
        if (L < lo || L > hi) continue;
        if (byColour && Math.hypot(lab[nb * 3 + 1]! - ma, lab[nb * 3 + 2]! - mb) > 0.035) continue;
        skin[nb] = Math.max(1, Math.round(255 * Math.min(1, (1.6 - d) / 0.6)));
        queue.push(nb);
      }
    }
    queue.length = 0;
    // A highlight brighter than the face's range (a lit forehead, a shine on a cheek) that the
    // skin closes in is skin too, not a disc of garment colour.
    fillEnclosed(skin, width, height, face, (fw * 0.35) ** 2);
  }
  return skin;
}

/**
 * The head's own outline: the face oval grown to the hairline, the ears beside it, and below
 * the mouth a band under the face (the neck, a hand at the chin, bare shoulders).
 */
function headReach(
  face: Face,
  oval: Array<[number, number]>,
  cx: number,
  fw: number,
  width: number,
  height: number,
) {
  const ox = oval.reduce((a, p) => a + p[0], 0) / oval.length;
  const oy = oval.reduce((a, p) => a + p[1], 0) / oval.length;
  const grownOval = oval.map(([x, y]) => [ox + (x - ox) * 1.15, oy + (y - oy) * 1.15] as [number, number]);
  const a = polygonMask(grownOval, width, height);
  const mouth = Math.ceil((face.mesh[13]![1] + face.mesh[14]![1]) / 2);
  // Session 11: a neck, not a box. The band was 1.8 face widths wide from the mouth down: on a
  // pale dress or bare shoulders of the face's grey the skin stopped at its straight sides, a
  // hard-edged tan rectangle under the chin. Now the jaw's width down to the chin, a neck a
  // little narrower below it, then shoulders sloping out (as wide as the band was) further down.
  const chin = face.mesh[152]![1];
  for (let y = Math.max(0, mouth); y < height; y++) {
    const below = (y - chin) / fw;
    const half = below < 0 ? fw * 0.42 : fw * Math.min(0.9, 0.32 + Math.max(0, below - 0.2) * 1.5);
    const xa = Math.max(0, Math.floor(cx - half));
    const xb = Math.min(width - 1, Math.ceil(cx + half));
    a.fill(1, y * width + xa, y * width + xb + 1);
  }
  // The ears, beside the face's sides (a turned face shows one whole, outside its oval).
  const r = fw * 0.24;
  for (const k of [234, 454]) {
    const [ex, ey] = face.mesh[k]!;
    const sx = ex + Math.sign(ex - ox) * fw * 0.08;
    for (
      let y = Math.max(0, Math.floor(ey - r * 1.3));
      y <= Math.min(height - 1, Math.ceil(ey + r * 1.3));
      y++
    )
      for (let x = Math.max(0, Math.floor(sx - r)); x <= Math.min(width - 1, Math.ceil(sx + r)); x++)
        if (((x - sx) / r) ** 2 + ((y - ey) / (r * 1.3)) ** 2 <= 1) a[y * width + x] = 1;
  }
  return a;
}

/**
 * Sets to 255 every region of `mask` under `maxArea` pixels that is not skin (4-connected) and
 * is closed in by skin, within the face's box grown by half.
 */
function fillEnclosed(mask: Uint8Array, width: number, height: number, face: Face, maxArea: number): void {
  const [bx, by, bw, bh] = face.box;
  const box = {
    x0: Math.max(0, Math.floor(bx - bw * 0.5)),
    x1: Math.min(width - 1, Math.ceil(bx + bw * 1.5)),
    y0: Math.max(0, Math.floor(by - bh * 0.5)),
    y1: Math.min(height - 1, Math.ceil(by + bh * 1.5)),
  };
  forEachHole(mask, width, box, maxArea, (hole) => {
    for (const p of hole) mask[p] = 255;
  });
}

/**
 * Calls `visit` with each region of zeros in `mask` (4-connected, within the box, inclusive) that
 * never reaches the box's edge and has at most `maxArea` pixels, in scan order; `visit` may
 * change `mask` (later regions are found on the changed mask). The array is reused: copy it to keep it.
 */
function forEachHole(
  mask: Uint8Array,
  width: number,
  box: { x0: number; x1: number; y0: number; y1: number },
  maxArea: number,
  visit: (hole: number[]) => void,
): void {
  const { x0, x1, y0, y1 } = box;
  const seen = new Uint8Array(mask.length);
  const queue: number[] = [];
  for (let sy = y0; sy <= y1; sy++)
    for (let sx = x0; sx <= x1; sx++) {
      const start = sy * width + sx;
      if (mask[start] || seen[start]) continue;
      queue.length = 0;
      queue.push(start);
      seen[start] = 1;
      let open = false;
      for (let h = 0; h < queue.length; h++) {
        const p = queue[h]!;
        const x = p % width;
        const y = (p - x) / width;
        if (x === x0 || x === x1 || y === y0 || y === y1) open = true;
        for (const q of [
          x > x0 ? p - 1 : -1,
          x < x1 ? p + 1 : -1,
          y > y0 ? p - width : -1,
          y < y1 ? p + width : -1,
        ])
          if (q >= 0 && !mask[q] && !seen[q]) {
            seen[q] = 1;
            queue.push(q);
          }
      }
      if (!open && queue.length <= maxArea) visit(queue);
    }
}

/** Eyes narrower than this (px, corner to corner) are drawn from the mesh only. */
const SMALL_EYE = 24;

/**
 * Whether a face's eyes are too small for the picture's own edges: inked, the dark socket, lids
 * and lashes of a small eye join into one black bar (sunglasses on every face of a group).
 * Such a face's eyes and brows are drawn from the mesh instead (lid line, iris, brow stroke).
 */
function smallEyes(face: Face): boolean {
  if (face.mesh.length < 468) return false;
  const widths = MESH_EYES.map((e) =>
    Math.hypot(
      face.mesh[e.inner]![0] - face.mesh[e.outer]![0],
      face.mesh[e.inner]![1] - face.mesh[e.outer]![1],
    ),
  );
  return Math.max(...widths) < SMALL_EYE;
}

/**
 * Where no ink may go: inside each face's oval (shrunk a little, so the jaw and hairline keep
 * their outline) except around the eyes, brows (their boxes, grown) and the nose (its box).
 */
export function faceQuiet(faces: Face[], width: number, height: number): Uint8Array | null {
  if (!faces.length) return null;
  const quiet = new Uint8Array(width * height);
  for (const face of faces) {
    if (face.mesh.length < 468) continue;
    const { oval } = headGeometry(face);
    const cx = oval.reduce((a, p) => a + p[0], 0) / oval.length;
    const cy = oval.reduce((a, p) => a + p[1], 0) / oval.length;
    const inner = oval.map(([x, y]) => [cx + (x - cx) * 0.88, cy + (y - cy) * 0.88] as [number, number]);
    const inside = polygonMask(inner, width, height);
    // The mouth is not kept (its lip line is drawn on purpose); the nose only tightly, so the
    // shadow between nose and upper lip is never inked.
    const keep = boxMask(
      [
        ...(smallEyes(face) ? [] : featureBoxes(face, 0.06).slice(0, 4)),
        // Session 11: only the nose's lower half (its tip and nostrils): the bridge's sides were
        // two long lines down the middle of a soft face (a child's face read as a frowning adult's).
        ...featureBoxes(face, 0.01)
          .slice(4, 5)
          .map(([x, y, w, h]) => [x, y + h * 0.5, w, h * 0.5] as [number, number, number, number]),
      ],
      width,
      height,
      1,
    );
    for (let i = 0; i < width * height; i++) if (inside[i] && !keep[i]) quiet[i] = 1;
  }
  return quiet;
}

/**
 * Bilateral smoothing at a reduced size (texture goes, edges stay): that small picture and
 * the same back at full size.
 */
async function smoothForms(src: RawImage): Promise<{ full: Buffer; small: Buffer; sw: number; sh: number }> {
  const { width, height } = src;
  const scale = Math.min(1, SMOOTH_SIDE / Math.max(width, height));
  const sw = Math.max(1, Math.round(width * scale));
  const sh = Math.max(1, Math.round(height * scale));
  const small = await sharp(src.data, { raw: { width, height, channels: 3 } })
    .resize(sw, sh, { fit: "fill" })
    .raw()
    .toBuffer();
  const { cv } = await opencv();
  let a = cv.matFromArray(sh, sw, cv.CV_8UC3, small);
  let b = new cv.Mat();
  try {
    for (let pass = 0; pass < 2; pass++) {
      cv.bilateralFilter(a, b, 9, 45, 7, cv.BORDER_DEFAULT);
      [a, b] = [b, a];
    }
    const out = Buffer.from(a.data as Uint8Array);
    const full = await sharp(out, { raw: { width: sw, height: sh, channels: 3 } })
      .resize(width, height, { fit: "fill", kernel: "cubic" })
      .raw()
      .toBuffer();
    return { full, small: out, sw, sh };
  } finally {
    a.delete();
    b.delete();
  }
}

/** Recolours every same-colour region under `minArea` pixels with its main neighbour's colour. */
export function mergeSpeckles(rgb: Buffer, width: number, height: number, minArea: number): void {
  const n = width * height;
  const key = new Int32Array(n);
  for (let i = 0; i < n; i++) key[i] = (rgb[i * 3]! << 16) | (rgb[i * 3 + 1]! << 8) | rgb[i * 3 + 2]!;
  const seen = new Uint8Array(n);
  // One region at a time, breadth first: queue[0..tail) are its pixels once it is done.
  const queue = new Int32Array(n);
  const votes = new Map<number, number>();
  for (let start = 0; start < n; start++) {
    if (seen[start]) continue;
    const k = key[start]!;
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    seen[start] = 1;
    while (head < tail) {
      const p = queue[head++]!;
      const x = p % width;
      if (x > 0 && !seen[p - 1] && key[p - 1] === k) {
        seen[p - 1] = 1;
        queue[tail++] = p - 1;
      }
      if (x < width - 1 && !seen[p + 1] && key[p + 1] === k) {
        seen[p + 1] = 1;
        queue[tail++] = p + 1;
      }
      if (p >= width && !seen[p - width] && key[p - width] === k) {
        seen[p - width] = 1;
        queue[tail++] = p - width;
      }
      if (p + width < n && !seen[p + width] && key[p + width] === k) {
        seen[p + width] = 1;
        queue[tail++] = p + width;
      }
    }
    if (tail >= minArea) continue;
    // A speckle: the colour it borders most.
    votes.clear();
    for (let m = 0; m < tail; m++) {
      const p = queue[m]!;
      const x = p % width;
      if (x > 0 && key[p - 1] !== k) votes.set(key[p - 1]!, (votes.get(key[p - 1]!) ?? 0) + 1);
      if (x < width - 1 && key[p + 1] !== k) votes.set(key[p + 1]!, (votes.get(key[p + 1]!) ?? 0) + 1);
      if (p >= width && key[p - width] !== k)
        votes.set(key[p - width]!, (votes.get(key[p - width]!) ?? 0) + 1);
      if (p + width < n && key[p + width] !== k)
        votes.set(key[p + width]!, (votes.get(key[p + width]!) ?? 0) + 1);
    }
    let best = k;
    let most = 0;
    for (const [c, v] of votes) if (v > most) [best, most] = [c, v];
    if (best === k) continue;
    for (let m = 0; m < tail; m++) {
      const p = queue[m]!;
      key[p] = best;
      rgb[p * 3] = (best >> 16) & 255;
      rgb[p * 3 + 1] = (best >> 8) & 255;
      rgb[p * 3 + 2] = best & 255;
    }
  }
}

/**
 * The picture's long, clear contours: Canny's thin, connected edges on the smoothed small
 * picture (thresholds from its own gradients, so a soft photo gets its contours too), only
 * the chains longer than 1/16 of its long side: silhouettes and big forms, not texture.
 */
async function longEdges(small: Buffer, sw: number, sh: number): Promise<Uint8Array> {
  const lumas = Buffer.alloc(sw * sh);
  for (let i = 0; i < sw * sh; i++) lumas[i] = luma(small, i);
  // Blurred a little more first: fur and foliage texture leaves no chain of edges.
  const grey = Uint8Array.from(
    await sharp(lumas, { raw: { width: sw, height: sh, channels: 1 } })
      .blur(Math.max(1.5, Math.max(sw, sh) / 280))
      .extractChannel(0)
      .raw()
      .toBuffer(),
  );
  const { mag } = sobel(grey, sw, sh);
  const sorted = Float32Array.from(mag).sort();
  const high = Math.max(80, sorted[Math.floor(sorted.length * 0.93)]!);
  const { cv } = await opencv();
  const a = cv.matFromArray(sh, sw, cv.CV_8UC1, grey);
  const b = new cv.Mat();
  try {
    cv.Canny(a, b, high * 0.45, high, 3, false);
    const edges = Uint8Array.from(b.data as Uint8Array, (v) => (v ? 1 : 0));
    dropShortStrokes(edges, sw, sh, Math.round(Math.max(sw, sh) / 16), 0, new Uint8Array(sw * sh));
    return edges;
  } finally {
    a.delete();
    b.delete();
  }
}

/**
 * The ink mask, rounded strokes 3 to 5 px wide: the long contours (`contours`, at the small
 * size, enlarged smoothly) and the face's features.
 */
async function outlines(
  smooth: Buffer,
  contours: Uint8Array,
  sw: number,
  sh: number,
  width: number,
  height: number,
  face: { quiet: Uint8Array | null; features: Uint8Array; faces: Face[] },
): Promise<Buffer> {
  const { quiet, features, faces } = face;
  const n = width * height;
  // The small contours, enlarged smoothly (no stair steps) to full size.
  const big = await sharp(Buffer.from(contours.map((v) => (v ? 255 : 0))), {
    raw: { width: sw, height: sh, channels: 1 },
  })
    .resize(width, height, { fit: "fill", kernel: "cubic" })
    .blur(0.7)
    .extractChannel(0)
    .raw()
    .toBuffer();
  const mask = Uint8Array.from(big, (v) => (v >= 70 ? 1 : 0));
  const gray = new Uint8Array(n);
  for (let i = 0; i < n; i++) gray[i] = luma(smooth, i);
  const { mag } = sobel(gray, width, height);
  const strong = 60;
  // The eyes and brows are drawn on purpose, even on a faded print: their own strongest edges
  // (the top fifth inside their boxes) are inked too. Not the nose and mouth: their strongest
  // edges are the shadow under the nose and the upper lip, inked together as a moustache on
  // every face under about 200 px (the mouth gets its lip line below instead).
  const eyes = boxMask(
    faces.flatMap((f) => (smallEyes(f) ? [] : featureBoxes(f).slice(0, 4))),
    width,
    height,
    1,
  );
  const inFeatures: number[] = [];
  for (let i = 0; i < n; i++) if (eyes[i]) inFeatures.push(mag[i]!);
  if (inFeatures.length) {
    inFeatures.sort((a, b) => a - b);
    const featureStrong = Math.max(30, Math.min(strong, inFeatures[Math.floor(inFeatures.length * 0.8)]!));
    for (let i = 0; i < n; i++) if (eyes[i] && mag[i]! >= featureStrong) mask[i] = 1;
  }
  if (quiet) for (let i = 0; i < n; i++) if (quiet[i]) mask[i] = 0;
  for (const f of faces) dropStrayRings(mask, width, height, f);
  const side = Math.max(width, height);
  dropShortStrokes(mask, width, height, Math.max(12, Math.round(side / 40)), Math.round(side / 45), features);
  for (const f of faces) drawLipLine(mask, width, height, f);
  for (const f of faces) drawEyesAndBrows(mask, gray, width, height, f);
  // The features' ink is as wide as the face allows: the picture's stroke width on a small face
  // (a group, a waist-up portrait) joins the nose's shadow and the mouth into one black block,
  // a moustache on every woman. About a 120th of the face's width, never wider than elsewhere.
  const grow = Math.max(1, Math.round(side / 640));
  const widths = faces.filter((f) => f.mesh.length >= 468).map((f) => headGeometry(f).fw);
  const featureGrow = widths.length ? Math.min(grow, Math.round(Math.min(...widths) / 120)) : grow;
  if (featureGrow === grow) return grown(mask, width, height, grow, side);
  const rest = Uint8Array.from(mask, (v, i) => (v && !features[i] ? 1 : 0));
  const inked = await grown(rest, width, height, grow, side);
  const featureInk = Uint8Array.from(mask, (v, i) => (v && features[i] ? 1 : 0));
  const thin = await grown(featureInk, width, height, featureGrow, side);
  for (let i = 0; i < n; i++) if (thin[i]! > inked[i]!) inked[i] = thin[i]!;
  return inked;
}

/** The mesh's inner lip contours (upper and lower, corner to corner). */
const UPPER_INNER_LIP = [78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308];
const LOWER_INNER_LIP = [78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308];

/**
 * The mouth as a cartoonist draws it: one line along the seam between the lips (the middle of
 * the inner lip contours), its width a 110th of the face's, tapering off toward the corners.
 */
function drawLipLine(mask: Uint8Array, width: number, height: number, face: Face): void {
  if (face.mesh.length < 468) return;
  const { fw } = headGeometry(face);
  const r = Math.max(0.7, fw / 220);
  const pts = UPPER_INNER_LIP.map((u, k) => {
    const a = face.mesh[u]!;
    const b = face.mesh[LOWER_INNER_LIP[k]!]!;
    return [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] as const;
  });
  // Full width in the middle, thinner in the outer fifths.
  stampLine(mask, width, height, pts, (along) => r * Math.min(1, 0.45 + Math.min(along, 1 - along) * 2.75));
}

type Pt = readonly [number, number];

/** Stamps a round-capped polyline into a 0/1 mask, `radius(t)` px wide along it (t: 0..1). */
function stampLine(
  mask: Uint8Array,
  width: number,
  height: number,
  pts: Pt[],
  radius: (t: number) => number,
) {
  const last = pts.length - 1;
  for (let k = 0; k < last; k++) {
    const [x0, y0] = pts[k]!;
    const [x1, y1] = pts[k + 1]!;
    const steps = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) * 2));
    for (let s = 0; s <= steps; s++) {
      const t = s / steps;
      const rr = radius((k + t) / last);
      const cx = x0 + (x1 - x0) * t;
      const cy = y0 + (y1 - y0) * t;
      for (let y = Math.floor(cy - rr); y <= Math.ceil(cy + rr); y++) {
        if (y < 0 || y >= height) continue;
        for (let x = Math.floor(cx - rr); x <= Math.ceil(cx + rr); x++) {
          if (x < 0 || x >= width) continue;
          if ((x - cx) ** 2 + (y - cy) ** 2 <= rr * rr) mask[y * width + x] = 1;
        }
      }
    }
  }
}

/** The share of points along a polyline (one per pixel) with ink within `reach` px. */
function inkAlong(mask: Uint8Array, width: number, height: number, pts: Pt[], reach: number): number {
  let hit = 0;
  let all = 0;
  const r = Math.ceil(reach);
  for (let k = 0; k + 1 < pts.length; k++) {
    const [x0, y0] = pts[k]!;
    const [x1, y1] = pts[k + 1]!;
    const steps = Math.max(1, Math.round(Math.hypot(x1 - x0, y1 - y0)));
    for (let s = 0; s < steps; s++) {
      const cx = Math.round(x0 + ((x1 - x0) * s) / steps);
      const cy = Math.round(y0 + ((y1 - y0) * s) / steps);
      all++;
      search: for (let y = Math.max(0, cy - r); y <= Math.min(height - 1, cy + r); y++)
        for (let x = Math.max(0, cx - r); x <= Math.min(width - 1, cx + r); x++)
          if (mask[y * width + x] && (x - cx) ** 2 + (y - cy) ** 2 <= reach * reach) {
            hit++;
            break search;
          }
    }
  }
  return all ? hit / all : 1;
}

/**
 * The eyes and brows drawn on purpose from the face mesh where the picture's own edges left
 * them out (a small face, a soft or faded print: its eyes are too faint to ink): each eye's
 * upper lid as a line tapering to the corners and its iris as a dark disc inside the lids, each
 * brow as a stroke along its middle. An eye turned away (much narrower than the other) is not
 * drawn, nor an iris in a shut eye.
 */
function drawEyesAndBrows(mask: Uint8Array, gray: Uint8Array, width: number, height: number, face: Face) {
  if (face.mesh.length < 468) return;
  const at = (k: number): Pt => [face.mesh[k]![0], face.mesh[k]![1]];
  const { fw } = headGeometry(face);
  const reach = Math.max(1.5, fw / 45);
  const eyeWidths = MESH_EYES.map((e) =>
    Math.hypot(at(e.inner)[0] - at(e.outer)[0], at(e.inner)[1] - at(e.outer)[1]),
  );
  const widest = Math.max(...eyeWidths);
  MESH_EYES.forEach((e, k) => {
    const ew = eyeWidths[k]!;
    if (ew < 4 || ew < widest * 0.55) return;
    const outer = at(e.outer);
    const inner = at(e.inner);
    const upper = [outer, ...e.upper.map(at), inner];
    const lower = [inner, ...e.lower.map(at).reverse(), outer];
    const lid = Math.max(0.8, fw / 90);
    if (inkAlong(mask, width, height, upper, reach) < 0.6)
      stampLine(mask, width, height, upper, (t) => lid * Math.min(1, 0.5 + Math.min(t, 1 - t) * 2.5));
    // The iris: where the eye is darkest along it, as wide as the lids are open.
    const top = at(e.upper[3]!);
    const bottom = at(e.lower[3]!);
    const opening = Math.hypot(top[0] - bottom[0], top[1] - bottom[1]);
    if (opening < ew * 0.18) return;
    const contour = [...upper, ...lower.slice(1, -1)].map((p) => [p[0], p[1]] as [number, number]);
    const x0 = Math.max(0, Math.floor(Math.min(...contour.map((p) => p[0]))));
    const x1 = Math.min(width - 1, Math.ceil(Math.max(...contour.map((p) => p[0]))));
    const y0 = Math.max(0, Math.floor(Math.min(...contour.map((p) => p[1]))));
    const y1 = Math.min(height - 1, Math.ceil(Math.max(...contour.map((p) => p[1]))));
    const inside = polygonMask(
      contour.map(([x, y]) => [x - x0, y - y0] as [number, number]),
      x1 - x0 + 1,
      y1 - y0 + 1,
    );
    let sum = 0;
    let count = 0;
    for (let y = y0; y <= y1; y++)
      for (let x = x0; x <= x1; x++)
        if (inside[(y - y0) * (x1 - x0 + 1) + (x - x0)]) {
          sum += gray[y * width + x]!;
          count++;
        }
    if (!count) return;
    const mean = sum / count;
    let sw = 0;
    let sx = 0;
    let sy = 0;
    for (let y = y0; y <= y1; y++)
      for (let x = x0; x <= x1; x++)
        if (inside[(y - y0) * (x1 - x0 + 1) + (x - x0)]) {
          const w = Math.max(0, mean + 4 - gray[y * width + x]!) ** 2;
          sw += w;
          sx += w * x;
          sy += w * y;
        }
    const mx = (top[0] + bottom[0]) / 2;
    const my = (top[1] + bottom[1]) / 2;
    const ux = (inner[0] - outer[0]) / ew;
    const uy = (inner[1] - outer[1]) / ew;
    const along =
      sw > 0 ? Math.max(-0.18 * ew, Math.min(0.18 * ew, (sx / sw - mx) * ux + (sy / sw - my) * uy)) : 0;
    const ix = mx + ux * along;
    const iy = my + uy * along;
    const r = Math.min(0.3 * ew, opening * 0.62);
    let irisInk = 0;
    let irisAll = 0;
    for (let y = y0; y <= y1; y++)
      for (let x = x0; x <= x1; x++)
        if (inside[(y - y0) * (x1 - x0 + 1) + (x - x0)] && (x - ix) ** 2 + (y - iy) ** 2 <= r * r) {
          irisAll++;
          if (mask[y * width + x]) irisInk++;
        }
    if (!irisAll || irisInk / irisAll >= 0.4) return;
    for (let y = y0; y <= y1; y++)
      for (let x = x0; x <= x1; x++)
        if (inside[(y - y0) * (x1 - x0 + 1) + (x - x0)] && (x - ix) ** 2 + (y - iy) ** 2 <= r * r)
          mask[y * width + x] = 1;
  });
  MESH_BROWS.forEach((b, k) => {
    if ((eyeWidths[k] ?? 0) < widest * 0.55) return;
    const mid = b.upper.map((u, j) => {
      const [ax, ay] = at(u);
      const [bx, by] = at(b.lower[j]!);
      return [(ax + bx) / 2, (ay + by) / 2] as Pt;
    });
    if (inkAlong(mask, width, height, mid, reach) >= 0.5) return;
    const w = Math.max(0.8, fw / 80);
    // Thickest toward the nose, thinning to the outer end.
    stampLine(mask, width, height, mid, (t) => w * (0.55 + 0.45 * t));
  });
}

/** Eyes at least this wide (px, corner to corner) are painted as poster eyes (session 11). */
export const POSTER_EYE = 14;

/** The eye white's colour: a warm off-white (one colour more in the poster's palette). */
export const EYE_WHITE: readonly [number, number, number] = [240, 234, 222];

type EyeShape = {
  /** Pixels of the opening (between the lids). */
  opening: number[];
  /** The opening, grown: where the picture's own ink is cleared. */
  around: number[];
  upper: Pt[];
  lower: Pt[];
  ew: number;
  /** The iris's centre and radius (px). */
  ix: number;
  iy: number;
  ir: number;
};

/** The height of a polyline (ordered along x either way) at a column; -Infinity off its ends. */
function polylineY(pts: Pt[], x: number): number {
  for (let k = 0; k + 1 < pts.length; k++) {
    const [ax, ay] = pts[k]!;
    const [bx, by] = pts[k + 1]!;
    if ((x - ax) * (x - bx) <= 0 && ax !== bx) return ay + ((by - ay) * (x - ax)) / (bx - ax);
  }
  return -Infinity;
}

/**
 * The picture's own ink in and around each poster eye's opening cleared (its dark socket, lids
 * and lashes), and the stubs that clearing leaves beside it (cut lashes, a sliver of the socket's
 * edge: pieces under 6 % of the eye's width squared that touched the cleared area) with it.
 */
function clearAroundEyes(ink: Buffer, width: number, height: number, eyes: EyeShape[]): void {
  const cleared = new Uint8Array(width * height);
  for (const e of eyes)
    for (const i of e.around) {
      ink[i] = 0;
      cleared[i] = Math.max(cleared[i]!, Math.min(255, Math.round(e.ew)));
    }
  const inked = Uint8Array.from(ink, (v) => (v > 127 ? 1 : 0));
  forEachPiece8(inked, width, height, (piece) => {
    let ew = 0;
    for (const p of piece) {
      const x = p % width;
      const y = (p - x) / width;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          const yy = y + dy;
          if (xx >= 0 && yy >= 0 && xx < width && yy < height) ew = Math.max(ew, cleared[yy * width + xx]!);
        }
    }
    if (ew && piece.length < Math.max(30, 0.06 * ew * ew)) for (const p of piece) ink[p] = 0;
  });
}

/**
 * Session 11: a face's open eyes as a poster draws them (a light eye white, a dark iris with a
 * catch-light, a crisp upper lid line, a thin lower lid), from the face mesh: the picture's
 * own ink made each eye a solid black bar (its dark socket, lids and lashes), with no whites.
 * Only eyes at least {@link POSTER_EYE} px wide (smaller ones keep the drawn lid and iris),
 * open (lids apart by a fifth of the eye's width), and not turned away (at least 0.6 of the
 * other eye's width). The iris sits where the eye is darkest along it.
 */
function eyeShapes(face: Face, smooth: Buffer, width: number, height: number): EyeShape[] {
  if (face.mesh.length < 468) return [];
  const at = (k: number): Pt => [face.mesh[k]![0], face.mesh[k]![1]];
  const widths = MESH_EYES.map((e) =>
    Math.hypot(at(e.inner)[0] - at(e.outer)[0], at(e.inner)[1] - at(e.outer)[1]),
  );
  const widest = Math.max(...widths);
  const shapes: EyeShape[] = [];
  MESH_EYES.forEach((e, k) => {
    const ew = widths[k]!;
    if (ew < POSTER_EYE || ew < widest * 0.6) return;
    const outer = at(e.outer);
    const inner = at(e.inner);
    const upper = [outer, ...e.upper.map(at), inner];
    const lower = [outer, ...e.lower.map(at), inner];
    const top = at(e.upper[3]!);
    const bottom = at(e.lower[3]!);
    const open = Math.hypot(top[0] - bottom[0], top[1] - bottom[1]);
    if (open < ew * 0.2) return;
    const contour = [...upper, ...[...lower].reverse().slice(1, -1)].map(
      (p) => [p[0], p[1]] as [number, number],
    );
    const pad = Math.ceil(ew * 0.12) + 1;
    const x0 = Math.max(0, Math.floor(Math.min(...contour.map((p) => p[0]))) - pad);
    const x1 = Math.min(width - 1, Math.ceil(Math.max(...contour.map((p) => p[0]))) + pad);
    const y0 = Math.max(0, Math.floor(Math.min(...contour.map((p) => p[1]))) - pad);
    const y1 = Math.min(height - 1, Math.ceil(Math.max(...contour.map((p) => p[1]))) + pad);
    const bw = x1 - x0 + 1;
    const bh = y1 - y0 + 1;
    const inside = polygonMask(
      contour.map(([x, y]) => [x - x0, y - y0] as [number, number]),
      bw,
      bh,
    );
    const opening: number[] = [];
    let sum = 0;
    for (let y = 0; y < bh; y++)
      for (let x = 0; x < bw; x++)
        if (inside[y * bw + x]) {
          const i = (y + y0) * width + x + x0;
          opening.push(i);
          sum += luma(smooth, i);
        }
    if (opening.length < 6) return;
    // Grown by a ninth of the eye's width (a square reach): the socket's and lashes' ink.
    const g = Math.max(1, Math.round(ew * 0.11));
    const around: number[] = [];
    for (let y = 0; y < bh; y++)
      for (let x = 0; x < bw; x++) {
        let near = false;
        for (let dy = -g; dy <= g && !near; dy++) {
          const yy = y + dy;
          if (yy < 0 || yy >= bh) continue;
          for (let dx = -g; dx <= g; dx++) {
            const xx = x + dx;
            if (xx >= 0 && xx < bw && inside[yy * bw + xx]) {
              near = true;
              break;
            }
          }
        }
        if (near) around.push((y + y0) * width + x + x0);
      }
    // The iris: where the opening is darkest along the eye, kept off the corners.
    const mean = sum / opening.length;
    let sw = 0;
    let sx = 0;
    let sy = 0;
    for (const i of opening) {
      const w = Math.max(0, mean + 4 - luma(smooth, i)) ** 2;
      sw += w;
      sx += w * (i % width);
      sy += w * Math.floor(i / width);
    }
    const mx = (top[0] + bottom[0]) / 2;
    const my = (top[1] + bottom[1]) / 2;
    const ux = (inner[0] - outer[0]) / ew;
    const uy = (inner[1] - outer[1]) / ew;
    const along =
      sw > 0 ? Math.max(-0.2 * ew, Math.min(0.2 * ew, (sx / sw - mx) * ux + (sy / sw - my) * uy)) : 0;
    // A real iris is about 0.4 of the eye's width across; the lids clip it, and its top is
    // tucked under the upper lid (not a disc floating in the white).
    const ir = Math.max(1.5, ew * 0.21);
    const ix = mx + ux * along;
    const lidAt = polylineY(upper, ix);
    const iy = Number.isFinite(lidAt) ? Math.min(my + uy * along, lidAt + ir * 0.8) : my + uy * along;
    shapes.push({ opening, around, upper, lower, ew, ix, iy, ir });
  });
  return shapes;
}

/** Paints one poster eye (see {@link eyeShapes}) into the RGB picture. */
function paintEye(rgb: Buffer, width: number, height: number, e: EyeShape): void {
  const set = (i: number, c: readonly [number, number, number]) => {
    rgb[i * 3] = c[0];
    rgb[i * 3 + 1] = c[1];
    rgb[i * 3 + 2] = c[2];
  };
  const r2 = e.ir * e.ir;
  const hx = e.ix - e.ir * 0.35;
  const hy = e.iy - e.ir * 0.4;
  const hr = Math.max(0.8, e.ir * 0.3);
  for (const i of e.opening) {
    const x = (i % width) + 0.5;
    const y = Math.floor(i / width) + 0.5;
    if ((x - hx) ** 2 + (y - hy) ** 2 <= hr * hr) set(i, EYE_WHITE);
    else if ((x - e.ix) ** 2 + (y - e.iy) ** 2 <= r2) set(i, INK);
    else set(i, EYE_WHITE);
  }
  const mask = new Uint8Array(width * height);
  const lid = Math.max(1, e.ew / 14);
  // The upper lid: thickest in its middle, a little flick past the outer corner.
  const [ox, oy] = e.upper[0]!;
  const [nx, ny] = e.upper[1]!;
  const flick: Pt = [ox + (ox - nx) * 0.5, oy + (oy - ny) * 0.5 - e.ew * 0.03];
  stampLine(
    mask,
    width,
    height,
    [flick, ...e.upper],
    (t) => lid * Math.min(1, 0.45 + Math.min(t, 1 - t) * 2.5),
  );
  stampLine(mask, width, height, e.lower, () => Math.max(0.6, lid * 0.35));
  for (let i = 0; i < mask.length; i++) if (mask[i]) set(i, INK);
}

/** A 0/1 line mask grown by `radius` px (0: as drawn), smoothed and thresholded (0 or 255). */
async function grown(
  mask: Uint8Array,
  width: number,
  height: number,
  radius: number,
  side: number,
): Promise<Buffer> {
  const lines = Buffer.from(mask.map((v) => (v ? 255 : 0)));
  // sharp's morphology treats dark as foreground: erode() grows these white line pixels.
  let img = sharp(lines, { raw: { width, height, channels: 1 } });
  if (radius > 0) img = img.erode(radius);
  return img
    .blur(Math.max(0.8, side / 900) * (radius > 0 ? 1 : 0.6))
    .threshold(radius > 0 ? 110 : 90)
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
}

/**
 * A closed ring of ink inside a face that is not an eye or the mouth (a watermark's "O", a
 * reflection on glasses) reads as a blotch: every hole in the ink (a region of no ink that the
 * ink closes, under an eighth of the face's width across) whose centre is inside the
 * face oval but not on an eye, a nostril or the mouth loses the ink around it.
 */
function dropStrayRings(mask: Uint8Array, width: number, height: number, face: Face): void {
  if (face.mesh.length < 468) return;
  const { oval, fw } = headGeometry(face);
  const inOval = polygonMask(oval, width, height);
  const [eyeR, eyeL, , , , mouth] = featureBoxes(face, 0.01);
  // The nostrils: around the nose's tip and wings (not its bridge, where glasses' reflections sit).
  const nx = [1, 2, 98, 327].map((i) => face.mesh[i]![0]);
  const ny = [1, 2, 98, 327].map((i) => face.mesh[i]![1]);
  const pad = fw * 0.03;
  const nostrils: [number, number, number, number] = [
    Math.min(...nx) - pad,
    Math.min(...ny) - pad,
    Math.max(...nx) - Math.min(...nx) + 2 * pad,
    Math.max(...ny) - Math.min(...ny) + 2 * pad,
  ];
  const tight = [eyeR!, eyeL!, mouth!, nostrils];
  const box = {
    x0: Math.max(0, Math.floor(Math.min(...oval.map((p) => p[0]))) - 2),
    x1: Math.min(width - 1, Math.ceil(Math.max(...oval.map((p) => p[0]))) + 2),
    y0: Math.max(0, Math.floor(Math.min(...oval.map((p) => p[1]))) - 2),
    y1: Math.min(height - 1, Math.ceil(Math.max(...oval.map((p) => p[1]))) + 2),
  };
  // Each region of no ink within the oval's box that never reaches the box's edge: a hole.
  forEachHole(mask, width, box, (fw * 0.12) ** 2, (hole) => {
    let sumX = 0;
    let sumY = 0;
    for (const p of hole) {
      const x = p % width;
      sumX += x;
      sumY += (p - x) / width;
    }
    const cx = sumX / hole.length;
    const cy = sumY / hole.length;
    if (!inOval[Math.round(cy) * width + Math.round(cx)]) return;
    if (tight.some(([bx, by, bw, bh]) => cx >= bx && cx <= bx + bw && cy >= by && cy <= by + bh)) return;
    // The ring: ink within a stroke's reach of the hole.
    const reach = Math.max(2, Math.round(Math.sqrt(hole.length) * 0.3));
    for (const p of hole) {
      const x = p % width;
      const y = (p - x) / width;
      for (let yy = Math.max(0, y - reach); yy <= Math.min(height - 1, y + reach); yy++)
        for (let xx = Math.max(0, x - reach); xx <= Math.min(width - 1, x + reach); xx++)
          mask[yy * width + xx] = 0;
    }
  });
}

/**
 * Removes line fragments (8-connected) with fewer than `minLength` pixels, and small closed
 * shapes (both sides of the box under `minExtent`: a dust speck, a stray ring) outside `keep`
 * (the face features): no ink speckle, no ink dots.
 */
function dropShortStrokes(
  mask: Uint8Array,
  width: number,
  height: number,
  minLength: number,
  minExtent: number,
  keep: Uint8Array,
): void {
  forEachPiece8(mask, width, height, (piece) => {
    let x0 = width;
    let x1 = 0;
    let y0 = height;
    let y1 = 0;
    let kept = false;
    for (const p of piece) {
      const x = p % width;
      const y = (p - x) / width;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (keep[p]) kept = true;
    }
    const dot = !kept && x1 - x0 < minExtent && y1 - y0 < minExtent;
    if (piece.length < minLength || dot) for (const p of piece) mask[p] = 0;
  });
}
