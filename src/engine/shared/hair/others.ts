import { EngineError } from "@/core/ports/renderer";
import { components } from "../components";
import type { HeadGeometry } from "./hair-region";
import { dilate } from "./skin-guard";

/**
 * Someone else beside the head. The person matte covers everyone in the photo, and the face
 * detector only finds faces turned to the camera: a child leaning on its mother's shoulder
 * with its face turned away (the migrant-mother photo) is one more lump of "person" beside
 * her hair. The hair effects removed everything of the person next to her hair as more of
 * her hair and painted the background over it: a flat box whose sides cut through both
 * children's heads (session 7's reviewer scored it 0).
 *
 * What is found here: large lumps of the person beside and above the jaw that are neither
 * this head's hair (nor a lock of it), nor its skin (the face, ears, a hand at the face: the
 * guard), nor small pockets inside the hair (shadowed under-layers the colour test missed).
 * They include the person's own shoulders rising beside the jaw and a collar; the effects
 * never change any of it. A lump beside the hair (further out than most of the face's
 * width) that the hair touches along a long border is another person's head or hair: the
 * hair cannot be told from theirs there, and what is behind it would be invented over them,
 * so the photo is refused before charging (`hairTouchesOther`).
 */

/** A lump smaller than this (in face width x face height) is a pocket in the hair. */
export const MIN_LUMP = 0.03;
/** A lump whose nearest pixel is this far from the face's centre (face widths) lies beside the hair. */
export const BESIDE = 0.6;
/** Refused when the hair touches a lump beside it along more than this (face heights). */
export const MAX_CONTACT = 0.2;

export interface Others {
  /** 0/1: pixels of the person beside the head that are not this head's hair nor its skin. */
  mask: Uint8Array;
  /** The longest border (face heights) along which this head's hair touches a lump beside it. */
  contact: number;
}

/**
 * `hair` (0..1, this head's hair), `lock`, `guard` and `skin` (0/1) as in `HairRegion`;
 * `matte` the person matte (0..255).
 */
export function otherPeople(
  matte: Buffer,
  hair: Float32Array,
  lock: Uint8Array,
  guard: Uint8Array,
  skin: Uint8Array,
  head: HeadGeometry,
  width: number,
  height: number,
): Others {
  const { cx, top, eyes, chin, fw, fh } = head;
  const n = width * height;
  const sure = new Uint8Array(n);
  for (let i = 0; i < n; i++) sure[i] = hair[i]! > 0.1 || lock[i] ? 1 : 0;
  const ownNear = dilate(sure, width, height, Math.max(2, Math.round(fw * 0.01)));
  // Skin next to the face (ears, a hand) is this head's even where the guard's flood missed it.
  const cand = new Uint8Array(n);
  const y0 = Math.max(0, Math.round(top - fh));
  const y1 = Math.min(height - 1, Math.round(chin - fh * 0.05));
  const x0 = Math.max(0, Math.round(cx - fw * 1.5));
  const x1 = Math.min(width - 1, Math.round(cx + fw * 1.5));
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x <= x1; x++) {
      const i = y * width + x;
      const ear = skin[i] && Math.abs(x - cx) < fw * 0.7 && y > eyes - fh * 0.25;
      if (matte[i]! > 128 && !ownNear[i] && !guard[i] && !ear) cand[i] = 1;
    }
  const { labels, count } = components(cand, width, height);
  const area = new Int32Array(count + 1);
  const nearest = new Float64Array(count + 1).fill(Infinity);
  for (let i = 0; i < n; i++) {
    const l = labels[i]!;
    if (!l) continue;
    area[l]!++;
    nearest[l] = Math.min(nearest[l]!, Math.abs((i % width) - cx));
  }
  const big = MIN_LUMP * fw * fh;
  const mask = new Uint8Array(n);
  // The border with the hair: lump pixels within a few pixels of sure hair, per lump, counted
  // once per row (a border running down the side of the head).
  const touch = dilate(sure, width, height, Math.max(3, Math.round(fw * 0.02)));
  const rows = new Map<number, Set<number>>();
  for (let i = 0; i < n; i++) {
    const l = labels[i]!;
    if (!l || area[l]! <= big) continue;
    mask[i] = 1;
    if (touch[i] && nearest[l]! > fw * BESIDE) {
      let set = rows.get(l);
      if (!set) rows.set(l, (set = new Set()));
      set.add(Math.floor(i / width));
    }
  }
  let contact = 0;
  for (const set of rows.values()) contact = Math.max(contact, set.size / fh);
  return { mask, contact };
}

export function hairTouchesOtherError(): EngineError {
  return new EngineError(
    "Someone else's head or hair touches your hair in this photo, so it cannot be restyled without painting over them. Please upload a photo of just you.",
    false,
    "hairTouchesOther",
  );
}

/** Throws `hairTouchesOther` when this head's hair touches someone else's head or hair beside it. */
export function requireHairApart(others: Others): void {
  if (others.contact > MAX_CONTACT) throw hairTouchesOtherError();
}
