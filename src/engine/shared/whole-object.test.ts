import { describe, expect, it } from "vitest";
import type { RawImage } from "./image-io";
import { uniform } from "./random";
import { convexity } from "./test-utils";
import { badgeMask, cutOutWholeObject } from "./whole-object";

const W = 480;
const H = 360;

/** Wood: warm brown with a wavy grain and a little noise. */
function wood(rnd: () => number): Buffer {
  const data = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const grain =
        Math.sin(y * 0.21 + Math.sin(x * 0.013) * 4) * 0.5 + Math.sin(y * 0.047 + x * 0.004) * 0.5;
      const v = grain * 22 + (rnd() - 0.5) * 18;
      const i = (y * W + x) * 3;
      data[i] = clamp(150 + v);
      data[i + 1] = clamp(88 + v * 0.7);
      data[i + 2] = clamp(48 + v * 0.4);
    }
  return data;
}
const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));

/**
 * An espresso from above on a wooden table: a red saucer disk, a red cup ring standing on it
 * (cream rim, dark coffee inside) and a grey spoon on the saucer beside the cup. Returns the
 * photo, the object's true mask (cup, saucer, spoon) and the cup's box (what the detector names).
 */
function espresso(): { src: RawImage; object: Uint8Array; cupBox: [number, number, number, number] } {
  const rnd = uniform(11);
  const data = wood(rnd);
  const object = new Uint8Array(W * H);
  const saucer = { x: 230, y: 200, r: 140 };
  const cup = { x: 215, y: 165, r: 78 };
  const paint = (i: number, rgb: [number, number, number], shade: number) => {
    data[i * 3] = clamp(rgb[0] * shade + (rnd() - 0.5) * 8);
    data[i * 3 + 1] = clamp(rgb[1] * shade + (rnd() - 0.5) * 8);
    data[i * 3 + 2] = clamp(rgb[2] * shade + (rnd() - 0.5) * 8);
  };
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const ds = Math.hypot(x - saucer.x, y - saucer.y);
      const dc = Math.hypot(x - cup.x, y - cup.y);
      // The spoon: a bowl and a handle on the saucer, right of the cup.
      const bowl = ((x - 330) / 22) ** 2 + ((y - 250) / 30) ** 2 <= 1;
      const handle = x >= 318 && x <= 326 && y >= 150 && y <= 240;
      const shade = 0.85 + 0.15 * Math.cos(Math.atan2(y - saucer.y, x - saucer.x) + 2.2);
      if (dc <= cup.r) {
        object[i] = 1;
        if (dc <= cup.r * 0.62) paint(i, [120, 62, 28], 1);
        else if (dc <= cup.r * 0.8) paint(i, [238, 226, 205], 1);
        else paint(i, [176, 32, 24], shade);
      } else if (bowl || handle) {
        object[i] = 1;
        paint(i, [190, 190, 196], 0.7 + (0.3 * ((x + y) % 37)) / 37);
      } else if (ds <= saucer.r) {
        object[i] = 1;
        paint(i, [162, 30, 22], ds > saucer.r - 10 ? 0.75 : shade);
      }
    }
  return {
    src: { data, width: W, height: H, channels: 3 },
    object,
    cupBox: [cup.x - cup.r, cup.y - cup.r, 2 * cup.r, 2 * cup.r],
  };
}

/** A close-up: a furry tabby head filling the frame, running off the top, left and bottom. */
function closeUp(): RawImage {
  const rnd = uniform(5);
  const data = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 3;
      // The head's edge: a wavy line near the right side.
      const edge = W * 0.78 + Math.sin(y * 0.03) * 25;
      if (x < edge) {
        const stripe = Math.sin(x * 0.08 + Math.sin(y * 0.05) * 2) * 30 + (rnd() - 0.5) * 40;
        data[i] = clamp(180 + stripe);
        data[i + 1] = clamp(125 + stripe * 0.8);
        data[i + 2] = clamp(70 + stripe * 0.5);
        // Two eyes.
        for (const ex of [W * 0.3, W * 0.6])
          if (Math.hypot(x - ex, y - H * 0.4) < 26) [data[i], data[i + 1], data[i + 2]] = [120, 150, 40];
      } else {
        // A soft, pale backdrop.
        const v = (rnd() - 0.5) * 10;
        data[i] = clamp(215 + v);
        data[i + 1] = clamp(200 + v);
        data[i + 2] = clamp(205 + v);
      }
    }
  return { data, width: W, height: H, channels: 3 };
}

describe("cutOutWholeObject", () => {
  it("keeps the whole object (cup, saucer and spoon) when the detector names only the cup", async () => {
    const { src, object, cupBox } = espresso();
    const whole = await cutOutWholeObject(src, cupBox);
    expect(whole).not.toBeNull();
    expect(whole!.closeUp).toBe(false);
    let inObject = 0;
    let objectArea = 0;
    let inBackground = 0;
    for (let i = 0; i < W * H; i++) {
      objectArea += object[i]!;
      if (whole!.mask.data[i]) {
        if (object[i]) inObject++;
        else inBackground++;
      }
    }
    expect(inObject / objectArea, "share of cup + saucer + spoon kept").toBeGreaterThanOrEqual(0.9);
    expect(inBackground / (W * H - objectArea), "share of the table kept").toBeLessThan(0.05);
  }, 60_000);

  it("gives the same mask for the same photo", async () => {
    const { src, cupBox } = espresso();
    const a = await cutOutWholeObject(src, cupBox);
    const b = await cutOutWholeObject(src, cupBox);
    expect(Buffer.from(a!.mask.data).equals(Buffer.from(b!.mask.data))).toBe(true);
  }, 60_000);

  it("reports a close-up running off three edges, whose badge is a smooth convex shape over the subject", async () => {
    const src = closeUp();
    const whole = await cutOutWholeObject(src, [0, 0, Math.round(W * 0.8), H]);
    expect(whole).not.toBeNull();
    expect(whole!.closeUp).toBe(true);
    const badge = badgeMask(whole!.mask);
    expect(convexity(badge)).toBeGreaterThan(0.98);
    // It holds both eyes and most of the head, and little of the backdrop.
    for (const ex of [W * 0.3, W * 0.6]) expect(badge.data[Math.round(H * 0.4) * W + Math.round(ex)]).toBe(1);
    let head = 0;
    let kept = 0;
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++)
        if (x < W * 0.78 + Math.sin(y * 0.03) * 25) {
          head++;
          kept += badge.data[y * W + x]!;
        }
    expect(kept / head).toBeGreaterThan(0.8);
  }, 60_000);

  it("makes a badge of the whole frame when the subject fills it", async () => {
    const src = closeUp();
    const whole = await cutOutWholeObject(src, [0, 0, W, H]);
    expect(whole!.closeUp).toBe(true);
    expect(convexity(badgeMask(whole!.mask))).toBeGreaterThan(0.98);
  }, 60_000);
});
