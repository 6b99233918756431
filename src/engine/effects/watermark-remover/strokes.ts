/**
 * Is a set of ink pieces drawn text, or a row of compact shapes (the stars of a flag, dots,
 * buttons, highlights)? Letters are strokes: long and thin, so a glyph's area is many times
 * the square of its stroke's half-width (the largest distance from its inside to its edge):
 * about 30-60 for Latin letters, from hairline to heavy bold. A compact shape holds a large
 * disc for its area: a disc measures π, a five-pointed star about 12, a square 4.
 */
import { components } from "../../shared/components";

/** Chessboard distance from each set pixel of a 0/1 mask to the nearest unset pixel (or the border). */
export function insideDistance(mask: Uint8Array, w: number, h: number): Uint16Array {
  const n = w * h;
  const d = new Uint16Array(n);
  const BIG = 65535;
  for (let i = 0; i < n; i++) d[i] = mask[i] ? BIG : 0;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!d[i]) continue;
      let m = BIG;
      if (x === 0 || y === 0) m = 0;
      else m = Math.min(d[i - 1]!, d[i - w]!, d[i - w - 1]!, x < w - 1 ? d[i - w + 1]! : 0);
      d[i] = Math.min(d[i]!, m + 1);
    }
  for (let y = h - 1; y >= 0; y--)
    for (let x = w - 1; x >= 0; x--) {
      const i = y * w + x;
      if (!d[i]) continue;
      let m = BIG;
      if (x === w - 1 || y === h - 1) m = 0;
      else m = Math.min(d[i + 1]!, d[i + w]!, d[i + w + 1]!, x > 0 ? d[i + w - 1]! : 0);
      d[i] = Math.min(d[i]!, m + 1);
    }
  return d;
}

/** Pieces at least this share of their line's largest piece are glyph-sized (not dots, specks). */
const GLYPH_SHARE = 0.25;
/** Least median area / half-width² of a line's glyph-sized pieces for strokes (stars: 9-12). */
const MIN_ELONGATION = 16;
/** Glyph-sized pieces this alike (area ratio, box sides ratio) are one shape repeated. */
const ALIKE_AREA = 1.12;
const ALIKE_BOX = 1.15;

/**
 * Per owner (a text line's label in `owner`, 1..owners), whether its ink pieces (connected
 * parts of `glyphs` of at least `minPiece` px) read as drawn text: the glyph-sized pieces are
 * strokes (median area / half-width² at least MIN_ELONGATION), and when there are several,
 * they are not one shape repeated (a flag's stars, a row of dots or buttons: letters differ).
 * Lines without a measured piece are not text.
 */
export function drawnText(
  glyphs: Uint8Array,
  owner: Int32Array,
  owners: number,
  width: number,
  height: number,
  minPiece: number,
): Uint8Array {
  const { labels, count } = components(glyphs, width, height);
  const dist = insideDistance(glyphs, width, height);
  const area = new Uint32Array(count + 1);
  const deepest = new Uint16Array(count + 1);
  const pieceOwner = new Int32Array(count + 1);
  const box = new Int32Array((count + 1) * 4).fill(-1); // x0, y0, x1, y1
  for (let i = 0; i < labels.length; i++) {
    const k = labels[i]!;
    if (!k) continue;
    area[k]!++;
    if (dist[i]! > deepest[k]!) deepest[k] = dist[i]!;
    pieceOwner[k] = owner[i]!;
    const x = i % width;
    const y = (i - x) / width;
    if (box[k * 4]! < 0) box.set([x, y, x, y], k * 4);
    else {
      box[k * 4] = Math.min(box[k * 4]!, x);
      box[k * 4 + 1] = Math.min(box[k * 4 + 1]!, y);
      box[k * 4 + 2] = Math.max(box[k * 4 + 2]!, x);
      box[k * 4 + 3] = Math.max(box[k * 4 + 3]!, y);
    }
  }
  const largest = new Uint32Array(owners + 1);
  for (let k = 1; k <= count; k++)
    if (area[k]! >= minPiece) largest[pieceOwner[k]!] = Math.max(largest[pieceOwner[k]!]!, area[k]!);
  const members: number[][] = Array.from({ length: owners + 1 }, () => []);
  for (let k = 1; k <= count; k++)
    if (area[k]! >= minPiece && area[k]! >= largest[pieceOwner[k]!]! * GLYPH_SHARE)
      members[pieceOwner[k]!]!.push(k);
  const text = new Uint8Array(owners + 1);
  const spread = (values: number[]) => Math.max(...values) / Math.max(1, Math.min(...values));
  for (let l = 1; l <= owners; l++) {
    const ks = members[l]!;
    if (!ks.length) continue;
    // Half-width from the chessboard depth: a stroke 2r+1 px wide has depth r+1.
    const ratios = ks.map((k) => area[k]! / Math.max(1, deepest[k]! - 0.5) ** 2).sort((a, b) => a - b);
    const elongation = ratios[Math.floor((ratios.length - 1) / 2)]!;
    const alike =
      ks.length >= 2 &&
      spread(ks.map((k) => area[k]!)) < ALIKE_AREA &&
      spread(ks.map((k) => box[k * 4 + 2]! - box[k * 4]! + 1)) < ALIKE_BOX &&
      spread(ks.map((k) => box[k * 4 + 3]! - box[k * 4 + 1]! + 1)) < ALIKE_BOX;

    text[l] = elongation >= MIN_ELONGATION && !alike ? 1 : 0;
  }
  return text;
}
