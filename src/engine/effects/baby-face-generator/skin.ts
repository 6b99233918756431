import sharp from "sharp";
import { transformRaw, type RawImage } from "../../shared/image-io";
import { centroid, dist, FACE_OVAL, LEFT_EYE, MARKS, RIGHT_EYE } from "./baby-shape";
import type { Pt } from "../../shared/warp/delaunay";

/**
 * Baby skin inside the face oval (eyes, brows, nostrils and mouth excluded): an edge-preserving
 * blur so pores and wrinkles go while the features stay sharp, stubble and beard shadow lifted
 * towards the face's own skin tone, and a faint rosy glow on the cheeks.
 */
export async function smoothSkin(img: RawImage, shape: readonly Pt[]): Promise<RawImage> {
  const { width, height } = img;
  const w = dist(shape[MARKS.face[0]]!, shape[MARKS.face[1]]!);
  const eyeR = centroid(shape, RIGHT_EYE);
  const eyeL = centroid(shape, LEFT_EYE);
  const mouth = centroid(shape, [61, 291, 13, 14]);
  const nose = centroid(shape, [98, 327, 2]);
  const ellipse = ([x, y]: Pt, rx: number, ry: number) =>
    `<ellipse cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" rx="${rx.toFixed(1)}" ry="${ry.toFixed(1)}" fill="black"/>`;
  // The mask is drawn by libvips (SVG), far quicker than testing every pixel in JS.
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="black"/>
    <polygon fill="white" points="${FACE_OVAL.map((i) => shape[i]!.map((v) => v.toFixed(1)).join(",")).join(" ")}"/>
    ${ellipse(eyeR, 0.16 * w, 0.13 * w)}${ellipse(eyeL, 0.16 * w, 0.13 * w)}
    ${ellipse(mouth, 0.17 * w, 0.09 * w)}${ellipse(nose, 0.1 * w, 0.05 * w)}
  </svg>`;
  const [mask, blurred] = await Promise.all([
    sharp(Buffer.from(svg))
      .blur(0.025 * w)
      .extractChannel(0)
      .raw()
      .toBuffer(),
    transformRaw(img, (i) => i.blur(0.012 * w)),
  ]);

  // The face's own skin tone: the cheeks and forehead, well inside the mask.
  const ref = [0, 0, 0];
  let n = 0;
  const noseY = shape[2]![1];
  for (let i = 0; i < width * height; i++) {
    if (mask[i]! < 250 || Math.floor(i / width) > noseY) continue;
    for (let c = 0; c < 3; c++) ref[c] = ref[c]! + blurred.data[i * 3 + c]!;
    n++;
  }
  const skin = n ? ref.map((v) => v / n) : [200, 170, 150];
  const skinLuma = 0.299 * skin[0]! + 0.587 * skin[1]! + 0.114 * skin[2]!;
  const cheeks: Pt[] = [
    [shape[MARKS.face[0]]![0] + 0.2 * w, mouth[1] - 0.1 * w],
    [shape[MARKS.face[1]]![0] - 0.2 * w, mouth[1] - 0.1 * w],
  ];
  const out = Buffer.from(img.data);
  for (let i = 0; i < width * height; i++) {
    const m = mask[i]! / 255;
    if (m === 0) continue;
    const o = i * 3;
    const x = i % width;
    const y = (i - x) / width;
    const diff = Math.abs(img.data[o + 1]! - blurred.data[o + 1]!);
    // Small differences are skin texture (smoothed away); large ones are edges (kept).
    const k = m * 0.85 * Math.exp(-((diff / 14) ** 2));
    const luma = 0.299 * blurred.data[o]! + 0.587 * blurred.data[o + 1]! + 0.114 * blurred.data[o + 2]!;
    // Below the nose, what is darker than the skin is stubble or beard: babies have none.
    const below = Math.max(0, Math.min(1, (y - noseY + 0.05 * w) / (0.2 * w)));
    const beard = Math.min(0.8, Math.max(0, (skinLuma - luma) / 60)) * m * below;
    let rosy = 0;
    for (const [cx, cy] of cheeks) rosy += Math.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * (0.09 * w) ** 2));
    const tint = [1 + 0.07 * rosy * m, 1 - 0.01 * rosy * m, 1 - 0.01 * rosy * m];
    for (let c = 0; c < 3; c++) {
      let v = img.data[o + c]! + (blurred.data[o + c]! - img.data[o + c]!) * k;
      v += (skin[c]! - v) * beard;
      out[o + c] = Math.min(255, Math.round(v * tint[c]! * (1 + 0.04 * m)));
    }
  }
  return { data: out, width, height, channels: 3 };
}
