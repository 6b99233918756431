import type { RawImage } from "../image-io";
import type { Face } from "../../vision/human";
import { components } from "../components";
import { blurred, dilate, flood } from "./skin-guard";

/**
 * Where the hair is: the person matte, minus the face oval from the mesh, near the head,
 * and coloured like the hair above the forehead rather than like the skin. The hair
 * effects (hair-style-generator, pixie-cut-filter) recolour, cut and fill inside it.
 */

/** MediaPipe FaceMesh silhouette, in order around the face (forehead top first). */
const FACE_OVAL = [
  10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377, 152, 148, 176, 149,
  150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109,
];

/** The head's landmarks in image pixels, from the mesh. */
export interface HeadGeometry {
  /** Horizontal centre of the face oval. */
  cx: number;
  /** Top of the forehead (mesh 10), eye line, brow line and chin (mesh 152). */
  top: number;
  eyes: number;
  brows: number;
  chin: number;
  /** Face oval width and forehead-to-chin height. */
  fw: number;
  fh: number;
  oval: Array<[number, number]>;
}

export function headGeometry(face: Face): HeadGeometry {
  const p = (i: number) => face.mesh[i]!;
  const oval = FACE_OVAL.map((i) => [p(i)[0], p(i)[1]] as [number, number]);
  const xs = oval.map((q) => q[0]);
  const left = Math.min(...xs);
  const right = Math.max(...xs);
  const top = p(10)[1];
  const chin = p(152)[1];
  return {
    cx: (left + right) / 2,
    top,
    eyes: (p(33)[1] + p(263)[1]) / 2,
    brows: (p(105)[1] + p(334)[1]) / 2,
    chin,
    fw: right - left,
    fh: chin - top,
    oval,
  };
}

/** A filled polygon as a 0/1 mask (even-odd scanline fill at pixel centres). */
export function polygonMask(points: Array<[number, number]>, width: number, height: number): Uint8Array {
  const mask = new Uint8Array(width * height);
  const xs: number[] = [];
  for (let y = 0; y < height; y++) {
    const yc = y + 0.5;
    xs.length = 0;
    for (let i = 0; i < points.length; i++) {
      const [x0, y0] = points[i]!;
      const [x1, y1] = points[(i + 1) % points.length]!;
      if (y0 <= yc !== y1 <= yc) xs.push(x0 + ((yc - y0) / (y1 - y0)) * (x1 - x0));
    }
    xs.sort((a, b) => a - b);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const from = Math.max(0, Math.ceil(xs[k]! - 0.5));
      const to = Math.min(width - 1, Math.floor(xs[k + 1]! - 0.5));
      mask.fill(1, y * width + from, y * width + to + 1);
    }
  }
  return mask;
}

const smoothstep = (a: number, b: number, x: number) => {
  const t = Math.min(1, Math.max(0, (x - a) / (b - a)));
  return t * t * (3 - 2 * t);
};

/** Per-channel median of the sampled pixels (robust to a stray bit of skin or background). */
function medianColour(src: RawImage, picks: number[]): [number, number, number] {
  if (picks.length === 0) return [60, 45, 35];
  const channel = (c: number) => {
    const v = picks.map((i) => src.data[i * 3 + c]!).sort((a, b) => a - b);
    return v[v.length >> 1]!;
  };
  return [channel(0), channel(1), channel(2)];
}

export interface HairRegion {
  /** 0..1 per pixel: how surely the pixel is hair. */
  alpha: Float32Array;
  /** 0/1 face oval (skin the hair effects never touch below the brows). */
  oval: Uint8Array;
  /** 1 where a pixel near the head is coloured more like the skin than like the hair (ears, neck). */
  skin: Uint8Array;
  /**
   * 0/1 skin the hair effects never cut away, nor paint over below the brows: the face oval,
   * skin joined to it (ears, a hand at the mouth), and the neck under the jaw. `alpha` is 0 on it.
   */
  guard: Uint8Array;
  /** The oval's half-width on each row, from `head.cx` (0 on rows it does not reach). */
  half: Float32Array;
  head: HeadGeometry;
}

/**
 * The hair region of `face`. `matte` is the person matte (0..255) at the image's size.
 * Above the forehead, inside the matte, is hair whatever its colour (the crown); lower down,
 * a pixel counts as hair when it is coloured more like the hair than like the skin, which
 * keeps ears, neck and (compared with the shoulders' colour) clothing out. Below the chin
 * the region fades out by about half a face height, and it stops at the first row below the
 * eyes with no hair beside the face (a beard or a dark suit is not hair hanging down).
 */
export function hairRegion(src: RawImage, face: Face, matte: Buffer): HairRegion {
  const { width, height } = src;
  const head = headGeometry(face);
  const { cx, top, brows, chin, fw, fh } = head;
  const oval = polygonMask(head.oval, width, height);
  const ocx = head.oval.reduce((t, q) => t + q[0], 0) / head.oval.length;
  const ocy = head.oval.reduce((t, q) => t + q[1], 0) / head.oval.length;
  const core = polygonMask(
    head.oval.map(([x, y]) => [ocx + (x - ocx) * 0.72, ocy + (y - ocy) * 0.85] as [number, number]),
    width,
    height,
  );

  // Hair samples: a band above the forehead, clear of a high hairline (mesh 10 sits on the
  // forehead, not at the hairline). Skin samples: forehead, cheeks and nose.
  const hairPicks: number[] = [];
  const skinPicks: number[] = [];
  const clampY = (y: number) => Math.min(height - 1, Math.max(0, Math.round(y)));
  const clampX = (x: number) => Math.min(width - 1, Math.max(0, Math.round(x)));
  for (let y = clampY(top - fh * 0.42); y <= clampY(top - fh * 0.2); y++)
    for (let x = clampX(cx - fw * 0.3); x <= clampX(cx + fw * 0.3); x++)
      if (matte[y * width + x]! > 160 && !oval[y * width + x]) hairPicks.push(y * width + x);
  const nose = face.mesh[1]!;
  for (const i of [50, 280, 1, 4, 101, 330, 151, 9]) {
    const [mx, my] = face.mesh[i] ?? nose;
    for (let dy = -2; dy <= 2; dy++)
      for (let dx = -2; dx <= 2; dx++) skinPicks.push(clampY(my + dy) * width + clampX(mx + dx));
  }
  // Clothing samples: the shoulders, below where even long hair usually ends.
  const clothPicks: number[] = [];
  // A head filling the frame leaves only the bottom rows for that.
  const clothTop = Math.min(chin + fh * 0.45, height * 0.96);
  for (let y = clampY(clothTop); y <= clampY(Math.max(clothTop + 4, chin + fh * 0.7)); y += 2)
    for (const dir of [-1, 1])
      for (let k = fw * 0.5; k <= fw * 0.9; k += 2) {
        const i = y * width + clampX(cx + dir * k);
        if (matte[i]! > 200) clothPicks.push(i);
      }
  const colour = medianColour(src, hairPicks);
  const skin = medianColour(src, skinPicks);
  const cloth = clothPicks.length > 50 ? medianColour(src, clothPicks) : null;

  // Colour distance in a luma-light YCbCr: hair and skin differ mostly in brightness and hue.
  const ycc = (r: number, g: number, b: number): [number, number, number] => [
    0.5 * (0.299 * r + 0.587 * g + 0.114 * b),
    -0.1687 * r - 0.3313 * g + 0.5 * b,
    0.5 * r - 0.4187 * g - 0.0813 * b,
  ];
  const [hy, hb, hr] = ycc(...colour);
  const [sy, sb, sr] = ycc(...skin);
  // No clothing in view: a reference nothing is close to.
  const [ky, kb, kr] = cloth ? ycc(...cloth) : [1e4, 1e4, 1e4];
  // How far hair may stray from its median: most of the hair-to-skin gap, within sane bounds.
  const reach = Math.min(70, Math.max(28, shaded(hy, hb, hr, sy, sb, sr) * 0.75));

  const alpha = new Float32Array(width * height);
  const skinlike = new Uint8Array(width * height);
  // Skin the guard may spread through (from the face): on the person, coloured like the
  // cheeks (allowing for shade and light) and more like them than like the hair.
  const skinPass = new Uint8Array(width * height);
  const neckGuard = new Uint8Array(width * height);
  const skinLuma = 2 * sy;
  const x0 = clampX(cx - fw * 1.3);
  const x1 = clampX(cx + fw * 1.3);
  const y0 = clampY(top - fh * 0.9);
  // Far enough down for the guard to follow the skin (a hand, the chest) under long hair.
  const y1 = clampY(chin + fh * 1.3);
  const d = src.data;
  for (let y = y0; y <= y1; y++) {
    // Below the chin, fade out; above the forehead the crown is hair without a colour test.
    const below = 1 - smoothstep(chin + fh * 0.1, chin + fh * 0.6, y);
    const crown = 1 - smoothstep(top - fh * 0.28, top - fh * 0.14, y);
    // From the jaw down, the neck column is mostly skin in shadow or a collar: hair there
    // (falling in front of the neck) must be clearly hair-coloured.
    const neck = y > chin - fh * 0.2 ? fw * 0.36 : -1;
    for (let x = x0; x <= x1; x++) {
      const i = y * width + x;
      const m = matte[i]! / 255;
      if (m < 0.05) continue;
      // Horizontal reach: the head's width plus long hair spreading over the shoulders.
      const side = 1 - smoothstep(fw * 0.95, fw * 1.3, Math.abs(x - cx));
      const r = d[i * 3]!;
      const g = d[i * 3 + 1]!;
      const b = d[i * 3 + 2]!;
      const cy = 0.5 * (0.299 * r + 0.587 * g + 0.114 * b);
      const cb = -0.1687 * r - 0.3313 * g + 0.5 * b;
      const cr = 0.5 * r - 0.4187 * g - 0.0813 * b;
      const dh = shaded(cy, cb, cr, hy, hb, hr);
      const ds = shaded(cy, cb, cr, sy, sb, sr);
      if (ds < dh) skinlike[i] = 1;
      if (ds < dh && m > 0.5 && ds < 24 && 2 * cy > skinLuma * 0.45) skinPass[i] = 1;
      let p = (1 - smoothstep(reach * 0.6, reach, dh)) * smoothstep(0.9, 1.3, ds / Math.max(1, dh));
      // Below the eyes, hair must also look more like hair than like the clothing (a dark
      // suit under black hair then stays out, at the price of long hair over it).
      if (y > head.eyes) p *= smoothstep(0.9, 1.3, shaded(cy, cb, cr, ky, kb, kr) / Math.max(1, dh));
      if (core[i]) {
        // The middle of the face is never hair (a fringe above the brows may be).
        p = y < brows - fh * 0.05 ? p * p : 0;
      } else if (oval[i]) {
        // The oval's rim at the temples, where clearly hair-coloured (hair falling across
        // them); lower down, cheeks in shade pass for hair too easily.
        p = y < brows - fh * 0.08 ? p * p : 0;
      } else if (Math.abs(x - cx) < neck) {
        // The neck (widening towards the shoulders) is kept unless clearly hair.
        const neckHalf = fw * (0.3 + 0.12 * smoothstep(chin + fh * 0.2, chin + fh * 0.8, y));
        if (Math.abs(x - cx) < neckHalf && p < 0.75) neckGuard[i] = 1;
        p = p * p;
      } else {
        p = Math.max(p, crown);
      }
      alpha[i] = m * side * below * p;
    }
  }
  // How far down the hair hangs: the first row below the eyes where neither side of the face
  // has hair beside it. Below that, hair-coloured pixels are a beard, shadow or clothing.
  let end = y1;
  const strip = (y: number, dir: number) => {
    let sum = 0;
    let n = 0;
    for (let k = fw * 0.5; k <= fw * 0.85; k++, n++) sum += alpha[y * width + clampX(cx + dir * k)]!;
    return sum / n;
  };
  for (let y = clampY(head.eyes); y <= y1; y++)
    if (Math.max(strip(y, -1), strip(y, 1)) < 0.12) {
      end = y;
      break;
    }
  for (let y = end; y <= y1; y++) {
    const keep = 1 - smoothstep(end, end + fh * 0.08, y);
    for (let x = x0; x <= x1; x++) alpha[y * width + x]! *= keep;
  }
  // The guard: the oval (a little grown), the skin joined to it, the neck column.
  const guard = flood(oval, skinPass, width, { x0, y0, x1, y1 });
  const grownOval = dilate(oval, width, height, Math.round(fw * 0.015) + 1);
  for (let i = 0; i < guard.length; i++) if (grownOval[i] || neckGuard[i]) guard[i] = 1;
  const soft = softened(alpha, width, height);
  for (let i = 0; i < soft.length; i++) if (guard[i]) soft[i] = 0;
  const half = new Float32Array(height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) if (oval[y * width + x]) half[y] = Math.max(half[y]!, Math.abs(x - cx));
  return { alpha: ownHair(soft, oval, head, width, height), oval, skin: skinlike, guard, half, head };
}

/**
 * Only the hair joined to this head: a connected patch of hair-coloured pixels that reaches
 * the crown or the temples. Another person's hair in the frame (a child's head beside a
 * mother's, someone behind) is left alone.
 */
function ownHair(
  alpha: Float32Array,
  oval: Uint8Array,
  head: HeadGeometry,
  width: number,
  height: number,
): Float32Array {
  const { cx, top, eyes, fw, fh } = head;
  const sure = new Uint8Array(alpha.length);
  for (let i = 0; i < alpha.length; i++) sure[i] = alpha[i]! > 0.12 ? 1 : 0;
  // Hair hangs down from the crown: in each column near the head, from a hair pixel above
  // the eyes, downwards through hair (gaps up to an ear's height allowed; a lock below the
  // chin still belongs to the hair above the face).
  const run = new Uint8Array(alpha.length);
  const gapMax = Math.round(fh * 0.22);
  const start = Math.max(0, Math.round(top - fh * 0.9));
  for (
    let x = Math.max(0, Math.round(cx - fw * 0.72));
    x <= Math.min(width - 1, Math.round(cx + fw * 0.72));
    x++
  ) {
    let on = false;
    let gap = 0;
    for (let y = start; y < height; y++) {
      const i = y * width + x;
      if (sure[i]) {
        if (!on && y <= eyes) on = true;
        if (on) {
          run[i] = 1;
          gap = 0;
        }
      } else if (on && !oval[i] && ++gap > gapMax) break; // the face is not a gap
    }
  }
  // Hair spreading sideways from those columns (volume, locks over the shoulders), as long as
  // it stays joined to them, fading out smoothly (never a straight cut through someone
  // else's hair beside the head).
  const reach = blurred(run, width, height, Math.round(fw * 0.08));
  for (let i = 0; i < reach.length; i++) reach[i] = Math.min(1, reach[i]! * 3);
  for (let i = 0; i < sure.length; i++) if (reach[i]! < 0.02) sure[i] = 0;
  const { labels, count } = components(sure, width, height);
  const mine = new Uint8Array(count + 1);
  for (let i = 0; i < run.length; i++) if (run[i]) mine[labels[i]!] = 1;
  const kept = new Uint8Array(alpha.length);
  for (let i = 0; i < alpha.length; i++) if (labels[i] && mine[labels[i]!]) kept[i] = 1;
  // The faint rim around kept hair stays with it.
  const near = dilate(kept, width, height, Math.max(2, Math.round(fw * 0.02)));
  const out = new Float32Array(alpha.length);
  for (let i = 0; i < alpha.length; i++)
    out[i] = near[i] && (kept[i] || alpha[i]! <= 0.12) ? alpha[i]! * reach[i]! : 0;
  return out;
}

/**
 * Distance from a YCbCr colour (luma halved) to a reference, allowing for shade: a darker
 * pixel is compared with the reference darkened the same way (chroma shrinks with luma) and
 * its darkness counts for little (lightness, for some), so hair in shadow or in the light
 * still matches its hair.
 */
function shaded(y: number, cb: number, cr: number, ry: number, rb: number, rr: number): number {
  const k = y < ry ? y / Math.max(1, ry) : 1;
  const dy = y < ry ? (ry - y) * 0.35 : (y - ry) * 0.7;
  const db = cb - rb * k;
  const dr = cr - rr * k;
  return Math.sqrt(dy * dy + db * db + dr * dr);
}

/** A 3x3 box blur, twice: soft strand-scale edges instead of pixel speckle. */
function softened(a: Float32Array, width: number, height: number): Float32Array {
  let cur = a;
  for (let pass = 0; pass < 2; pass++) {
    const tmp = new Float32Array(a.length);
    const out = new Float32Array(a.length);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        tmp[i] = (cur[i - (x > 0 ? 1 : 0)]! + cur[i]! + cur[i + (x < width - 1 ? 1 : 0)]!) / 3;
      }
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        out[i] = (tmp[i - (y > 0 ? width : 0)]! + tmp[i]! + tmp[i + (y < height - 1 ? width : 0)]!) / 3;
      }
    cur = out;
  }
  return cur;
}
