import type { RawImage } from "../image-io";
import type { Face } from "../../vision/human";
import { components } from "../components";
import { dilate, flood } from "./skin-guard";
import { otherPeople, type Others } from "./others";

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
  /** The face's midline (forehead, nose bridge and tip, lips, chin), top to bottom, when known. */
  mid?: Array<[number, number]>;
  /** Each eye's centre and half-width (from its corners), when known. */
  eyeSpots?: Array<[number, number, number]>;
}

/** MediaPipe FaceMesh points down the middle of the face, forehead to chin. */
const MIDLINE = [10, 151, 9, 8, 168, 6, 197, 195, 5, 4, 1, 2, 164, 0, 13, 14, 17, 18, 200, 199, 175, 152];

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
    eyeSpots: [
      [33, 133],
      [362, 263],
    ].map(([a, b]) => {
      const [ax, ay] = [p(a!)[0], p(a!)[1]];
      const [bx, by] = [p(b!)[0], p(b!)[1]];
      return [(ax + bx) / 2, (ay + by) / 2, Math.hypot(bx - ax, by - ay) / 2] as [number, number, number];
    }),
    mid: MIDLINE.map((i) => [p(i)[0], p(i)[1]] as [number, number]).sort((a, b) => a[1] - b[1]),
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
  /**
   * 0/1 hair in front of the face (a lock over a cheek) or the neck, joined to the hair: not
   * in `alpha` nor `guard`; the effects remove it and show the skin behind (uncover.ts).
   */
  lock: Uint8Array;
  /** 0/1 eyes, brows, nostrils and lips (never hair, never filled from). */
  features: Uint8Array;
  /**
   * Lumps of the person beside the head that are neither this hair nor its skin (another
   * person's head, the shoulders): never changed (others.ts).
   */
  others: Others;
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
  // Where hair may hang in front of the face or the neck (a lock over a cheek, strands down
  // the throat): the oval and the neck column, inside the person.
  const front = new Uint8Array(width * height);
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
      // (Over the forehead and brows, hair is a fringe, which the first look already handles:
      // the new cuts cover or keep it, and a bare forehead invented there read as a pale mask.
      // A lock starts at the temples, beside the brows.)
      const lockRow = y > head.eyes - fh * 0.03 || (y > brows - fh * 0.12 && Math.abs(x - cx) > fw * 0.25);
      if ((oval[i] && lockRow) || Math.abs(x - cx) < neck) front[i] = 1;
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
  const own = ownHair(soft, oval, head, width, height);
  const features = faceFeatures(face, width, height);
  // A lock may cover the outer end of a brow (the bare head mirrors the other brow there),
  // never an eye, the nose or the mouth.
  const fixed = faceFeatures(face, width, height, false);
  // Second look, with a colour model of this photo's hair (its highlights and shadows
  // included) against the skin: hair joined to the hair found so far, down to where the hair
  // ends beside the face. In the oval and the neck column it is a lock in front of the skin;
  // elsewhere (a lit strand the first colour test missed, hair the skin flood took) more hair.
  const model = hairOdds(src, own, matte, core, features);
  const candP = new Float32Array(width * height);
  // Where hair and skin share their colours, the model cannot tell them apart: no second look.
  const last = model.overlap > 0.3 ? -1 : Math.min(y1, Math.round(end + fh * 0.05));
  for (let y = y0; y <= last; y++)
    for (let x = x0; x <= x1; x++) {
      const i = y * width + x;
      if (matte[i]! <= 128 || Math.abs(x - cx) >= fw * 1.2) continue;
      // In front of the neck, shade alone is not hair: the colour must differ too.
      const p = model.odds(i);
      candP[i] = front[i] && !oval[i] ? Math.min(p, model.hueOdds(i)) : p;
    }
  // Beside the face: more hair wherever it joins the hair found so far.
  const sure = new Uint8Array(own.length);
  for (let i = 0; i < own.length; i++) sure[i] = own[i]! > 0.3 ? 1 : 0;
  // Only close to it (lit strands at its edge): hair further out, even joined to it, may be
  // another person's (a child's head against a mother's), which the first look left alone.
  const close = dilate(sure, width, height, Math.round(fw * 0.04) + 2);
  const outside = Float32Array.from(candP);
  for (let i = 0; i < outside.length; i++) if (front[i] || oval[i] || !close[i]) outside[i] = 0;
  const more = hairLock(outside, sure, fixed, fw, width, height);
  // In front of the face and neck: a lock hangs from the hair above the eyes, so it must
  // join it there and stay joined down through hair-coloured pixels of the face and neck
  // (a hand or a shadow by the mouth, next to hair beside the jaw, is not a lock).
  const inside = Float32Array.from(candP);
  for (let i = 0; i < inside.length; i++) if (!front[i]) inside[i] = 0;
  const crown = Uint8Array.from(sure);
  crown.fill(0, Math.max(0, Math.round(head.eyes)) * width);
  // (The guard kept the first look's hair a little off the oval: seeds reach across that.)
  const lock = hairLock(inside, crown, fixed, fw, width, height, Math.round(fw * 0.03) + 3);
  // A lock hangs down the cheek past the nose: a patch that stops higher (side hair at the temples)
  // stays with the first look, which keeps it or lets the new cut cover it (taken away, it
  // left pale blocks at the temples).
  {
    const { labels, count } = components(lock, width, height);
    const low = new Uint8Array(count + 1);
    const cheek = Math.round(head.eyes + fh * 0.35) * width;
    for (let i = Math.max(0, cheek); i < lock.length; i++) if (labels[i]) low[labels[i]!] = 1;
    for (let i = 0; i < lock.length; i++) if (lock[i] && !low[labels[i]!]) lock[i] = 0;
  }
  // The lock's ends just outside the oval (at the jaw), which the guard's rim held.
  const lockNear = dilate(lock, width, height, Math.round(fw * 0.015) + 2);
  for (let i = 0; i < lock.length; i++)
    if (lockNear[i] && grownOval[i] && !oval[i] && candP[i]! > 0.6 && !fixed[i]) lock[i] = 1;
  for (let i = 0; i < more.length; i++) {
    // The hair is not skin: the guard gives it up (the effects remove a lock and show the
    // skin or background behind it, `shared/hair/uncover.ts`).
    if (lock[i] && (front[i] || grownOval[i])) guard[i] = 0;
    else lock[i] = 0;
    // (Not on the face's rim: what is behind hair at the temples is unknown, skin or not.)
    if (more[i] && !front[i] && !grownOval[i]) {
      guard[i] = 0;
      own[i] = Math.max(own[i]!, matte[i]! / 255);
    }
  }
  const others = otherPeople(matte, own, lock, guard, skinlike, head, width, height);
  return { alpha: own, oval, skin: skinlike, guard, half, head, lock, features, others };
}

/**
 * Eyes, brows, nostrils and lips (mesh ellipses, grown a little): never taken for hair over
 * the face, and never filled from.
 */
function faceFeatures(face: Face, width: number, height: number, brows = true): Uint8Array {
  const m = face.mesh;
  const mask = new Uint8Array(width * height);
  const blob = (a: number, b: number, grow: number, tall: number) => {
    const [ax, ay] = [m[a]![0], m[a]![1]];
    const [bx, by] = [m[b]![0], m[b]![1]];
    const ex = (ax + bx) / 2;
    const ey = (ay + by) / 2;
    const rx = (Math.hypot(bx - ax, by - ay) / 2) * grow;
    const ry = rx * tall;
    for (let y = Math.max(0, Math.floor(ey - ry)); y <= Math.min(height - 1, Math.ceil(ey + ry)); y++)
      for (let x = Math.max(0, Math.floor(ex - rx)); x <= Math.min(width - 1, Math.ceil(ex + rx)); x++)
        if (((x - ex) / rx) ** 2 + ((y - ey) / ry) ** 2 <= 1) mask[y * width + x] = 1;
  };
  blob(33, 133, 1.12, 0.75); // eyes
  blob(362, 263, 1.12, 0.75);
  if (brows) {
    blob(70, 107, 1.25, 0.45);
    blob(300, 336, 1.25, 0.45);
  }
  blob(61, 291, 1.3, 0.55); // lips
  blob(98, 327, 1.3, 0.6); // nostrils
  return mask;
}

/**
 * The odds that a pixel is hair rather than skin, from the photo's own colours: a histogram
 * of the sure hair (highlights and shadows included) against one of the middle of the face
 * (the features left out), over chromaticity (16 x 16: the share of red and of green in the
 * colour, which shade hardly changes: a neck in shadow keeps the face's chromaticity, red
 * hair in shadow its own) and 4 brightness levels, smoothed. Returns hair / (hair + skin),
 * each histogram normalised to its count, near 0.5 for a colour seen little in either.
 */
function hairOdds(
  src: RawImage,
  own: Float32Array,
  matte: Buffer,
  core: Uint8Array,
  features: Uint8Array,
): { overlap: number; odds: (i: number) => number; hueOdds: (i: number) => number } {
  const d = src.data;
  const bin = (i: number) => {
    const r = d[i * 3]!;
    const g = d[i * 3 + 1]!;
    const b = d[i * 3 + 2]!;
    const sum = r + g + b + 3;
    const cr = Math.min(31, Math.max(0, Math.floor((((r + 1) / sum - 0.2) / 0.4) * 32)));
    const cb = Math.min(31, Math.max(0, Math.floor((((b + 1) / sum - 0.05) / 0.4) * 32)));
    const l = Math.min(3, Math.floor((0.299 * r + 0.587 * g + 0.114 * b) / 64));
    return (l << 10) | (cr << 5) | cb;
  };
  const hairH = new Float32Array(4096);
  const skinH = new Float32Array(4096);
  let nh = 0;
  let ns = 0;
  for (let i = 0; i < own.length; i++) {
    if (own[i]! > 0.6 && matte[i]! > 230) {
      hairH[bin(i)]!++;
      nh++;
    } else if (core[i] && !features[i] && own[i]! < 0.05) {
      skinH[bin(i)]!++;
      ns++;
    }
  }
  const smooth = (h: Float32Array, n: number) => {
    const out = new Float32Array(4096);
    for (let l = 0; l < 4; l++)
      for (let r = 0; r < 32; r++)
        for (let g = 0; g < 32; g++) {
          let sum = 0;
          for (let dl = -1; dl <= 1; dl++)
            for (let dr = -1; dr <= 1; dr++)
              for (let dg = -1; dg <= 1; dg++) {
                const L = l + dl;
                const R = r + dr;
                const G = g + dg;
                if (L < 0 || R < 0 || G < 0 || L > 3 || R > 31 || G > 31) continue;
                sum += h[(L << 10) | (R << 5) | G]! * (dr || dg ? 0.5 : 1) * (dl ? 0.6 : 1);
              }
          out[(l << 10) | (r << 5) | g] = sum / Math.max(1, n);
        }
    return out;
  };
  const H = smooth(hairH, nh);
  const S = smooth(skinH, ns);
  // How much the two overlap (0: no colour in common, 1: the same): on a photo whose hair
  // and skin share their colours (a faded grey print of fair hair) the model tells nothing.
  let overlap = 0;
  for (let k = 0; k < 4096; k++)
    overlap += Math.min(hairH[k]! / Math.max(1, nh), skinH[k]! / Math.max(1, ns));
  const odds = new Float32Array(4096);
  // A colour seen little in either (sky at the matte's rim) stays near even odds.
  const eps = 3e-4;
  for (let k = 0; k < 4096; k++) odds[k] = (H[k]! + eps) / (H[k]! + S[k]! + 2 * eps);
  // The same odds from chromaticity alone (brightness summed out): a shadow on the skin (under
  // the chin) is darker but no more hair-coloured; on a black-and-white or toned photo this is
  // 0.5 everywhere.
  const hueOdds = new Float32Array(1024);
  for (let k = 0; k < 1024; k++) {
    let h = 0;
    let sk = 0;
    for (let l = 0; l < 4; l++) {
      h += H[(l << 10) | k]!;
      sk += S[(l << 10) | k]!;
    }
    hueOdds[k] = (h + eps) / (h + sk + 2 * eps);
  }
  return {
    overlap,
    odds: (i) => odds[bin(i)]!,
    hueOdds: (i) => hueOdds[bin(i)! & 1023]!,
  };
}

/**
 * Hair hanging in front of the face or the neck: clearly hair-coloured pixels (`lockP`) of
 * the oval below the brows and of the neck column, joined to this head's hair (`own`), the
 * face's features and skin excluded, grown a little over its soft rim.
 */
function hairLock(
  lockP: Float32Array,
  hair: Uint8Array,
  features: Uint8Array,
  fw: number,
  width: number,
  height: number,
  reach = 2,
): Uint8Array {
  // Hysteresis: it starts from clearly hair-coloured pixels next to the hair and spreads
  // through fairly hair-coloured ones (lit strands, shadowed ends), never through skin. (The
  // flood may cross a feature, a lock beside the eye, but never takes it.)
  const cand = new Uint8Array(lockP.length);
  for (let i = 0; i < cand.length; i++) cand[i] = lockP[i]! > 0.6 ? 1 : 0;
  const seeds = dilate(hair, width, height, reach);
  for (let i = 0; i < seeds.length; i++) if (lockP[i]! <= 0.8) seeds[i] = 0;
  const joined = flood(seeds, cand, width, { x0: 0, y0: 0, x1: width - 1, y1: height - 1 });
  // Specks the flood leaves out between strands are part of the lock.
  const grown = dilate(joined, width, height, Math.max(1, Math.round(fw * 0.012)));
  for (let i = 0; i < grown.length; i++) if (features[i]) grown[i] = 0;
  return grown;
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
  // it stays joined to them and inside the head's hair zone (a round zone: before, the
  // columns' blurred edge cut straight down through a child's head beside its mother's).
  const reach = new Float32Array(alpha.length);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) reach[y * width + x] = hairZone(head, x, y);
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
 * 0..1: inside the zone where this head's own hair can be, from the mesh: an ellipse centred
 * on the chin, reaching 0.88 face widths to each side at the eyes and 0.95 at the chin, 0.9
 * face heights above the forehead and 1.8 below the chin (long hair), so narrowing as the
 * hair falls; it fades out over its outer 15 % (a curve everywhere, never a straight cut).
 * With `jaw`, the zone the hair effects clear next to the hair: centred on the eyes, 1.05
 * face widths across and ending at the chin, so it reaches about the jaw beside the face.
 */
export function hairZone(head: HeadGeometry, x: number, y: number, jaw = false): number {
  const { cx, top, eyes, chin, fw, fh } = head;
  const centre = jaw ? eyes : chin;
  const dy = y - centre;
  const ry = dy < 0 ? centre - (top - fh * 0.9) : jaw ? chin - eyes : fh * 1.8;
  const r = Math.hypot((x - cx) / (fw * (jaw ? 1.05 : 0.95)), dy / Math.max(1, ry));
  return 1 - smoothstep(0.85, 1, r);
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
