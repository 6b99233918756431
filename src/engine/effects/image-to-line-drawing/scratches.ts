import { components } from "../../shared/components";
import { opencv } from "../../shared/opencv";

/**
 * Print damage that must not become a drawn line: scratches and creases (thin, long, bright
 * or dark lines) and dust (small spots). Morphology finds what stands out of its
 * surroundings in a thin shape: the white top-hat (the image minus its opening) for bright
 * damage, the black-hat (its closing minus the image) for dark damage, with a 7 px element
 * at the working size. Of those pixels, a scratch is what survives an opening with a long
 * straight line (LINE_LENGTH of the long side) in one of 12 directions: a crease across the
 * picture does, an eye, a nostril or a curl of hair does not. A spot is a tiny piece (dust).
 * Nothing inside `protect` (a face's eyes, brows, nose and mouth) counts. Returns the pixels
 * to fill (grown by 1 px), or null when there is no damage or so much that it must be the
 * photo's own texture.
 */
const CONTRAST = 24;
const LINE_LENGTH = 0.05;
const MAX_SPOT = 24;
const MAX_SHARE = 0.03;

export async function findScratches(
  grey: Uint8Array,
  width: number,
  height: number,
  protect: Uint8Array,
): Promise<Uint8Array | null> {
  const { cv } = await opencv();
  const n = width * height;
  const src = cv.matFromArray(height, width, cv.CV_8UC1, grey);
  const kernel = cv.getStructuringElement(cv.MORPH_ELLIPSE, new cv.Size(7, 7));
  const top = new cv.Mat();
  const black = new cv.Mat();
  const candidate = new Uint8Array(n);
  const lines = new Uint8Array(n);
  const L = Math.max(9, Math.round(LINE_LENGTH * Math.max(width, height)) | 1);
  try {
    cv.morphologyEx(src, top, cv.MORPH_TOPHAT, kernel);
    cv.morphologyEx(src, black, cv.MORPH_BLACKHAT, kernel);
    const t = top.data as Uint8Array;
    const b = black.data as Uint8Array;
    for (let i = 0; i < n; i++) if ((t[i]! > CONTRAST || b[i]! > CONTRAST) && !protect[i]) candidate[i] = 255;
    const cand = cv.matFromArray(height, width, cv.CV_8UC1, candidate);
    const opened = new cv.Mat();
    try {
      for (let a = 0; a < 12; a++) {
        const angle = (a * Math.PI) / 12;
        const line = cv.Mat.zeros(L, L, cv.CV_8UC1);
        const c = (L - 1) / 2;
        const dx = Math.cos(angle) * c;
        const dy = Math.sin(angle) * c;
        cv.line(
          line,
          new cv.Point(Math.round(c - dx), Math.round(c - dy)),
          new cv.Point(Math.round(c + dx), Math.round(c + dy)),
          new cv.Scalar(1),
          1,
          cv.LINE_8,
        );
        cv.morphologyEx(cand, opened, cv.MORPH_OPEN, line);
        line.delete();
        const o = opened.data as Uint8Array;
        for (let i = 0; i < n; i++) if (o[i]) lines[i] = 1;
      }
    } finally {
      cand.delete();
      opened.delete();
    }
  } finally {
    src.delete();
    kernel.delete();
    top.delete();
    black.delete();
  }

  const { labels, count } = components(candidate, width, height);
  const area = new Uint32Array(count + 1);
  for (let i = 0; i < n; i++) area[labels[i]!]!++;
  let total = 0;
  const damage = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const l = labels[i]!;
    if (lines[i] || (l && area[l]! <= MAX_SPOT)) {
      damage[i] = 1;
      total++;
    }
  }
  if (!total || total > n * MAX_SHARE) return null;
  const grown = new Uint8Array(n);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      if (!damage[y * width + x]) continue;
      for (let yy = Math.max(0, y - 1); yy <= Math.min(height - 1, y + 1); yy++)
        for (let xx = Math.max(0, x - 1); xx <= Math.min(width - 1, x + 1); xx++) grown[yy * width + xx] = 1;
    }
  return grown;
}
