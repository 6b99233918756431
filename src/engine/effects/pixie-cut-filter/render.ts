import { encodePng, type EffectOutput } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import { valueNoise } from "../../shared/noise";
import { inspect } from "./rules";
import { capMask } from "./cap";
import { barePlate, lockStrays } from "../../shared/hair/uncover";
import { lockShade } from "../../shared/hair/cheek";
import { hairZone } from "../../shared/hair/hair-region";
import { blurred, dilate, shielded } from "../../shared/hair/skin-guard";

/**
 * Pixie Cut Filter: the hair outside a close cap around the head (from the face mesh) is
 * removed and the background behind it filled in from the pixels around; the hair left in
 * the cap gets short, radial, cropped texture. The face is not touched.
 */

/** Strength of the cropped-hair texture (brightness swing around 1). */
export const TEXTURE = 0.22;

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { src, matte: alpha, hair } = await inspect(req);
  const { width, height } = src;
  const matte = { alpha };
  const { cx, eyes, brows, fw, fh } = hair.head;
  const cap = capMask(hair.head, hair.half, width, height, req.seed);

  // Hair outside the cap goes: what the hair region holds, a lock in front of the face or
  // neck (below the brows: above them, inside the cap, it is the pixie's side fringe), and,
  // down to the jaw, the rest of the person next to it whatever its colour (shadowed
  // under-layers and fine fringes escape the colour test). The face, skin-coloured pixels
  // (ears) and the guarded neck stay.
  const n = width * height;
  const strong = new Uint8Array(n);
  for (let i = 0; i < n; i++) strong[i] = hair.alpha[i]! > 0.3 || hair.lock[i] ? 1 : 0;
  const nearHair = dilate(strong, width, height, Math.round(fw * 0.06));
  // Beside a lock in front of the face or neck: its stray strands, whatever the hair region
  // made of them (dark scraps of it were left floating beside the jaw).
  const nearLock = dilate(hair.lock, width, height, Math.round(fw * 0.06));
  const cut = new Uint8Array(n);
  const lockCut = new Uint8Array(n);
  const keep = new Uint8Array(n);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const m = matte.alpha[i]! / 255;
      const dx = Math.abs(x - cx);
      // (The fringe's end is ragged, over a tenth of a face height below the brows.)
      const end = brows + fh * (0.04 + 0.08 * valueNoise(x / (fw * 0.03), 0.5, req.seed + 2));
      if (hair.lock[i] && (y > end || cap[i]! <= 0.5)) {
        cut[i] = 1;
        lockCut[i] = 1;
        continue;
      }
      // Skin-coloured only counts next to the face: the ears, in an ellipse beside the oval
      // from the brows to below the nose (a rounded zone: row and column limits bit a
      // rectangle out of the ear's top and rim); further out it is sky in the fringe.
      const out = Math.max(0, dx - (hair.half[y] ?? 0));
      const ear = hair.skin[i] && (out / (fw * 0.22)) ** 2 + ((y - eyes - fh * 0.1) / (fh * 0.32)) ** 2 < 1;
      // Someone else beside the head (or the shoulders) is never cut (shared/hair/others.ts).
      if (hair.guard[i] || ear || hair.others.mask[i]) {
        keep[i] = 1;
        continue;
      }
      if (cap[i]! > 0.5) continue;

      // (Next to the hair: inside the round zone of this head's hair, down to about the jaw;
      // before, a straight line at the jaw and the hair zone's straight sides made a box.)
      if (hair.alpha[i]! > 0.2 || (m > 0.03 && nearHair[i] && hairZone(hair.head, x, y, true) > 0.5))
        cut[i] = 1;
    }
  // What shows where hair goes: the bare head (background, the cheek or neck behind a lock).
  // The background is continued from everything kept that is off the person (close to the
  // hair too: a fill from further out left a light halo round the head on a bokeh).
  const known = new Uint8Array(n);
  for (let i = 0; i < n; i++)
    if (!cut[i] && !nearLock[i] && matte.alpha[i]! < 64 && hair.alpha[i]! < 0.02) known[i] = 1;
  const plate = barePlate(src, matte.alpha, hair, known);
  // Strands of the lock that neither the matte nor the hair region holds (dark scraps beside
  // the jaw, red flecks over the background) go with it, up to the skin beside them.
  const strays = lockStrays(src, matte.alpha, hair, plate);
  for (let i = 0; i < n; i++) if (strays[i] && !keep[i] && cap[i]! <= 0.5) cut[i] = lockCut[i] = 1;

  // Grown a little past the matte's soft rim (it still holds hair-coloured fringes) and
  // feathered; never into the cap, the face or what else was kept.
  const grown = dilate(cut, width, height, Math.round(fw * 0.02) + 2);
  const soft = blurred(grown, width, height, Math.round(fw * 0.01) + 1);
  // A lock in front of the face goes wherever it is, the cap's sideburns included.
  const lockSoft = blurred(dilate(lockCut, width, height, 2), width, height, Math.round(fw * 0.01) + 1);
  // (With the skin beside it that its shadow darkened: the rebuilt cheek fades into the photo.)
  const shade = lockShade(hair);
  // The face, neck and skin joined to them (a hand at the mouth) stay exactly as they were.
  const shield = shielded(hair.guard, width, height, Math.round(fw * 0.012) + 1);
  // So does anyone else beside the head, exactly: not even the feathered cut's rim reaches them.
  const theirs = hair.others.mask;
  const out = Buffer.from(src.data);
  const centreY = eyes + fh * 0.1;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      // (A lock goes up to the skin beside it: the bare head there is that skin, continued.)
      const c = theirs[i]
        ? 0
        : Math.max(
            keep[i] ? 0 : soft[i]! * (1 - cap[i]!) * (1 - shield[i]!),
            lockSoft[i]!,
            shade[i]! * Math.min(1, Math.max(0, (y - brows) / (fh * 0.08) + 1)),
          );
      if (c > 0)
        for (let ch = 0; ch < 3; ch++)
          out[i * 3 + ch] = Math.round(out[i * 3 + ch]! * (1 - c) + plate[i * 3 + ch]! * c);
      const kept = hair.alpha[i]! * cap[i]!;
      if (kept <= 0.01) continue;
      // Short strands pointing away from the head's centre: noise fine around it, coarse
      // along the radius.
      const dx = x - cx;
      const dy = y - centreY;
      const radius = Math.hypot(dx, dy);
      const around = Math.atan2(dy, dx) * radius;
      const strand =
        0.65 * valueNoise(around / (fw * 0.007), radius / (fw * 0.05), req.seed) +
        0.35 * valueNoise(around / (fw * 0.02), radius / (fw * 0.12), req.seed + 1);
      const s = 1 + TEXTURE * (strand * 2 - 1);
      for (let ch = 0; ch < 3; ch++) {
        const v = Math.min(255, out[i * 3 + ch]! * s);
        out[i * 3 + ch] = Math.round(out[i * 3 + ch]! * (1 - kept) + v * kept);
      }
    }
  return encodePng({ data: out, width, height, channels: 3 });
}
