import { EngineError } from "@/core/ports/renderer";
import type { RawImage } from "../image-io";
import { fillFromBackground } from "./fill-background";
import type { HairRegion } from "./hair-region";
import { blurred, dilate } from "./skin-guard";
import { cheekBehindLock, lockShade } from "./cheek";

/**
 * What the photo would show with the person's hair taken away (the hair effects' "bare
 * head"): the background behind the head; the face's skin inside the face oval (a lock over
 * a cheek taken away: the cheek continued from the skin around it, with the skin's grain
 * taken from the mirrored cheek); and below the jaw the neck, shoulders and clothing
 * (continued from the uncovered body around, out to where the body's edge is, judged from
 * the side of the neck the hair does not hide). The effects show it wherever they remove hair.
 */

/** Within 0.07 face widths of sure hair (alpha over 0.3) or of a lock. */
export function nearHair(hair: HairRegion, width: number, height: number): Uint8Array {
  const sure = new Uint8Array(hair.alpha.length);
  for (let i = 0; i < sure.length; i++) sure[i] = hair.alpha[i]! > 0.3 || hair.lock[i] ? 1 : 0;
  return dilate(sure, width, height, Math.round(hair.head.fw * 0.07));
}

/**
 * The body's half-widths (left and right of the face's centre) on each row from just above
 * the chin down: how far the uncovered body reaches, and on a side where hair hides its
 * edge, an edge invented from the neck's width above to this side's shoulder below (with
 * `hiddenL`/`hiddenR`, the rows where it was).
 * `undefined` above the chin. Smoothed along the rows: no jagged neck edge.
 */
function bodyExtent(
  matte: Buffer,
  hair: HairRegion,
  width: number,
  height: number,
): { from: number; left: Float32Array; right: Float32Array; hiddenL: Uint8Array; hiddenR: Uint8Array } {
  const { cx, chin, fw, fh } = hair.head;
  const from = Math.max(0, Math.round(chin - fh * 0.15));
  const left = new Float32Array(height);
  const right = new Float32Array(height);
  const c = Math.min(width - 1, Math.max(0, Math.round(cx)));
  const lh = new Uint8Array(height);
  const rh = new Uint8Array(height);
  const lr = new Float32Array(height);
  const rr = new Float32Array(height);
  const ll = new Float32Array(height);
  const rl = new Float32Array(height);
  for (let y = from; y < height; y++) {
    // Outwards from the centre to the end of the person: the furthest uncovered body pixel,
    // whether hair (not the background) hides the edge, and where that hair ends.
    // (Past hair, only a run of body counts again, the neck beside a thin lock; a few pixels
    // between strands do not.)
    const minRun = Math.max(3, Math.round(fw * 0.05));
    const side = (dir: number): { reach: number; hidden: boolean; limit: number } => {
      let reach = 0;
      let hidden = false;
      let run = 0;
      let x = c;
      for (; x >= 0 && x < width; x += dir) {
        const i = y * width + x;
        if (hair.alpha[i]! > 0.05 || hair.lock[i]) {
          hidden = true;
          run = 0;
        } else if (matte[i]! > 200) {
          run++;
          if (!hidden || run >= minRun) {
            reach = Math.abs(x - c);
            hidden = false;
          }
        } else break;
      }
      return { reach, hidden, limit: Math.abs(x - c) };
    };
    const l = side(-1);
    const r = side(1);
    [lh[y], lr[y], ll[y]] = [l.hidden ? 1 : 0, l.reach, l.limit];
    [rh[y], rr[y], rl[y]] = [r.hidden ? 1 : 0, r.reach, r.limit];
  }
  // A side whose edge the hair hides: over each run of such rows, the edge runs from the
  // neck's width where the run starts (the other side's visible edge, mirrored: a neck is
  // about symmetric; with both hidden, a neck's usual half-width) to this side's own visible
  // edge where the run ends (the shoulder below the lock), widening ever faster (a neck
  // flaring into the shoulder), never past the hair hiding it. (Before, each row took the
  // other side's edge: where that side's shoulder starts higher, a point stuck out over the
  // background.)
  const floor = fw * 0.3;
  const invent = (
    hid: Uint8Array,
    reach: Float32Array,
    limit: Float32Array,
    oh: Uint8Array,
    or: Float32Array,
    out: Float32Array,
  ) => {
    for (let y = from; y < height;) {
      if (!hid[y]) {
        out[y] = reach[y]!;
        y++;
        continue;
      }
      let b = y;
      while (b + 1 < height && hid[b + 1]) b++;
      const other = (t: number) => (oh[t] ? floor : or[t]!);
      const top = y > from ? Math.min(reach[y - 1]!, other(y)) || other(y) : other(y);
      const bottom = b + 1 < height ? reach[b + 1]! : other(b);
      for (let t = y; t <= b; t++) {
        const u = (t - y + 1) / (b - y + 2);
        const w = Math.min(top, other(t)) + (bottom - Math.min(top, other(t))) * u * u;
        out[t] = Math.min(limit[t]!, Math.max(reach[t]!, w));
      }
      y = b + 1;
    }
  };
  invent(lh, lr, ll, rh, rr, left);
  invent(rh, rr, rl, lh, lr, right);
  // Smoothed over a tenth of a face height, so the invented edge runs straight.
  const k = Math.max(1, Math.round(fh * 0.05));
  const smooth = (a: Float32Array) => {
    const out = new Float32Array(height);
    for (let y = from; y < height; y++) {
      let s = 0;
      let n = 0;
      for (let t = Math.max(from, y - k); t <= Math.min(height - 1, y + k); t++, n++) s += a[t]!;
      out[y] = s / n;
    }
    return out;
  };
  return { from, left: smooth(left), right: smooth(right), hiddenL: lh, hiddenR: rh };
}

/**
 * The bare head: `src` with every pixel of the person's hair (and the lock in front of the
 * face or neck) replaced by what is behind it. `background`: the clear background to continue
 * (1 = known); by default the pixels well off the person and the hair. Pixels far from the hair are the photo's own;
 * the effects blend this in only where they remove hair.
 */
export function barePlate(src: RawImage, matte: Buffer, hair: HairRegion, background?: Uint8Array): Buffer {
  const { width, height } = src;
  const n = width * height;
  const { cx, brows, fw, fh } = hair.head;
  const near = nearHair(hair, width, height);
  const gone = (i: number) => hair.alpha[i]! > 0.05 || hair.lock[i] === 1;

  // Behind the head: the clear background around it.
  // (Or the caller's own choice of clear background, the pixie's: everything it keeps.)
  let known = background;
  if (!known) {
    known = new Uint8Array(n);
    for (let i = 0; i < n; i++) known[i] = matte[i]! < 30 && !near[i] && hair.alpha[i]! < 0.02 ? 1 : 0;
  }
  const plate = fillFromBackground(src.data, known, width, height);

  // The face: its uncovered skin (the eyes, brows, nostrils and lips left out).
  const skinKnown = new Uint8Array(n);
  for (let i = 0; i < n; i++)
    skinKnown[i] = hair.oval[i] && !gone(i) && !hair.features[i] && matte[i]! > 128 ? 1 : 0;
  const lockNear = dilate(hair.lock, width, height, Math.round(fw * 0.02) + 2);
  // The cheek behind a lock: the other side of the face mirrored and relit (cheek.ts).
  const { skin, mirrored: rebuilt, face } = cheekBehindLock(src, hair, skinKnown);
  const shade = lockShade(hair);

  // Below the jaw: the uncovered body (neck, shoulders, clothing), out to its edges.
  const { from, left, right, hiddenL, hiddenR } = bodyExtent(matte, hair, width, height);
  const body = new Uint8Array(n);
  const bodyKnown = new Uint8Array(n);
  for (let y = from; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const dx = x - cx;
      if ((dx < 0 && -dx <= left[y]!) || (dx >= 0 && dx <= right[y]!)) body[i] = 1;
      if (matte[i]! > 200 && !gone(i) && !hair.oval[i] && !near[i]) bodyKnown[i] = 1;
    }
  // Known body pixels just beside the hair too (the neck right next to a lock).
  for (let i = 0; i < n; i++) if (body[i] && matte[i]! > 200 && !gone(i) && !hair.oval[i]) bodyKnown[i] = 1;
  const bodyFill = fillFromBackground(src.data, bodyKnown, width, height);

  // Soft (a couple of pixels) where the invented skin meets the background behind it.
  const r = Math.max(1, Math.round(fw * 0.006));
  const faceW = blurred(face ?? hair.oval, width, height, r);
  const bodyW = blurred(body, width, height, r);
  // The skin's grain: the high frequencies of the mirrored pixel (about the face's centre
  // line), where that pixel is itself uncovered skin.
  const grainR = Math.max(2, Math.round(fw * 0.02));
  const luma = new Float32Array(n);
  for (let i = 0; i < n; i++)
    luma[i] = 0.299 * src.data[i * 3]! + 0.587 * src.data[i * 3 + 1]! + 0.114 * src.data[i * 3 + 2]!;
  const lumaLow = blurred(luma, width, height, grainR);
  const featuresNear = dilate(hair.features, width, height, grainR * 2);
  // The other side of the neck at a pixel: the mirrored pixel where it is uncovered body, its
  // colour brought to the brightness the fill has here (the hidden side may be in shade);
  // null where there is none (the fill alone then, which mixes in the clothing below).
  // `j`: the mirrored pixel (for the skin's grain).
  const mirrorOf = (
    i: number,
    x: number,
    y: number,
    wantBody: boolean,
  ): { j: number; c: number[] | null } => {
    // (On a side whose edge was invented, the other side's neck stretched to this one's
    // width: its shading from the middle out to its edge, the shadow at the edge included.)
    const dx = x - cx;
    const hid = y >= from && (dx < 0 ? hiddenL[y] : hiddenR[y]);
    const ratio = hid ? (dx < 0 ? right[y]! / Math.max(1, left[y]!) : left[y]! / Math.max(1, right[y]!)) : 1;
    const xm = Math.round(cx - dx * Math.min(1, ratio));
    if (xm < 0 || xm >= width) return { j: -1, c: null };
    let j = y * width + xm;
    // (On such a side, where the other side is itself under hair near the jaw: its neck a
    // little lower down, the nearest uncovered row of that column.)
    if (hid && wantBody && !(bodyKnown[j] && !gone(j)))
      for (let t = y + 1; t < Math.min(height, y + fh * 0.3); t++) {
        const jt = t * width + xm;
        if (bodyKnown[jt] && !gone(jt) && !hair.oval[jt]) {
          j = jt;
          break;
        }
      }
    if (!wantBody || !bodyKnown[j] || gone(j)) return { j, c: null };
    const fillY = 0.299 * bodyFill[i * 3]! + 0.587 * bodyFill[i * 3 + 1]! + 0.114 * bodyFill[i * 3 + 2]!;
    const k = Math.min(1.1, Math.max(0.6, fillY / Math.max(1, lumaLow[j]!)));
    // (The pixel itself, not its blur: the other side's shading and grain, the shadow under
    // the jaw included; a flat fill read as a block pasted on the neck.)
    return { j, c: [0, 1, 2].map((ch) => src.data[j * 3 + ch]! * k) };
  };
  // Where the neck's edge is invented (a lock hid it): the neck behind the lock is the other
  // side's, brought to the real neck around it. The difference between the real neck and the
  // mirrored one along the lock's edge is spread smoothly over the hidden neck (a seamless
  // clone): no colour step where it meets the neck and shoulder (the two sides are lit
  // differently; before, a lighter plate with cut edges).
  const invented = new Uint8Array(n);
  let anyInvented = false;
  for (let y = from; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (body[i] && gone(i) && !hair.oval[i] && (x < cx ? hiddenL[y] : hiddenR[y])) {
        invented[i] = 1;
        anyInvented = true;
      }
    }
  // (A membrane on a grid of 4 px cells: each hidden cell the mean of its neighbours, the
  // real neck's cells round it fixed at their difference; background and hair cells left
  // out. Smooth inside, equal to the real neck's at every edge it shares with it.)
  let offset: Float32Array[] | null = null;
  let offsetW: Float32Array | null = null;
  if (anyInvented) {
    const S = 4;
    const gw = Math.ceil(width / S);
    const gh = Math.ceil(height / S);
    const hidCount = new Float32Array(gw * gh);
    const realCount = new Float32Array(gw * gh);
    const realSum = [0, 1, 2].map(() => new Float32Array(gw * gh));
    const around = dilate(invented, width, height, Math.round(fw * 0.04));
    for (let y = from; y < height; y++)
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        if (!around[i]) continue;
        const c = Math.floor(y / S) * gw + Math.floor(x / S);
        if (invented[i]) {
          hidCount[c] = hidCount[c]! + 1;
          continue;
        }
        if (!body[i] || gone(i) || hair.alpha[i]! > 0.01 || hair.oval[i] || matte[i]! <= 200) continue;
        const m = mirrorOf(i, x, y, true).c;
        if (!m) continue;
        realCount[c] = realCount[c]! + 1;
        for (let ch = 0; ch < 3; ch++) realSum[ch]![c] = realSum[ch]![c]! + src.data[i * 3 + ch]! - m[ch]!;
      }
    // 0: out; 1: fixed (real neck); 2: free (hidden neck).
    const kind = new Uint8Array(gw * gh);
    const val = [0, 1, 2].map(() => new Float32Array(gw * gh));
    for (let c = 0; c < gw * gh; c++)
      if (hidCount[c]! > 0 && hidCount[c]! >= realCount[c]!) kind[c] = 2;
      else if (realCount[c]! >= 4) {
        kind[c] = 1;
        for (let ch = 0; ch < 3; ch++)
          val[ch]![c] = Math.max(-60, Math.min(60, realSum[ch]![c]! / realCount[c]!));
      }
    const free: number[] = [];
    for (let c = 0; c < gw * gh; c++) if (kind[c] === 2) free.push(c);
    for (let it = 0; it < 400; it++)
      for (const c of free) {
        const gx = c % gw;
        const nb = [gx > 0 ? c - 1 : -1, gx < gw - 1 ? c + 1 : -1, c - gw, c + gw];
        let wn = 0;
        const acc = [0, 0, 0];
        for (const d of nb) {
          if (d < 0 || d >= gw * gh || !kind[d]) continue;
          wn++;
          for (let ch = 0; ch < 3; ch++) acc[ch] = acc[ch]! + val[ch]![d]!;
        }
        if (wn) for (let ch = 0; ch < 3; ch++) val[ch]![c] = acc[ch]! / wn;
      }
    offset = [0, 1, 2].map((ch) => {
      const full = new Float32Array(n);
      for (let y = from; y < height; y++)
        for (let x = 0; x < width; x++) {
          const c = Math.floor(y / S) * gw + Math.floor(x / S);
          full[y * width + x] = kind[c] ? val[ch]![c]! : 0;
        }
      return blurred(full, width, height, S * 2);
    });
    // (Over the hidden neck and a little round it, fading out: the real neck there is the photo's.)
    offsetW = blurred(
      dilate(invented, width, height, Math.round(fw * 0.02)),
      width,
      height,
      Math.round(fw * 0.02),
    );
  }
  const out = Buffer.from(src.data);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!near[i] && !lockNear[i] && !gone(i) && !(shade[i]! > 0)) continue;
      // (The face's skin from the brows down, where a lock hangs: over the forehead, old hair
      // a new cut does not cover shows the background, as the face's edge there is unknown.)
      const f = faceW[i]! * Math.min(1, Math.max(0, (y - (brows - fh * 0.2)) / (fh * 0.1)));
      const b = y >= from ? bodyW[i]! * (1 - f) : 0;
      const g = Math.max(0, 1 - f - b);
      let grain = 0;
      let mirrored: number[] | null = null;
      if (f + b > 0.01) {
        const m = mirrorOf(i, x, y, b > 0.01);
        mirrored = m.c;
        const j = m.j;
        if (j >= 0) {
          // (Clamped: freckles and pores, never an eyelash or a mole's full contrast. Where
          // the lock hid a brow's end, the other brow's end, in full.)
          if (hair.features[i] && hair.features[j] && !gone(j)) grain = luma[j]! - lumaLow[j]!;
          else if ((skinKnown[j] || bodyKnown[j]) && !featuresNear[j])
            grain = Math.max(-10, Math.min(10, luma[j]! - lumaLow[j]!));
        }
      }
      const ow = offset && offsetW ? offsetW[i]! : 0;
      for (let ch = 0; ch < 3; ch++) {
        const k = i * 3 + ch;
        let body = mirrored ? mirrored[ch]! : bodyFill[k]!;
        if (ow > 0) body += offset![ch]![i]! * ow;
        const v =
          plate[k]! * g + skin[k]! * f + body * b + grain * ((mirrored ? 0 : b) + (rebuilt[i] ? 0 : f));
        out[k] = Math.max(0, Math.min(255, Math.round(v)));
      }
    }
  return out;
}

/**
 * Strands of a lock in front of the face or neck that neither the matte nor the hair region
 * holds (a dark scrap beside the jaw, fine flecks over the background): within 0.06 face
 * widths of the lock, off the face, the guarded skin and anyone else, the pixels that stand
 * out from the bare head `plate` there (the background continued) and are not solid body
 * (hair, or the matte's soft rim). The effects take them away with the lock.
 */
export function lockStrays(src: RawImage, matte: Buffer, hair: HairRegion, plate: Buffer): Uint8Array {
  const { width, height } = src;
  const out = new Uint8Array(width * height);
  let any = false;
  for (let i = 0; i < out.length && !any; i++) any = hair.lock[i] === 1;
  if (!any) return out;
  const nearLock = dilate(hair.lock, width, height, Math.round(hair.head.fw * 0.06));
  for (let i = 0; i < out.length; i++) {
    if (!nearLock[i] || hair.oval[i] || hair.guard[i] || hair.others.mask[i]) continue;
    if (matte[i]! >= 250 && hair.alpha[i]! <= 0.2 && !hair.lock[i]) continue;
    let d = 0;
    for (let ch = 0; ch < 3; ch++) d += Math.abs(src.data[i * 3 + ch]! - plate[i * 3 + ch]!);
    if (d > 36) out[i] = 1;
  }
  return out;
}

/**
 * The share of the face below the eyes that a lock hides. Past {@link MAX_FACE_HIDDEN}, the
 * skin behind it cannot be honestly invented: the effects refuse before charging.
 */
export function faceHidden(hair: HairRegion): number {
  const { eyes } = hair.head;
  const width = hair.alpha.length / hair.half.length;
  let n = 0;
  let hidden = 0;
  for (let i = Math.max(0, Math.ceil(eyes)) * width; i < hair.oval.length; i++)
    if (hair.oval[i]) {
      n++;
      if (hair.lock[i]) hidden++;
    }
  return hidden / Math.max(1, n);
}

/**
 * How a lock covers the face: `share`, of the face below the eyes ({@link faceHidden});
 * `eye`, the most of the ring around either eye it hides (all round: hair over the eye);
 * `centre`, the share of the middle of the face (the nose and mouth column below the eyes)
 * it hides; `sides`, on how many sides of the face (0-2) it hides over 2 % of that side.
 */
export function faceCover(hair: HairRegion): { share: number; eye: number; centre: number; sides: number } {
  const { eyes, cx, fw, eyeSpots, mid } = hair.head;
  const height = hair.half.length;
  const width = hair.alpha.length / height;
  const midX = (y: number) => {
    if (!mid || mid.length < 2) return cx;
    for (let k = 1; k < mid.length; k++)
      if (y <= mid[k]![1]) {
        const [x0, y0] = mid[k - 1]!;
        const [x1, y1] = mid[k]!;
        return y1 > y0 ? x0 + ((Math.max(y0, y) - y0) / (y1 - y0)) * (x1 - x0) : x1;
      }
    return mid[mid.length - 1]![0];
  };
  let centreN = 0;
  let centreHidden = 0;
  const sideN = [0, 0];
  const sideHidden = [0, 0];
  for (let y = Math.max(0, Math.ceil(eyes)); y < height; y++) {
    const m = midX(y);
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!hair.oval[i]) continue;
      const s = x < m ? 0 : 1;
      sideN[s]!++;
      if (hair.lock[i]) sideHidden[s]!++;
      if (Math.abs(x - m) < fw * 0.12) {
        centreN++;
        if (hair.lock[i]) centreHidden++;
      }
    }
  }
  // The ring around an eye: from just outside the eye's own blob to half an eye width beyond.
  let eye = 0;
  for (const [ex, ey, r] of eyeSpots ?? []) {
    let n = 0;
    let hidden = 0;
    const ro = r * 1.7;
    for (let y = Math.max(0, Math.floor(ey - ro)); y <= Math.min(height - 1, Math.ceil(ey + ro)); y++)
      for (let x = Math.max(0, Math.floor(ex - ro)); x <= Math.min(width - 1, Math.ceil(ex + ro)); x++) {
        // (An ellipse as flat as the eye: above and below it the lids and the cheek.)
        const d = Math.hypot((x - ex) / r, ((y - ey) / r) * 1.6);
        if (d < 1.25 || d > 1.7) continue;
        n++;
        if (hair.lock[y * width + x]) hidden++;
      }
    if (n) eye = Math.max(eye, hidden / n);
  }
  const sides = [0, 1].filter((s) => sideHidden[s]! / Math.max(1, sideN[s]!) > 0.02).length;
  return { share: faceHidden(hair), eye, centre: centreHidden / Math.max(1, centreN), sides };
}

/**
 * The limits past which the cheek behind a lock cannot be rebuilt (cheek.ts mirrors the
 * other, uncovered side of the face, so one side must be uncovered, and the eyes, nose and
 * mouth must show: a covered eye would be invented). A lock over one cheek from the parting
 * to past the jaw (portrait-female-1) hides 0.22 of the face below the eyes, half the ring
 * around the eye beside it (its outer side) and none of the middle: it renders. Over a third
 * of the face, three quarters of an eye's ring (hair across the eye), any of the middle, or
 * both sides: refused before charging.
 */
export const MAX_FACE_HIDDEN = 0.35;
export const MAX_EYE_HIDDEN = 0.75;
export const MAX_CENTRE_HIDDEN = 0.02;

export function hairOverFaceError(): EngineError {
  return new EngineError(
    "Hair covers too much of the face, so it cannot be restyled without inventing the face behind it. Please upload a photo with your face uncovered.",
    false,
    "hairOverFace",
  );
}

/**
 * Throws `hairOverFace` when a lock hides more than {@link MAX_FACE_HIDDEN} of the face below
 * the eyes, hair lies across an eye or the middle of the face, or hides both cheeks.
 */
export function requireFaceUncovered(hair: HairRegion): void {
  const c = faceCover(hair);
  if (c.share > MAX_FACE_HIDDEN || c.eye > MAX_EYE_HIDDEN || c.centre > MAX_CENTRE_HIDDEN || c.sides > 1)
    throw hairOverFaceError();
}
