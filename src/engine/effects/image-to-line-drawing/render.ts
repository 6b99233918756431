import type { RenderRequest } from "@/core/ports/renderer";
import {
  decodeRaw,
  encodePng,
  firstImage,
  transformRaw,
  type EffectOutput,
  type RawImage,
} from "../../shared/image-io";
import { sobel } from "../../shared/edges";

/**
 * Image to Line Drawing: clean dark outlines on white paper that trace the photo's edges.
 * A Canny-style detector (smoothing, Sobel gradient, non-maximum suppression, hysteresis)
 * rather than a threshold of brightness, so a dark sweater becomes an outline, not a blot.
 */

/** Working long side. Edges are found at this scale so line density does not depend on megapixels. */
const WORK_SIDE = 1280;
const MIN_SIDE = 1000;

/** Keeps only pixels that are the local maximum across the edge: one-pixel-thin lines. */
function thin(mag: Float32Array, dir: Uint8Array, width: number, height: number): Float32Array {
  const out = new Float32Array(width * height);
  // Neighbour offsets across the edge for each direction bucket (the gradient's direction).
  const step = [1, width + 1, width, width - 1];
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const m = mag[i]!;
      if (m === 0) continue;
      const s = step[dir[i]!]!;
      // ">" on one side and ">=" on the other breaks ties on plateaus deterministically.
      if (m > mag[i - s]! && m >= mag[i + s]!) out[i] = m;
    }
  }
  return out;
}

/** Value below which `fraction` of the non-zero entries fall (histogram, 1-unit bins). */
function percentile(values: Float32Array, fraction: number): number {
  const bins = new Uint32Array(1500);
  let n = 0;
  for (const v of values) {
    if (v > 0) {
      bins[Math.min(1499, Math.floor(v))]!++;
      n++;
    }
  }
  const target = n * fraction;
  let seen = 0;
  for (let b = 0; b < bins.length; b++) {
    seen += bins[b]!;
    if (seen >= target) return b;
  }
  return 1499;
}

/**
 * Hysteresis: strong ridge pixels seed lines, weaker ridge pixels join only if connected to
 * a seed. Connected lines shorter than `minLength` pixels are dropped as speckle.
 */
function hysteresis(
  ridge: Float32Array,
  width: number,
  height: number,
  low: number,
  high: number,
  minLength: number,
): Uint8Array {
  const ink = new Uint8Array(width * height);
  const seen = new Uint8Array(width * height);
  const stack: number[] = [];
  const component: number[] = [];
  const around = [-width - 1, -width, -width + 1, -1, 1, width - 1, width, width + 1];
  for (let start = 0; start < ridge.length; start++) {
    if (seen[start] || ridge[start]! < high) continue;
    seen[start] = 1;
    stack.push(start);
    component.length = 0;
    while (stack.length > 0) {
      const i = stack.pop()!;
      component.push(i);
      const x = i % width;
      const y = (i - x) / width;
      if (x === 0 || y === 0 || x === width - 1 || y === height - 1) continue;
      for (const o of around) {
        const j = i + o;
        if (!seen[j] && ridge[j]! >= low) {
          seen[j] = 1;
          stack.push(j);
        }
      }
    }
    if (component.length >= minLength) for (const i of component) ink[i] = 255;
  }
  return ink;
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const bytes = firstImage(req);
  let long = await decodeRaw(bytes, { channels: 1, flatten: true, maxSide: WORK_SIDE });
  // Small photos are drawn at a working size of at least MIN_SIDE: at their own size every
  // texture (fur, foam) is a few pixels wide and the page fills with ink.
  if (Math.max(long.width, long.height) < MIN_SIDE) {
    const f = MIN_SIDE / Math.max(long.width, long.height);
    long = await transformRaw(long, (img) =>
      img.resize(Math.round(long.width * f), Math.round(long.height * f), { kernel: "lanczos3" }),
    );
  }
  const { width, height } = long;
  const scale = Math.max(width, height) / 1000;

  // Smoothing sets which details count as edges: enough to ignore skin pores, JPEG blocks
  // and grass blades, not so much that eyes and mouths merge. Scaled with image size.
  const sigma = Math.min(3, Math.max(1.2, 1.6 * scale));
  const smooth = await transformRaw(long, (img) => img.median(3).blur(sigma));

  const { mag, dir } = sobel(smooth.data, width, height);
  const ridge = thin(mag, dir, width, height);

  // Thresholds adapt to the photo's own contrast (percentiles of ridge strength), with an
  // absolute floor so a flat or nearly flat image stays blank instead of drawing noise.
  const high = Math.max(48, percentile(ridge, 0.88));
  const low = Math.max(20, high * 0.4);
  const ink = hysteresis(ridge, width, height, low, high, Math.round(36 * scale) + 8);

  // Turn 1-pixel lines into smooth pen strokes: a small blur spreads and anti-aliases each
  // line, then a steep linear map brings the core to near-black and the paper to white.
  const penSigma = Math.max(0.7, 0.9 * scale);
  const inkRaw: RawImage = {
    data: Buffer.from(ink.buffer, ink.byteOffset, ink.byteLength),
    width,
    height,
    channels: 1,
  };
  const drawn = await transformRaw(inkRaw, (img) => img.blur(penSigma).linear(-2.6, 255));
  return encodePng(drawn);
}
