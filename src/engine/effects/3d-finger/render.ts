import sharp from "sharp";
import { personMatte } from "../../vision/human";
import { encodePng, type EffectOutput } from "../../shared/image-io";
import { mulberry32 } from "../../shared/random";
import type { RenderRequest } from "@/core/ports/renderer";
import { noFaceError } from "../../shared/face-rules";
import { CLAY, clayShade } from "../../shared/clay/clay";
import { bounds, threshold } from "../../shared/mask";
import { cutOutPeople, noSubjectError } from "../../shared/subject";
import { badgeMask, cutOutWholeObject } from "../../shared/whole-object";
import { repairPrintDamage } from "../../shared/print-damage";
import { inspect } from "./rules";
import { faceFeatures, fillTear, isPrint, stretchTones } from "./old-print";
import { ART, BASE, backdrop, FIGURE_SLOT, HEIGHT, PALETTES, WIDTH, windowSheenSvg } from "./scene";

/**
 * 3D figure ("1/7 scale collectible"): the person is cut out with the person matte, given a
 * smooth painted-plastic finish (flattened colours, glossy highlights), and stood on a
 * glossy black display base on a wooden desk, in front of its retail box, whose window
 * shows the same figure printed as artwork. A pet or an object (no face) is cut out whole
 * around its detection box (a close-up becomes a rounded plaque of the photo); a photo with no clear subject is refused before charging.
 */

/** The figure needs a person in the matte; less than this share of the photo is not one. */
const MIN_PERSON_SHARE = 0.01;
/** How far (share of the base's half-height) the figure's bottom sinks into the top face. */
const SINK = 0.55;

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const inspected = await inspect(req);
  const { face, faces, subject } = inspected;
  // An old print (monochrome or toned): its scratches, creases and dust are filled first, so
  // they are neither sculpted nor taken for edges by the cut-out (shared/print-damage.ts,
  // old-print.ts).
  const print = isPrint(inspected.src);
  const { width: sw, height: sh } = inspected.src;
  const repaired = print ? await repairPrintDamage(inspected.src, faceFeatures(faces, sw, sh)) : null;
  const src = repaired ?? inspected.src;
  if (print) {
    // A torn-off corner: bare paper painted in the print's backdrop tone (never the caller's buffer).
    if (src === inspected.src) src.data = Buffer.from(src.data);
    fillTear(src);
  }
  const { width, height } = src;
  let matte: { alpha: Buffer };
  if (face && faces.length === 1) {
    matte = await personMatte(src);
  } else if (face) {
    // A group (the selfie matte, made for one close person, misses some and spills onto the
    // backdrop): every found face with its head and body, joined to the matte and refined by
    // GrabCut, standing together on the base; the edge softened by a pixel.
    const people = await cutOutPeople(src, faces);
    if (!people) throw noFaceError();
    const hard = Buffer.from(people.data.map((v) => (v ? 255 : 0)));
    matte = {
      alpha: await sharp(hard, { raw: { width, height, channels: 1 } })
        .blur(1)
        .toColourspace("b-w")
        .extractChannel(0)
        .raw()
        .toBuffer(),
    };
  } else {
    // A pet or an object: the whole object around its detection box (a cup with its saucer
    // and spoon). A close-up running off the frame has no whole silhouette: the figure is
    // then a rounded plaque (badge) of the framed photo standing on the base.
    const whole = subject ? await cutOutWholeObject(src, subject.box) : null;
    if (!whole) throw noSubjectError();
    const cut = whole.closeUp ? badgeMask(whole.mask) : whole.mask;
    matte = { alpha: Buffer.from(cut.data.map((v) => (v ? 255 : 0))) };
  }

  // The subject's bounding box in the matte (ends exclusive).
  const person = bounds(threshold(matte.alpha, width, height));
  if (!person || person.area < width * height * MIN_PERSON_SHARE)
    throw face ? noFaceError() : noSubjectError();
  const { x0, y0, x1, y1 } = person;
  // A faded print's tones stretched on the figure, so its faces keep their contrast.
  const colours = print ? Buffer.from(src.data) : src.data;
  if (print) stretchTones(colours, matte.alpha, width * height);

  // Cut-out at figure size: RGB and matte together, then shaded as painted plastic.
  const boxW = x1 - x0;
  const boxH = y1 - y0;
  const scale = Math.min(FIGURE_SLOT.maxWidth / boxW, FIGURE_SLOT.maxHeight / boxH);
  const fw = Math.max(1, Math.round(boxW * scale));
  const fh = Math.max(1, Math.round(boxH * scale));
  const rgba = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    rgba[i * 4] = colours[i * 3]!;
    rgba[i * 4 + 1] = colours[i * 3 + 1]!;
    rgba[i * 4 + 2] = colours[i * 3 + 2]!;
    rgba[i * 4 + 3] = matte.alpha[i]!;
  }
  const cut = await sharp(rgba, { raw: { width, height, channels: 4 } })
    .extract({ left: x0, top: y0, width: boxW, height: boxH })
    .resize(fw, fh, { fit: "fill", kernel: "lanczos3" })
    .raw()
    .toBuffer();
  const rgb = Buffer.alloc(fw * fh * 3);
  const alpha = Buffer.alloc(fw * fh);
  for (let i = 0; i < fw * fh; i++) {
    rgb[i * 3] = cut[i * 4]!;
    rgb[i * 3 + 1] = cut[i * 4 + 1]!;
    rgb[i * 3 + 2] = cut[i * 4 + 2]!;
    alpha[i] = cut[i * 4 + 3]!;
  }
  // Shading scales follow the face; without one, a third of the subject's width stands in.
  const faceW = (face ? face.box[2] : boxW / 3) * scale;
  const shaded = clayShade(rgb, alpha, fw, fh, {
    ...CLAY,
    smoothSpace: faceW * 0.14,
    domeSigma: Math.max(fw, fh) * 0.06,
    domeDepth: Math.max(fw, fh) * 0.12,
    reliefSigma: faceW * 0.04,
    reliefDepth: faceW * 0.1,
    specular: 0.42,
    shininess: 40,
    toonLevels: 7,
  });

  // Placement: centred on the base, its bottom sunk into the top face, below which the
  // figure is trimmed along the face's front arc, so it stands on the disc.
  const left = Math.round(BASE.cx - fw / 2);
  const top = Math.round(BASE.cy + BASE.ry * SINK - fh);
  const figure = Buffer.alloc(fw * fh * 4);
  for (let y = 0; y < fh; y++) {
    for (let x = 0; x < fw; x++) {
      const i = y * fw + x;
      const u = (left + x - BASE.cx) / (BASE.rx * 0.92);
      const arc = BASE.cy + BASE.ry * SINK * Math.sqrt(Math.max(0, 1 - u * u));
      figure[i * 4] = shaded[i * 3]!;
      figure[i * 4 + 1] = shaded[i * 3 + 1]!;
      figure[i * 4 + 2] = shaded[i * 3 + 2]!;
      // Lower body: a rounded bust silhouette (superellipse), so shoulders cut straight by the
      // photo's frame end in smooth curves, as a sculpted bust does.
      const bu = (x - fw / 2) / (fw / 2);
      const bv = Math.max(0, (y - fh * 0.4) / (fh * 0.6));
      const bust = Math.min(1, Math.max(0, (1 - (bu ** 4 + bv ** 4)) * 12));
      figure[i * 4 + 3] = top + y > arc ? 0 : Math.round(alpha[i]! * bust);
    }
  }

  // The artwork printed in the box's window: the same figure, smaller, standing at its bottom.
  const artScale = Math.min((ART.width - 40) / fw, (ART.height - 30) / fh);
  const aw = Math.round(fw * artScale);
  const ah = Math.round(fh * artScale);
  const art = await sharp(figure, { raw: { width: fw, height: fh, channels: 4 } })
    .resize(aw, ah, { fit: "fill" })
    .png()
    .toBuffer();

  // The request's seed picks the box's print colours.
  const palette = mulberry32(req.seed)() % PALETTES.length;
  const sheen = await sharp(Buffer.from(windowSheenSvg())).png().toBuffer();
  const scene = await sharp(await backdrop(palette), { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
    .composite([
      {
        input: art,
        left: Math.round(ART.x + (ART.width - aw) / 2),
        top: ART.y + ART.height - ah - 6,
      },
      { input: sheen, left: 0, top: 0 },
      { input: figure, raw: { width: fw, height: fh, channels: 4 }, left, top },
    ])
    .removeAlpha()
    .raw()
    .toBuffer();
  return encodePng({ data: scene, width: WIDTH, height: HEIGHT, channels: 3 });
}
