import sharp from "sharp";
import { EngineError } from "@/core/ports/renderer";
import type { RawImage } from "../image-io";
import { keepComponents, threshold } from "../mask";
import { detectBodies, personMatte, type Face } from "../../vision/human";
import { decontaminate, refineMatte, smoothstep } from "./matte";

/**
 * The portrait effects' common front end (LinkedIn headshot, studio portrait): the main
 * subject (the largest face; refused when another face is as large or too close to cut
 * away cleanly), a crop framed on that face, the refined person matte of the main subject
 * only (bystanders removed), and the body geometry (neck, shoulders from MoveNet) that the
 * procedural garments are drawn on. Everything is returned in output pixels.
 */

/** Another face at least this share of the main face's height makes it a group photo. */
const PEER_FACE = 0.6;

/**
 * The main subject's face: the largest, provided no other face competes with it (as large,
 * or near enough that cutting it away would tear the main subject). Smaller faces further
 * away are bystanders: the render removes them from the matte.
 */
export function requireMainFace(faces: Face[]): { main: Face; others: Face[] } {
  const main = faces[0];
  if (!main)
    throw new EngineError(
      "No face was found in this photo. Please upload a clear portrait.",
      false,
      "noFace",
    );
  const [mx, my, mw, mh] = main.box;
  const others = faces.slice(1);
  for (const f of others) {
    const [x, y, w, h] = f.box;
    const dx = Math.abs(x + w / 2 - (mx + mw / 2));
    const dy = Math.abs(y + h / 2 - (my + mh / 2));
    const near = dx < mw * 1.9 && dy < mh * 1.6;
    if (h >= mh * PEER_FACE || near) {
      throw new EngineError(
        "This photo shows several faces. Please upload a photo of just you.",
        false,
        "severalFaces",
      );
    }
  }
  return { main, others };
}

export type Pt = [number, number];

export interface FaceGeometry {
  /** Face box in output pixels. */
  box: [number, number, number, number];
  mesh: Pt[];
  /** Neck/body centre line x, chin y, face width (cheek to cheek) and box height. */
  cx: number;
  chinY: number;
  eyeY: number;
  fw: number;
  fh: number;
  /** Neck half-width. */
  neck: number;
  /** Shoulder points (image left, image right) and whether MoveNet found them. */
  shoulders: [Pt, Pt];
  measuredShoulders: boolean;
}

export interface PortraitFrame {
  width: number;
  height: number;
  /** The photo inside the frame, RGB (the fill colour where the frame leaves the photo). */
  rgb: Buffer;
  /** Foreground colours for compositing (the edge's old background pulled out). */
  fg: Buffer;
  /** The main subject's refined matte, 0..1 (bystanders removed). */
  alpha: Float32Array;
  /** How much of each pixel comes from the photo (0 in the padding). */
  inPhoto: Float32Array;
  geo: FaceGeometry;
  others: Array<[number, number, number, number]>;
}

export interface FrameSpec {
  /** Output size. */
  width: number;
  height: number;
  /** Face box height as a share of the frame height, and the most allowed on a tight photo. */
  faceShare: number;
  maxFaceShare: number;
  /** Face box centre's height in the frame (0 top .. 1 bottom). */
  faceY: number;
  fill: readonly [number, number, number];
}

/** Crops, refines and measures: see the module comment. */
export async function framePortrait(
  src: RawImage,
  main: Face,
  others: Face[],
  spec: FrameSpec,
): Promise<PortraitFrame> {
  const { width: sw, height: sh } = src;
  const [bodies, matte] = [await detectBodies(src), await personMatte(src)];
  const aspect = spec.width / spec.height;
  const [fx, fy, fw, fh] = main.box;
  // Crop height: the face at faceShare, but the crop stays inside the photo where it can
  // (up to maxFaceShare), rather than inventing a body below a tightly cropped photo.
  const fitsH = Math.min(sh, sw / aspect);
  const cropH = Math.max(fh / spec.maxFaceShare, Math.min(fh / spec.faceShare, fitsH));
  const cropW = cropH * aspect;
  const fit = (start: number, size: number, photo: number) =>
    size <= photo ? Math.min(Math.max(0, start), photo - size) : start;
  const left = Math.round(fit(fx + fw / 2 - cropW / 2, cropW, sw));
  const top = Math.round(fit(fy + fh / 2 - cropH * spec.faceY, cropH, sh));
  const cw = Math.max(1, Math.round(cropW));
  const ch = Math.max(1, Math.round(cropH));
  const pad = {
    left: Math.max(0, -left),
    top: Math.max(0, -top),
    right: Math.max(0, left + cw - sw),
    bottom: Math.max(0, top + ch - sh),
  };
  const cut = async (data: Buffer, channels: 1 | 3, fill: number[]) => {
    const padded = await sharp(data, { raw: { width: sw, height: sh, channels } })
      .extend({
        ...pad,
        background: channels === 3 ? { r: fill[0], g: fill[1], b: fill[2] } : { r: 0, g: 0, b: 0 },
      })
      .raw()
      .toBuffer({ resolveWithObject: true });
    let img = sharp(padded.data, {
      raw: { width: padded.info.width, height: padded.info.height, channels: padded.info.channels },
    })
      .extract({ left: left + pad.left, top: top + pad.top, width: cw, height: ch })
      .resize(spec.width, spec.height, { fit: "fill", kernel: channels === 3 ? "lanczos3" : "cubic" });
    img = channels === 3 ? img.removeAlpha() : img.toColourspace("b-w").extractChannel(0);
    return img.raw().toBuffer();
  };
  const W = spec.width;
  const H = spec.height;
  const rgb = await cut(src.data, 3, [...spec.fill]);
  const coarse = await cut(matte.alpha, 1, [0]);
  const scale = W / cw;
  const map = (x: number, y: number): Pt => [(x - left) * scale, (y - top) * scale];
  const inPhoto = new Float32Array(W * H);
  const px0 = (0 - left) * scale;
  const py0 = (0 - top) * scale;
  const px1 = (sw - left) * scale;
  const py1 = (sh - top) * scale;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const cx = Math.min(x + 1, px1) - Math.max(x, px0);
      const cy = Math.min(y + 1, py1) - Math.max(y, py0);
      inPhoto[y * W + x] = Math.max(0, Math.min(1, cx)) * Math.max(0, Math.min(1, cy));
    }

  // Geometry in output pixels.
  const mesh = main.mesh.map(([x, y]) => map(x, y));
  const box: [number, number, number, number] = [...map(fx, fy), fw * scale, fh * scale];
  const chin = mesh[152]!;
  const fwo = Math.hypot(mesh[454]![0] - mesh[234]![0], mesh[454]![1] - mesh[234]![1]);
  const fho = box[3];
  const eyeY = (mesh[33]![1] + mesh[263]![1]) / 2;

  // Refined matte, then the main subject only.
  const radius = Math.max(2, Math.round(Math.max(W, H) * 0.006));
  let alpha = refineMatte(rgb, coarse, W, H, { radius, band: radius * 2, eps: 8e-4 });
  for (let i = 0; i < alpha.length; i++) alpha[i] = alpha[i]! * inPhoto[i]!;
  alpha = mainSubject(
    alpha,
    W,
    H,
    [chin[0], (box[1] + box[3] / 2 + chin[1]) / 2],
    box,
    others.map((f) => [...map(f.box[0], f.box[1]), f.box[2] * scale, f.box[3] * scale]),
  );

  // Neck half-width: the matte's run through the neck a little below the chin.
  const neckY = Math.min(H - 1, Math.round(chin[1] + fho * 0.12));
  let neck = fwo * 0.27;
  if (neckY > 0) {
    let a = Math.round(chin[0]);
    let b = a;
    const row = neckY * W;
    if (alpha[row + a]! > 0.5) {
      while (a > 0 && alpha[row + a - 1]! > 0.5) a--;
      while (b < W - 1 && alpha[row + b + 1]! > 0.5) b++;
      neck = (b - a + 1) / 2;
    }
  }
  neck = Math.max(fwo * 0.22, Math.min(fwo * 0.3, neck));

  // Shoulders: MoveNet's x when it is sure and plausible, else proportions of the face; the
  // height of each shoulder from the matte (the first row below the chin where the body is
  // more than a face width out from the neck on that side), else proportions.
  const kp = bodies.bodies[0]?.keypoints ?? [];
  const ls = kp.find((k) => k.part === "leftShoulder");
  const rs = kp.find((k) => k.part === "rightShoulder");
  let half = fwo * 1.3;
  let mid = chin[0];
  let measured = false;
  if (ls && rs && ls.score > 0.3 && rs.score > 0.3) {
    const a = map(rs.x, rs.y);
    const b = map(ls.x, ls.y);
    const h2 = Math.abs(b[0] - a[0]) / 2;
    if (h2 > fwo * 0.8 && h2 < fwo * 2.2) {
      half = Math.max(fwo * 1.05, Math.min(fwo * 1.75, h2));
      mid = Math.max(chin[0] - fwo * 0.35, Math.min(chin[0] + fwo * 0.35, (a[0] + b[0]) / 2));
      measured = true;
    }
  }
  const shoulderY = (s: -1 | 1): number => {
    const reach = fwo * 1.0;
    const from = Math.max(0, Math.round(chin[1] + fho * 0.08));
    const to = Math.min(H - 1, Math.round(chin[1] + fho * 0.9));
    for (let y = from; y <= to; y++) {
      const x = Math.round(chin[0] + s * reach);
      if (x < 0 || x >= W) break;
      if (alpha[y * W + x]! > 0.5) return Math.max(chin[1] + fho * 0.18, y + fho * 0.05);
    }
    return chin[1] + fho * 0.4;
  };
  let yl = shoulderY(-1);
  let yr = shoulderY(1);
  const meanY = (yl + yr) / 2;
  const maxTilt = fho * 0.25;
  yl = meanY + Math.max(-maxTilt, Math.min(maxTilt, yl - meanY));
  yr = meanY + Math.max(-maxTilt, Math.min(maxTilt, yr - meanY));
  const shoulders: [Pt, Pt] = [
    [mid - half, yl],
    [mid + half, yr],
  ];

  const fg = decontaminate(rgb, alpha, W, H, Math.max(2, radius));
  return {
    width: W,
    height: H,
    rgb,
    fg,
    alpha,
    inPhoto,
    geo: {
      box,
      mesh,
      cx: chin[0],
      chinY: chin[1],
      eyeY,
      fw: fwo,
      fh: fho,
      neck,
      shoulders,
      measuredShoulders: measured,
    },
    others: others.map((f) => [...map(f.box[0], f.box[1]), f.box[2] * scale, f.box[3] * scale]),
  };
}

/**
 * The main subject's matte: the pieces connected to the main face (loose blobs of other
 * people or objects dropped), with each bystander's own zone (nearer its face than the
 * main one, in face widths, from a little above it downwards) cut away.
 */
function mainSubject(
  alpha: Float32Array,
  W: number,
  H: number,
  seed: Pt,
  main: [number, number, number, number],
  others: Array<[number, number, number, number]>,
): Float32Array {
  const bytes = new Uint8Array(W * H);
  for (let i = 0; i < bytes.length; i++) bytes[i] = alpha[i]! > 0.08 ? 255 : 0;
  const mcx = main[0] + main[2] / 2;
  const seeds: Pt[] = [seed, [mcx, main[1] + main[3] * 0.5]];
  const kept = keepComponents(threshold(bytes, W, H, 128), seeds);
  const out = new Float32Array(W * H);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (!kept.data[i]) continue;
      let a = alpha[i]!;
      for (const [ox, oy, ow, oh] of others) {
        const ocx = ox + ow / 2;
        if (y < oy - oh * 0.8) continue;
        const dOther = Math.abs(x - ocx) / ow;
        const dMain = Math.abs(x - mcx) / main[2];
        // A soft split (a quarter face width) between the two people.
        a *= smoothstep(-0.25, 0.25, dOther - dMain);
      }
      out[i] = a;
    }
  return out;
}
