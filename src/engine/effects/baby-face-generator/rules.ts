import { decodeRaw, type RawImage } from "../../shared/image-io";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { detectFaces, type Face } from "../../vision/human";

const noFace = (which: string) =>
  new EngineError(`No face was found in ${which}. Please upload a clear portrait.`, false, "noFace");
const needTwoFaces = () =>
  new EngineError(
    "Please upload two parent photos, or one photo of the couple with exactly two faces.",
    false,
    "needTwoFaces",
  );

export interface Parent {
  image: RawImage;
  face: Face;
}

/**
 * Baby face input rules: one photo with exactly two faces (left to right), or two photos
 * with one face each. Run before charging and as the render's first step.
 */
export async function inspect(req: RenderRequest): Promise<Parent[]> {
  const decode = (bytes: Uint8Array) => decodeRaw(bytes, { channels: 3, flatten: true, maxSide: 1600 });
  if (req.images.length === 1) {
    const image = await decode(req.images[0]!.bytes);
    const { faces } = await detectFaces(image);
    if (faces.length === 0) throw noFace("this photo");
    if (faces.length !== 2) throw needTwoFaces();
    // Left to right, so the result does not depend on which face the detector ranks first.
    return faces.sort((a, b) => a.box[0] - b.box[0]).map((face) => ({ image, face }));
  }
  if (req.images.length !== 2) throw needTwoFaces();
  const images = await Promise.all(req.images.map((i) => decode(i.bytes)));
  const found = await Promise.all(images.map((i) => detectFaces(i)));
  return found.map(({ faces }, k) => {
    const which = k === 0 ? "the first photo" : "the second photo";
    if (faces.length === 0) throw noFace(which);
    if (faces.length > 1)
      throw new EngineError(
        `${which[0]!.toUpperCase()}${which.slice(1)} shows several faces. Please upload a photo of one parent only.`,
        false,
        "severalFaces",
      );
    return { image: images[k]!, face: faces[0]! };
  });
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));

/** Every engine needs the two parents' faces (ADR 008): the same rules on any engine. */
export const safety = check;
