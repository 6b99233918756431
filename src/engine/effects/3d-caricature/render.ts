import { personMatte } from "../../vision/human";
import { encodePng, type EffectOutput } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import { inspect } from "./rules";
import { CLAY, clayShade } from "../../shared/clay/clay";
import { caricatureField, HEAD_SCALE, resample, sourceMap } from "./warp";

/**
 * 3D caricature: a mesh-driven warp (big head, big eyes, wider smile) followed by clay
 * shading (edge-preserving smoothing and Blinn-Phong light on a height map of the subject).
 * One face per photo: it refuses a photo without a face, or with several faces of similar
 * size (a caricature of one of them would look like a mistake).
 */

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { src, face } = await inspect(req);
  const { width, height } = src;
  const matte = await personMatte(src);

  const map = sourceMap(caricatureField(face), width, height);
  const { rgb, alpha } = resample(src.data, matte.alpha, width, height, map);

  const faceWidth = face.box[2] * HEAD_SCALE;
  const out = clayShade(rgb, alpha, width, height, {
    ...CLAY,
    smoothSpace: faceWidth * 0.12,
    domeSigma: faceWidth * 0.22,
    domeDepth: faceWidth * 0.5,
    reliefSigma: faceWidth * 0.04,
    reliefDepth: faceWidth * 0.1,
  });
  return encodePng({ data: out, width, height, channels: 3 });
}
