import { uniform } from "../random";
import { boxMean, smoothstep } from "./matte";
import { polygonCoverage, quad, type Pt } from "./raster";
import { inPhotoColour, type FaceLight } from "./light";
import type { FaceGeometry } from "./frame";

/**
 * Procedural garments drawn on the body geometry (neck width, MoveNet shoulders): a blazer
 * over a shirt with a collar (the LinkedIn headshot) and a plain crew-neck tee (the studio
 * portrait). Vector shapes, anti-aliased, shaded as a cylinder lit from the face's light
 * side, with soft contact shadows under the collar and lapels and a faint fabric grain,
 * coloured in the photo's own illuminant (or its tone, for a monochrome or sepia photo).
 * Nothing is taken from the clothing in the photo, so the garment has no holes or patches.
 */

export interface Garment {
  /** Colour, 0..255, three floats per pixel. */
  rgb: Float32Array;
  /** Coverage, 0..1. */
  alpha: Float32Array;
  /** The shirt's region (LinkedIn) or the neckline band (tee), 0..1, for tests and shading. */
  inner: Float32Array;
}

interface Outline {
  body: Pt[];
  neckOpening: Pt[];
}

/** The silhouette of a garment on the shoulders, and the opening the neck comes out of. */
function outline(g: FaceGeometry, H: number, opts: { neckDrop: number; widen: number }): Outline {
  const { cx, chinY, fh, fw, neck } = g;
  const yS = chinY + fh * 0.04;
  const side = (s: -1 | 1): Pt[] => {
    const sp = g.shoulders[s < 0 ? 0 : 1];
    const su = Math.abs(sp[0] - cx) * opts.widen;
    const sy = sp[1] - fh * 0.04;
    const n0: Pt = [cx + s * neck * 1.05, yS - fh * 0.03];
    const sh: Pt = [cx + s * su, sy];
    const c1: Pt = [cx + s * (neck + (su - neck) * 0.5), n0[1] + (sy - n0[1]) * 0.45];
    const capEnd: Pt = [cx + s * su * 1.1, sy + fw * 0.35];
    return [
      n0,
      ...quad(n0, c1, sh, 14),
      ...quad(sh, [cx + s * su * 1.09, sy + fh * 0.01], capEnd, 10),
      [cx + s * (su * 1.13 + fw * 0.03), H + 4],
    ];
  };
  const left = side(-1);
  const right = side(1);
  const body = [...left.reverse(), ...right];
  // The neck opening: from the neck's sides down to the front point, up above the chin.
  const front: Pt = [cx, chinY + fh * opts.neckDrop];
  const a: Pt = [cx - neck * 1.0, yS - fh * 0.03];
  const b: Pt = [cx + neck * 1.0, yS - fh * 0.03];
  const neckOpening: Pt[] = [
    [a[0], chinY - fh],
    a,
    ...quad(a, [cx - neck * 0.9, front[1]], front, 12),
    ...quad(front, [cx + neck * 0.9, front[1]], b, 12),
    [b[0], chinY - fh],
  ];
  return { body, neckOpening };
}

/** The light's shading over the torso: a cylinder around the body's axis, lit from the face's side. */
function cylinderShade(g: FaceGeometry, light: FaceLight, x: number, y: number, contrast: number): number {
  const half = (g.shoulders[1][0] - g.shoulders[0][0]) / 2 || g.fw;
  const mid = (g.shoulders[1][0] + g.shoulders[0][0]) / 2;
  const nx = Math.max(-1, Math.min(1, (x - mid) / (half * 1.25)));
  const nz = Math.sqrt(Math.max(0, 1 - nx * nx));
  const lx = light.side * (0.35 + 0.45 * light.strength);
  const lz = Math.sqrt(1 - lx * lx);
  const d = Math.max(0, (nx * lx + nz * lz + 0.25) / 1.25);
  const down = Math.max(0, (y - g.chinY) / g.fh);
  return (1 - contrast + contrast * d) * (1 - 0.1 * Math.min(1.5, down));
}

function grain(width: number, height: number, seed: number): Float32Array {
  const rnd = uniform(seed);
  const n = new Float32Array(width * height);
  for (let i = 0; i < n.length; i++) n[i] = rnd() - 0.5;
  // Short horizontal threads: each sample averaged with its left neighbours.
  for (let i = n.length - 1; i >= 2; i--) n[i] = (n[i]! + n[i - 1]! + n[i - 2]!) * 0.6;
  return n;
}

/** Soft shadow a shape casts just below itself (blurred, moved down by `drop`). */
function castShadow(cover: Float32Array, W: number, H: number, drop: number, r: number): Float32Array {
  const moved = new Float32Array(W * H);
  const d = Math.round(drop);
  for (let y = d; y < H; y++) moved.set(cover.subarray((y - d) * W, (y - d + 1) * W), y * W);
  return boxMean(moved, W, H, Math.round(r * 1.5));
}

/** A blazer over a shirt with a collar, for a business headshot. */
export function drawBlazer(g: FaceGeometry, light: FaceLight, W: number, H: number, seed = 1): Garment {
  const { cx, chinY, fh, neck } = g;
  const { body, neckOpening } = outline(g, H, { neckDrop: 0.3, widen: 1.04 });
  const soft = Math.max(1, W / 600);
  const bodyC = polygonCoverage(body, W, H, soft);
  const openC = polygonCoverage(neckOpening, W, H, soft);
  const yS = chinY + fh * 0.04;
  const yF = chinY + fh * 0.3;
  const yV = chinY + fh * 1.3;
  // Shirt front: a V between the lapels, from the neck down to the jacket's top button.
  const shirtC = polygonCoverage(
    [
      [cx - neck * 1.35, yS - fh * 0.02],
      [cx + neck * 1.35, yS - fh * 0.02],
      [cx, yV],
    ],
    W,
    H,
    soft,
  );
  // Collar wings: from the back of the neck, round the side, to a point over the shirt front.
  const wing = (s: -1 | 1): Pt[] => {
    const a: Pt = [cx + s * neck * 1.0, yS - fh * 0.03];
    const out: Pt = [cx + s * neck * 1.42, yS + fh * 0.12];
    const tip: Pt = [cx + s * neck * 0.62, yF + fh * 0.2];
    const d: Pt = [cx, yF];
    return [
      a,
      ...quad(a, [cx + s * neck * 1.32, yS], out, 8),
      tip,
      d,
      ...quad(d, [cx + s * neck * 0.9, yF], a, 10),
    ];
  };
  const collarC = polygonCoverage(wing(-1), W, H, soft);
  const collarR = polygonCoverage(wing(1), W, H, soft);
  for (let i = 0; i < collarC.length; i++) collarC[i] = Math.max(collarC[i]!, collarR[i]!);
  // Lapels: a band along each side of the V, widening downwards, with a notch near the top.
  const lapel = (s: -1 | 1): Pt[] => {
    const inTop: Pt = [cx + s * neck * 1.35, yS - fh * 0.02];
    const inBot: Pt = [cx, yV];
    const at = (t: number): Pt => [
      inTop[0] + (inBot[0] - inTop[0]) * t,
      inTop[1] + (inBot[1] - inTop[1]) * t,
    ];
    const notchY = yS + fh * 0.42;
    const w0 = neck * 0.55;
    return [
      inTop,
      [cx + s * neck * 1.85, yS + fh * 0.06],
      [cx + s * (neck * 1.35 + w0 * 1.4), notchY - fh * 0.04],
      [cx + s * (neck * 1.35 + w0 * 0.9), notchY + fh * 0.02],
      [cx + s * (neck * 1.35 + w0 * 1.6), notchY + fh * 0.06],
      [at(0.95)[0] + s * neck * 1.1, at(0.95)[1]],
      inBot,
      at(0.5),
    ];
  };
  const lapL = polygonCoverage(lapel(-1), W, H, soft);
  const lapR = polygonCoverage(lapel(1), W, H, soft);

  const shadowR = Math.max(2, Math.round(fh * 0.025));
  const collarShadow = castShadow(collarC, W, H, fh * 0.02, shadowR);
  const lapelCover = new Float32Array(W * H);
  for (let i = 0; i < lapelCover.length; i++) lapelCover[i] = Math.max(lapL[i]!, lapR[i]!);
  const lapelShadow = castShadow(lapelCover, W, H, fh * 0.01, shadowR);

  // Colours in the photo's light; the shirt's exposure follows the face's.
  const exposure = Math.max(0.7, Math.min(1.05, light.faceLuma / 150));
  const jacket = inPhotoColour(light, [50, 58, 76]);
  const tinted = inPhotoColour(light, [240, 242, 246]);
  // Half the illuminant's cast: a white shirt still reads white.
  const shirt = tinted.map((v, k) => ((v + [240, 242, 246][k]!) / 2) * exposure) as [number, number, number];
  const noise = grain(W, H, seed);

  const rgb = new Float32Array(W * H * 3);
  const alpha = new Float32Array(W * H);
  const inner = new Float32Array(W * H);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const a = bodyC[i]! * (1 - openC[i]!);
      const collar = collarC[i]! * bodyC[i]!;
      if (a <= 0 && collar <= 0) continue;
      const shade = cylinderShade(g, light, x + 0.5, y + 0.5, 0.45);
      const lap = lapelCover[i]!;
      const sh = shirtC[i]! * (1 - lap);
      // Jacket, with the lapels a touch lighter on their roll and a seam line on their edge.
      const edge = 4 * lap * (1 - lap);
      let jr = jacket[0] * shade * (1 + 0.08 * lap - 0.35 * edge - 0.45 * lapelShadow[i]! * (1 - lap));
      let jg = jacket[1] * shade * (1 + 0.08 * lap - 0.35 * edge - 0.45 * lapelShadow[i]! * (1 - lap));
      let jb = jacket[2] * shade * (1 + 0.08 * lap - 0.35 * edge - 0.45 * lapelShadow[i]! * (1 - lap));
      const n = 1 + noise[i]! * 0.06;
      jr *= n;
      jg *= n;
      jb *= n;
      // Shirt, shaded by the collar's and lapels' shadows.
      const sShade = shade * (1 - 0.3 * collarShadow[i]! * (1 - collar)) * (1 - 0.35 * lapelShadow[i]!);
      const sn = 1 + noise[i]! * 0.015;
      // The collar: brighter on top, a fine edge where it folds.
      const cEdge = 4 * collar * (1 - collar);
      const cShade = shade * (1.02 - 0.18 * cEdge);
      const pr = shirt[0] * sShade * sn;
      const pg = shirt[1] * sShade * sn;
      const pb = shirt[2] * sShade * sn;
      let r = jr * (1 - sh) + pr * sh;
      let gg = jg * (1 - sh) + pg * sh;
      let b = jb * (1 - sh) + pb * sh;
      r = r * (1 - collar) + shirt[0] * cShade * collar;
      gg = gg * (1 - collar) + shirt[1] * cShade * collar;
      b = b * (1 - collar) + shirt[2] * cShade * collar;
      rgb[i * 3] = r;
      rgb[i * 3 + 1] = gg;
      rgb[i * 3 + 2] = b;
      alpha[i] = Math.max(a, collar);
      inner[i] = Math.max(sh * a, collar);
    }
  return { rgb, alpha, inner };
}

/** A plain black crew-neck tee, for the low-key studio portrait. */
export function drawTee(g: FaceGeometry, light: FaceLight, W: number, H: number, seed = 1): Garment {
  const { body, neckOpening } = outline(g, H, { neckDrop: 0.3, widen: 1.0 });
  const soft = Math.max(1, W / 600);
  const bodyC = polygonCoverage(body, W, H, soft);
  const openC = polygonCoverage(neckOpening, W, H, soft);
  // The neckband: the opening, grown a little.
  const band = boxMean(openC, W, H, Math.max(2, Math.round(g.fh * 0.03)));
  const noise = grain(W, H, seed);
  const rgb = new Float32Array(W * H * 3);
  const alpha = new Float32Array(W * H);
  const inner = new Float32Array(W * H);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const a = bodyC[i]! * (1 - openC[i]!);
      if (a <= 0) continue;
      const shade = cylinderShade(g, light, x + 0.5, y + 0.5, 0.85);
      const rib = smoothstep(0.02, 0.3, band[i]!) * (1 - openC[i]!);
      // Black cotton: a low albedo, lit from the key side, never fully black.
      const v = (9 + 30 * shade) * (1 + 0.2 * rib) * (1 + noise[i]! * 0.08);
      rgb[i * 3] = v;
      rgb[i * 3 + 1] = v;
      rgb[i * 3 + 2] = v * 1.03;
      alpha[i] = a;
      inner[i] = rib;
    }
  return { rgb, alpha, inner };
}
