import { hairZone, type HairRegion } from "../../shared/hair/hair-region";
import { hash2, valueNoise } from "../../shared/noise";
import { blurred, dilate, shielded } from "../../shared/hair/skin-guard";
import { lockStrays, nearHair } from "../../shared/hair/uncover";
import { lockShade } from "../../shared/hair/cheek";
import type { Rgb, Scene } from "./variations";

/**
 * Nine haircuts as shapes fitted to the head: each is drawn in head units (X across from the
 * face's centre in face widths, Y down from the top of the forehead in face heights: the chin
 * is at 1) and textured with strands that flow from a parting (or curls, or stubble). The old
 * hair outside the new shape is replaced by the background behind it, so a pixie cut of a
 * long-haired person shows no old hair at the tile's edges; the face below the brows is never
 * painted (a fringe may cover the forehead down to the brows).
 */
export interface Cut {
  name: string;
  colour: Rgb;
  texture: "strands" | "curls" | "stubble";
  /** Coverage 0..1 of the point (X, Y) in head units; `n` is smooth noise in 0..1 for ragged edges. */
  shape(X: number, Y: number, n: (a: number, b: number) => number): number;
  /** Where the strands part (X). */
  parting: number;
  /** A fringe: the hair may cover the forehead down to the brows (never below). */
  fringe?: boolean;
}

const smooth = (a: number, b: number, x: number) => {
  const t = Math.min(1, Math.max(0, (x - a) / (b - a)));
  return t * t * (3 - 2 * t);
};
/** Inside an ellipse, with a soft edge of `soft` (in its own units). */
const ellipse = (X: number, Y: number, cx: number, cy: number, rx: number, ry: number, soft = 0.06) =>
  1 - smooth(1 - soft, 1 + soft, Math.hypot((X - cx) / rx, (Y - cy) / ry));
/** The skull's hair cap: above a hairline at `line` (forehead) that drops to the ears at the sides. */
const cap = (X: number, Y: number, scale: number, line = 0.06) => {
  const skull = ellipse(X, Y, 0, 0.3, 0.62 * scale, 0.66 * scale);
  const hairline = line + 0.42 * smooth(0.18, 0.5, Math.abs(X));
  return skull * (1 - smooth(hairline - 0.03, hairline + 0.03, Y));
};
/** A curtain of hair beside the face from the temples down to `end`, `width` wide at the bottom. */
const sides = (X: number, Y: number, end: number, width: number, n: (a: number, b: number) => number) => {
  const t = Math.min(1, Math.max(0, (Y - 0.1) / (end - 0.1)));
  const ragged = end + (n(X * 9, 3) - 0.5) * 0.1;
  // The ends taper and thin out (tips, not a block): the last stretch narrows towards the
  // middle of the curtain and fades.
  const tip = smooth(ragged - Math.min(0.45, end * 0.3), ragged, Y);
  const outer = (0.58 + (width - 0.58) * Math.pow(t, 0.7)) * (1 - 0.18 * tip);
  // Below the jaw the hair falls beside the neck and over the shoulders, never across the
  // throat and chest: an inner edge a little wider than the neck.
  const inner = 0.36 * smooth(0.75, 0.95, Y) + 0.1 * tip;
  return (
    (1 - smooth(outer - 0.04, outer + 0.04, Math.abs(X))) *
    smooth(inner - 0.04, inner + 0.04, Math.abs(X)) *
    (1 - smooth(ragged - 0.12, ragged, Y)) *
    (1 - 0.5 * tip * n(X * 40, 9)) *
    smooth(0.0, 0.15, Y)
  );
};

/** A blunt, even cut (no ragged ends). */
const even = () => 0.5;

export const CUTS: Cut[] = [
  {
    name: "pixie",
    colour: [58, 38, 28],
    texture: "strands",
    fringe: true,
    parting: -0.2,
    // The fringe sweeps across the forehead: its lower edge slants from low on one side to
    // the hairline on the other, raggedly (an ellipse cut off by straight limits left a
    // skin-coloured rectangular notch in the forehead).
    shape: (X, Y, n) => {
      const edge = 0.17 - 0.14 * (X + 0.45) + (n(X * 14, 1) - 0.5) * 0.04;
      const fringe =
        ellipse(X, Y, 0, 0.3, 0.62 * 1.04, 0.66 * 1.04) * (1 - smooth(edge - 0.03, edge + 0.03, Y));
      return Math.max(cap(X, Y, 1.04), fringe);
    },
  },
  {
    name: "long straight",
    colour: [30, 22, 20],
    texture: "strands",
    parting: 0,
    shape: (X, Y, n) => Math.max(cap(X, Y, 1.08), sides(X, Y, 2.1, 0.82, n)),
  },
  {
    name: "chin-length bob",
    colour: [150, 60, 30],
    texture: "strands",
    parting: 0.18,
    shape: (X, Y) => Math.max(cap(X, Y, 1.12), sides(X, Y, 1.02, 0.74, even)),
  },
  {
    name: "bob with bangs",
    colour: [20, 18, 22],
    texture: "strands",
    fringe: true,
    parting: 0,
    shape: (X, Y) =>
      Math.max(
        cap(X, Y, 1.1, 0.28),
        sides(X, Y, 0.95, 0.76, even),
        // The fringe: straight across just above the brows.
        Y < 0.3 && Math.abs(X) < 0.58 ? (1 - smooth(0.24, 0.28, Y)) * ellipse(X, Y, 0, 0.1, 0.62, 0.4) : 0,
      ),
  },
  {
    name: "curly volume",
    colour: [44, 30, 24],
    texture: "curls",
    parting: 0,
    shape: (X, Y, n) => {
      const r = 1 + (n(Math.atan2(X, Y - 0.35) * 3, 7) - 0.5) * 0.12;
      return Math.max(
        cap(X, Y, 1.2),
        ellipse(X, Y, 0, 0.32, 1.0 * r, 0.92 * r) * smooth(-0.2, 0.05, 1.25 - Y),
      );
    },
  },
  {
    name: "top bun",
    colour: [196, 150, 90],
    texture: "strands",
    parting: 0,
    shape: (X, Y) => Math.max(cap(X, Y, 1.0), ellipse(X, Y, 0, -0.42, 0.3, 0.24)),
  },
  {
    name: "wavy shoulder length",
    colour: [110, 66, 40],
    texture: "strands",
    parting: -0.15,
    shape: (X, Y, n) => {
      const wave = Math.sin(Y * 14) * 0.04;
      return Math.max(cap(X, Y, 1.12), sides(X + Math.sign(X) * wave, Y, 1.55, 0.92, n));
    },
  },
  {
    name: "buzz cut",
    colour: [40, 32, 28],
    texture: "stubble",
    parting: 0,
    shape: (X, Y) => cap(X, Y, 0.98, 0.1),
  },
  {
    name: "side ponytail",
    colour: [226, 214, 182],
    texture: "strands",
    parting: 0.1,
    shape: (X, Y) => {
      // Pulled back tight and gathered at the side of the crown (a tie inside the cap's edge),
      // the tail swinging out from there and falling over one shoulder, tapering to its tip:
      // one piece with the head, never an oval floating beside it.
      const tie = ellipse(X, Y, 0.56, 0.12, 0.13, 0.12);
      const t = smooth(0.05, 1.75, Y);
      const centre = 0.58 + 0.24 * smooth(0.05, 0.7, Y) - 0.04 * smooth(0.9, 1.75, Y);
      const half = 0.07 + 0.1 * Math.sin(Math.PI * Math.min(1, t * 1.25)) * (1 - 0.6 * t);
      const tail =
        (1 - smooth(half - 0.03, half + 0.03, Math.abs(X - centre))) *
        smooth(0.0, 0.1, Y) *
        (1 - smooth(1.6, 1.75, Y));
      return Math.max(cap(X, Y, 1.02), tie, tail);
    },
  },
];

/** How far each pixel is from the head, in head units, and whether the face hides it. */
function headUnits(hair: HairRegion) {
  const { cx, top, fw, fh } = hair.head;
  return { X: (x: number) => (x - cx) / fw, Y: (y: number) => (y - top) / fh };
}

/**
 * The tile with `cut`: old hair outside the new shape replaced by `plate` (the background
 * behind the person), then the new hair painted.
 */
export function applyCut(scene: Scene, cut: Cut, plate: Buffer): Buffer {
  const { src, hair, seed } = scene;
  const { width, height } = src;
  const { X, Y } = headUnits(hair);
  const { brows, fw, fh } = hair.head;
  const n = (a: number, b: number) => valueNoise(a, b, seed + 101);
  const masks = guardMasks(scene, plate);
  const alpha = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const Yv = Y(y);
    if (Yv < -1.2 || Yv > 2.4) continue;
    for (let x = 0; x < width; x++) {
      const Xv = X(x);
      if (Math.abs(Xv) > 1.4) continue;
      let a = cut.shape(Xv, Yv, n);
      if (a <= 0) continue;
      const i = y * width + x;
      // Never over the face (a fringe: down to just above the brows), nor over the ears,
      // neck or hands below the brows; the edge is soft, not a cut-out.
      // A fringe's lower edge fades over the brows' width and is ragged, not a ruled line.
      const jag = (n(Xv * 25, 5) - 0.5) * 0.05 * fh;
      const t = smooth(brows - fh * 0.1, brows - fh * 0.02, y + jag);
      a *= 1 - t * Math.min(1, masks.guard[i]! * 2);
      if (!cut.fringe) a *= 1 - masks.oval[i]!;
      alpha[i] = a;
    }
  }
  const out = Buffer.from(src.data);
  // Old hair the new cut does not cover goes: the background shows through. The hair's soft
  // rim is taken generously (blurred and boosted: round, never blocky), or a faint outline of
  // the old cut stays; the guarded skin is never touched.
  for (let i = 0; i < alpha.length; i++) {
    // (A lock in front of the face goes up to the skin beside it: the plate there is that skin.)
    // (Someone else beside the head, or the shoulders, stays exactly as it was: shared/hair/others.ts.)
    if (hair.others.mask[i]) continue;
    const old =
      Math.max(Math.min(1, masks.oldHair[i]! * 4) * (1 - masks.shield[i]!), masks.lock[i]!) * (1 - alpha[i]!);
    if (old <= 0.003) continue;
    for (let c = 0; c < 3; c++)
      out[i * 3 + c] = Math.round(out[i * 3 + c]! * (1 - old) + plate[i * 3 + c]! * old);
  }
  // The parting: strands fall away from it; light from the upper left.
  const px = hair.head.cx + cut.parting * fw;
  const py = hair.head.top - 0.55 * fh;
  const phase = hash2(seed, 5, seed) * 10;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const a = alpha[i]!;
      if (a <= 0.003) continue;
      let s: number;
      if (cut.texture === "curls") {
        const u = x / (fw * 0.045);
        const v = y / (fw * 0.045);
        s = 0.45 + 0.8 * (0.6 * valueNoise(u, v, seed + 7) + 0.4 * valueNoise(u * 2.3, v * 2.3, seed + 9));
      } else if (cut.texture === "stubble") {
        s = 0.75 + 0.35 * valueNoise(x / 1.5, y / 1.5, seed + 3);
      } else {
        const dx = x - px;
        const dy = Math.max(1, y - py);
        const theta = Math.atan2(dx, dy);
        const r = Math.hypot(dx, dy) / fh;
        s =
          0.5 +
          0.55 * valueNoise(theta * 60 + phase, r * 1.5, seed + 11) +
          0.25 * valueNoise(theta * 180 + phase, r * 4, seed + 13);
      }
      // Shade: darker deep in the hair next to the face and at the nape, a sheen on the crown.
      const Yv = (y - hair.head.top) / fh;
      const Xv = (x - hair.head.cx) / fw;
      const sheen = 0.28 * Math.exp(-(((Xv + 0.22) / 0.3) ** 2) - ((Yv + 0.25) / 0.2) ** 2);
      const depth = 0.85 + 0.15 * Math.min(1, Math.abs(Xv) / 0.7);
      const light =
        (s + sheen) * depth * (cut.texture === "stubble" ? 1 : 0.95 + 0.1 * smooth(-0.6, 0.2, -Yv));
      const edgeA = cut.texture === "stubble" ? a * 0.85 : a;
      for (let c = 0; c < 3; c++) {
        const v = Math.min(255, cut.colour[c]! * light + 14 * sheen);
        out[i * 3 + c] = Math.round(out[i * 3 + c]! * (1 - edgeA) + v * edgeA);
      }
    }
  // The new hair casts a soft shadow on the skin beside and under it, so the face sits in
  // the hair instead of on top of it.
  const shade = blurred(alpha, width, height, Math.max(2, Math.round(fw * 0.025)));
  for (let i = 0; i < alpha.length; i++) {
    const k = 0.2 * shade[i]! * (1 - alpha[i]!) * masks.shield[i]!;
    if (k <= 0.003) continue;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(out[i * 3 + c]! * (1 - k));
  }
  return out;
}

/** Per scene (shared by its nine cuts): the soft guard, oval and old-hair masks. */
const guardCache = new WeakMap<HairRegion, GuardMasks>();
interface GuardMasks {
  /** 0..1, about 0.5 on the guard's edge: where new hair may not be painted below the brows. */
  guard: Float32Array;
  oval: Float32Array;
  /** 1 on the guard and fading out beyond it: where old hair may not be removed. */
  shield: Float32Array;
  /** The old hair, blurred outwards. */
  oldHair: Float32Array;
  /** A lock in front of the face or neck, grown a little and blurred. */
  lock: Float32Array;
}
function guardMasks(scene: Scene, plate: Buffer): GuardMasks {
  const { hair, matte } = scene;
  const { width, height } = scene.src;
  const cached = guardCache.get(hair);
  if (cached) return cached;
  const { fw, fh, chin } = hair.head;
  const r = Math.max(1, Math.round(fw * 0.012));
  // The old hair, plus what of the person lies close to sure hair above the jaw line
  // (strands in shadow or against the light escape the colour test), never the guard.
  const near = nearHair(hair, width, height);
  const old = Float32Array.from(hair.alpha);
  // A lock in front of the face or neck goes too (the bare head shows the skin behind it).
  for (let i = 0; i < old.length; i++) if (hair.lock[i]) old[i] = 1;
  // (Inside the round zone of this head's hair down to about the jaw: a straight line at the
  // jaw made the bottom of a box.) Someone else beside the head is never part of it.
  for (let y = 0; y < Math.min(height, Math.round(chin + fh * 0.1)); y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (
        near[i] &&
        matte[i]! > 8 &&
        !hair.guard[i] &&
        !hair.others.mask[i] &&
        hairZone(hair.head, x, y, true) > 0.5
      )
        old[i] = Math.max(old[i]!, 0.5);
    }
  // New hair is not painted over the face below the brows, where a lock was included (on the
  // face: beside it, where the lock hung over the background, a wide cut such as the afro
  // fills in; before, it left a gap beside the cheek).
  const noPaint = Uint8Array.from(hair.guard);
  for (let i = 0; i < noPaint.length; i++) if (hair.lock[i] && hair.oval[i]) noPaint[i] = 1;
  const masks = {
    guard: blurred(noPaint, width, height, r),
    oval: blurred(hair.oval, width, height, r),
    shield: shielded(hair.guard, width, height, r),
    oldHair: blurred(old, width, height, Math.max(2, Math.round(fw * 0.02))),
    // (With the skin beside it that its shadow darkened: the rebuilt cheek fades into the photo;
    // and the lock's stray strands the hair region missed: dark scraps beside the jaw.)
    lock: ((shade, strays) =>
      blurred(hair.lock, width, height, r).map((v, i) =>
        Math.max(Math.min(1, v * 2), shade[i]!, Math.min(1, strays[i]! * 2)),
      ))(
      lockShade(hair),
      blurred(dilate(lockStrays(scene.src, matte, hair, plate), width, height, r + 1), width, height, r),
    ),
  };
  guardCache.set(hair, masks);
  return masks;
}
