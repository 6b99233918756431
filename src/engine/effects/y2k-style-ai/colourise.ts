import type { Face } from "../../vision/human";
import { fillPolygon, type Mask } from "../../shared/mask";
import { FACE_OVAL } from "./grade";

/**
 * Hand-colouring of a black-and-white or one-tone (sepia, cyanotype, tarnished) print before
 * the Y2K grade, as a studio tinted prints by hand: the print's tone is neutralised to its
 * luma (contrast stretched), then each part gets its own colour at the print's own light:
 * skin (the faces' mesh ovals and, near each face, the pixels of the faces' own tone: neck,
 * hands) a warm natural skin, the hair above a face a soft brown, the people's clothes the
 * look's first two hues (pink to violet by shade) and the background its third hue (cyan,
 * turning to the first hue towards the ground). Without it the grade only tints a grey
 * picture; with it the look's pinks and blues read and faces read as skin.
 *
 * Colour is added as chroma (YCbCr) only, strongest in the mid-tones: the print's light,
 * detail and every edge are kept exactly, and a wrong region guess (a person the matte
 * missed) only changes which tint a part takes, never cuts it.
 */

const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);
const smoothstep = (a: number, b: number, v: number): number => {
  const t = clamp01((v - a) / (b - a));
  return t * t * (3 - 2 * t);
};

/** (Cb, Cr) offsets of a hue at unit strength: the hue's direction in the chroma plane. */
function chromaOf(hueDeg: number): [number, number] {
  // A fully saturated mid-grey colour of this hue, measured in YCbCr.
  const h = (((hueDeg % 360) + 360) % 360) / 60;
  const x = 1 - Math.abs((h % 2) - 1);
  const [r, g, b] =
    h < 1
      ? [1, x, 0]
      : h < 2
        ? [x, 1, 0]
        : h < 3
          ? [0, 1, x]
          : h < 4
            ? [0, x, 1]
            : h < 5
              ? [x, 0, 1]
              : [1, 0, x];
  const u = -0.168736 * r - 0.331264 * g + 0.5 * b;
  const v = 0.5 * r - 0.418688 * g - 0.081312 * b;
  const m = Math.hypot(u, v) || 1;
  return [u / m, v / m];
}

export interface ColouriseInput {
  rgb: Uint8Array;
  W: number;
  H: number;
  faces: readonly Face[];
  /** The faces' mesh ovals. */
  ovals: Mask;
  /** The people (0..1, soft), or null when no usable matte: then the faces' heads and bodies. */
  people: Float32Array | null;
  /** The look's three hues (degrees). */
  hues: readonly [number, number, number];
}

/**
 * Where the faces' heads' upper halves (hair) and bodies probably are, and the column under
 * each face where its neck (or a hand at the chin) is, each 0..1 per pixel; each face only
 * touches the rectangle it can reach.
 */
export function bodyPriors(
  faces: readonly Face[],
  W: number,
  H: number,
): { head: Float32Array; body: Float32Array; near: Float32Array } {
  const n = W * H;
  const head = new Float32Array(n);
  const body = new Float32Array(n);
  const near = new Float32Array(n);
  for (const f of faces) {
    const [fx, fy, fw, fh] = f.box;
    const cx = fx + fw / 2;
    const cy = fy + fh / 2;
    const y0 = Math.max(0, Math.floor(cy - fh * 1));
    const y1 = Math.min(H, Math.ceil(cy + fh * 5));
    // Each part only over the columns it can reach on a row.
    const span = (y: number, half: number, f: (x: number, i: number) => void) => {
      const x0 = Math.max(0, Math.floor(cx - half * fw));
      const x1 = Math.min(W, Math.ceil(cx + half * fw));
      for (let x = x0; x < x1; x++) f(x, y * W + x);
    };
    for (let y = y0; y < y1; y++) {
      const dy = (y - cy) / fh;
      // The head's upper half: an ellipse a little larger than the face box, taller above.
      if (dy < 0.3) {
        const ey = ((dy + 0.12) / 0.8) ** 2;
        const fade = 1 - smoothstep(0, 0.3, dy);
        if (ey < 1.2)
          span(y, 0.72 * Math.sqrt(1.2 - ey), (x, i) => {
            const v = (1 - smoothstep(0.8, 1.2, ((x - cx) / fw / 0.72) ** 2 + ey)) * fade;
            if (v > head[i]!) head[i] = v;
          });
      }
      // The body: widening below the chin.
      if (dy > 0.45) {
        const half = 0.6 + 0.55 * Math.min(2.5, dy - 0.45);
        const fade = 1 - smoothstep(3.5, 5, dy);
        span(y, half * 1.1, (x, i) => {
          const v = (1 - smoothstep(half * 0.85, half * 1.1, Math.abs(x - cx) / fw)) * fade;
          if (v > body[i]!) body[i] = v;
        });
      }
      // The neck and a hand at the chin: a column as wide as a neck under the face (wider
      // would take a wall of the face's tone beside the shoulders).
      if (dy > 0 && dy < 1.5) {
        const along = smoothstep(0, 0.3, dy) * (1 - smoothstep(1.1, 1.5, dy));
        span(y, 0.45, (x, i) => {
          const v = (1 - smoothstep(0.25, 0.45, Math.abs(x - cx) / fw)) * along;
          if (v > near[i]!) near[i] = v;
        });
      }
    }
  }
  return { head, body, near };
}

/** Hue of natural skin and of brown hair in the hand-colouring (degrees). */
const SKIN_HUE = 18;
const HAIR_HUE = 28;

/**
 * A colour picture from a black-and-white or one-tone print (new buffer, RGB bytes), and
 * each pixel's skin weight (0..1) for the grade that follows.
 */
export function handColour(p: ColouriseInput): { rgb: Uint8Array; skin: Float32Array } {
  const { rgb, W, H, faces, ovals, people, hues } = p;
  const n = W * H;
  const L = new Float32Array(n);
  const hist = new Uint32Array(256);
  for (let i = 0; i < n; i++) {
    const l = 0.299 * rgb[i * 3]! + 0.587 * rgb[i * 3 + 1]! + 0.114 * rgb[i * 3 + 2]!;
    L[i] = l;
    hist[Math.min(255, Math.round(l))]!++;
  }
  // Faded prints: the 1st..99th luma percentiles stretched to a full range.
  const at = (f: number) => {
    let acc = 0;
    for (let b = 0; b < 256; b++) if ((acc += hist[b]!) >= n * f) return b;
    return 255;
  };
  const lo = at(0.01);
  const hi = Math.max(lo + 60, at(0.99));
  const stretch = (l: number) => 6 + clamp01((l - lo) / (hi - lo)) * 244;

  // The faces' own tone (mid-tones of the ovals).
  const ls: number[] = [];
  for (let i = 0; i < n; i++) if (ovals.data[i]) ls.push(stretch(L[i]!));
  ls.sort((a, b) => a - b);
  const faceTone = ls.length ? ls[Math.floor(ls.length * 0.6)]! : 150;
  const faceSpread = ls.length
    ? Math.max(12, (ls[Math.floor(ls.length * 0.9)]! - ls[Math.floor(ls.length * 0.2)]!) / 2)
    : 30;

  const { head: headP, body: bodyP, near: nearP } = bodyPriors(faces, W, H);
  // Around each oval (the forehead above the mesh, the jaw's edge, the ears): the oval grown
  // by a fifth about its centre, where the pixels of the face's tone are skin too.
  const grown: Mask = { data: new Uint8Array(n), width: W, height: H };
  for (const f of faces) {
    if (f.mesh.length < 468) continue;
    const pts = FACE_OVAL.map((k) => [f.mesh[k]![0], f.mesh[k]![1]] as [number, number]);
    const mx = pts.reduce((a, q) => a + q[0], 0) / pts.length;
    const my = pts.reduce((a, q) => a + q[1], 0) / pts.length;
    fillPolygon(
      grown,
      pts.map(([x, y]) => [mx + (x - mx) * 1.2, my + (y - my) * (y < my ? 1.25 : 1.1)] as [number, number]),
    );
  }

  const [c0u, c0v] = chromaOf(hues[0]);
  const [c1u, c1v] = chromaOf(hues[1]);
  const [c2u, c2v] = chromaOf(hues[2]);
  const [su, sv] = chromaOf(SKIN_HUE);
  const [hu, hv] = chromaOf(HAIR_HUE);
  // Per input luma level (0..255): the stretched luma, the chroma strength by tone (none in
  // black and white, most in the mid-tones), the match to the face's tone, the share of skin
  // colour a tone can carry (none for eyes, nostrils, glare) and the clothes' shade.
  const LS = new Float32Array(256);
  const MID = new Float32Array(256);
  const MATCH = new Float32Array(256);
  const SKIN_OK = new Float32Array(256);
  const SHADE = new Float32Array(256);
  const DARK = new Float32Array(256);
  for (let b = 0; b < 256; b++) {
    const l = stretch(b);
    const t = l / 255;
    LS[b] = l;
    MID[b] = Math.sin(Math.PI * Math.pow(t, 0.9));
    // (Lit skin, a forehead in the light, may be much brighter than the face's mid-tone.)
    MATCH[b] = 1 - smoothstep(1.1, 2.0, (l > faceTone ? (l - faceTone) / 1.8 : faceTone - l) / faceSpread);
    SKIN_OK[b] = smoothstep(0.1, 0.3, t) * (1 - smoothstep(0.9, 1, t));
    SHADE[b] = smoothstep(0.15, 0.7, t);
    DARK[b] = 1 - smoothstep(faceTone - 2.5 * faceSpread, faceTone - 1.2 * faceSpread, l);
  }
  const out = new Uint8Array(n * 3);
  const skinW = new Float32Array(n);
  const oval = ovals.data;
  const grownIn = grown.data;
  for (let y = 0; y < H; y++) {
    const ground = smoothstep(0.45, 1, y / H);
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const b = Math.min(255, Math.round(L[i]!));
      const l = LS[b]!;
      const head = headP[i]!;
      const body = bodyP[i]!;
      const near = nearP[i]!;
      // The people: the matte where there is one (a head or body prior would colour the wall
      // around a head), else the faces' heads and bodies.
      const person = people ? people[i]! : Math.max(body, head);
      // Skin: the ovals, and around them and down the neck the pixels of the face's tone
      // (below the oval only inside the people: a wall of the neck's tone is close).
      const around = Math.max(grownIn[i] ? 1 : 0, near * (0.3 + 0.7 * person));
      const skin = (oval[i] ? 1 : MATCH[b]! * around * 0.85) * SKIN_OK[b]!;
      // Hair: what is not skin in the head's upper half (dark, brown or fair), and a beard:
      // the dark pixels around the oval and down the neck.
      const hair = Math.max(head * person, around * DARK[b]!) * (1 - skin);
      const cloth = person * (1 - skin) * (1 - hair);
      const back = (1 - person) * (1 - skin) * (1 - hair);
      const mid = MID[b]!;
      // Clothes: the second hue in the shadows to the first in the light.
      const k = SHADE[b]!;
      let u =
        skin * su * 38 +
        hair * hu * 20 +
        cloth * ((c1u + (c0u - c1u) * k) * 34) +
        back * ((c2u + (c0u - c2u) * ground * 0.6) * 30);
      let v =
        skin * sv * 38 +
        hair * hv * 20 +
        cloth * ((c1v + (c0v - c1v) * k) * 34) +
        back * ((c2v + (c0v - c2v) * ground * 0.6) * 30);
      u *= mid;
      v *= mid;
      out[i * 3] = Math.max(0, Math.min(255, Math.round(l + 1.402 * v)));
      out[i * 3 + 1] = Math.max(0, Math.min(255, Math.round(l - 0.344136 * u - 0.714136 * v)));
      out[i * 3 + 2] = Math.max(0, Math.min(255, Math.round(l + 1.772 * u)));
      skinW[i] = skin;
    }
  }
  return { rgb: out, skin: skinW };
}
