import { decodeRaw, type RawImage } from "../../shared/image-io";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { detectFaces, type Face } from "../../vision/human";

export interface Person {
  image: RawImage;
  face: Face;
}

const needTwoPhotos = () =>
  new EngineError("Please upload two photos: you today first, then you as a child.", false, "needTwoPhotos");

async function person(bytes: Uint8Array, which: string): Promise<Person> {
  if (bytes.byteLength === 0) throw needTwoPhotos();
  const image = await decodeRaw(bytes, { channels: 3, flatten: true, maxSide: 1024 });
  const { faces } = await detectFaces(image);
  if (!faces[0])
    throw new EngineError(`No face was found in ${which}. Please upload a clear portrait.`, false, "noFace");
  // A group photo would paste the whole group into the hug: each photo shows one person.
  if (faces.length > 1)
    throw new EngineError(
      `${which[0]!.toUpperCase()}${which.slice(1)} shows several faces. Please upload a photo of just you.`,
      false,
      "severalFaces",
    );
  return { image, face: faces[0] };
}

/**
 * Hug input rules: exactly two photos, today's first, the childhood one second, each with
 * exactly one face (a group photo is refused: the hug would paste the whole group). Run before charging and as the render's first step.
 */
export async function inspect(req: RenderRequest): Promise<{ adult: Person; child: Person }> {
  const [today, then] = req.images;
  if (req.images.length !== 2 || !today || !then) throw needTwoPhotos();
  const adult = await person(today.bytes, "the first photo (you today)");
  const child = await person(then.bytes, "the second photo (you as a child)");
  return { adult, child };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));
