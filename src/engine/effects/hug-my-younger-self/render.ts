import { encodePng, type EffectOutput } from "../../shared/image-io";
import { uniform } from "../../shared/random";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { blurred, personBlur, sample } from "./coarse";
import { hash, paletteFor, type Palette, type Rgb } from "./palette";
import { inspect, type Person } from "./rules";

/**
 * Hug my younger self: the person of today (first photo) and their childhood self (second)
 * are cut out and set cheek to cheek at one consistent scale, the child in front nestled
 * against the adult, heads tilted together, both showing head and shoulders, on one generated
 * soft-bokeh background whose mood follows the optional prompt; one grade (a toned duotone
 * when either photo is black-and-white or sepia), one light, a vignette and a shared grain
 * make the two photos look taken together.
 */
export const WIDTH = 1280;
export const HEIGHT = 960;

/** Face heights (forehead to chin) in the frame, and how the pair is arranged. */
export const LAYOUT = {
  /** The adult's face height, of the frame's height. */
  adultFace: 0.29,
  /** The child's face height, of the adult's (a child's head is smaller). */
  childScale: 0.8,
  /** Space above the adult's hair, of the frame's height. */
  headroom: 0.08,
  /** The child's face centre below the adult's, in adult face heights. */
  childDrop: 0.42,
  /** Distance between the face centres, in half face widths summed (1 = cheeks touching). */
  closeness: 0.98,
  /** Heads tilted towards each other (radians). */
  adultTilt: 0.13,
  childTilt: 0.09,
} as const;

/** One person drawn into the frame: colour (0..255) and coverage (0..1) per frame pixel. */
export interface Layer {
  rgb: Float32Array;
  alpha: Float32Array;
}

/** Where a photo goes: its head centre lands at (x, y), scaled by k, rotated by angle, maybe mirrored. */
export interface Placement {
  x: number;
  y: number;
  k: number;
  angle: number;
  mirror: boolean;
}

const smooth = (t: number) => (t <= 0 ? 0 : t >= 1 ? 1 : t * t * (3 - 2 * t));
const lum = (r: number, g: number, b: number) => 0.299 * r + 0.587 * g + 0.114 * b;

/** Rows of the matte touching the photo's left and right edges (where the body is cut off). */
function cutRows({ image, alpha }: Person): { left: number; right: number } {
  let left = 0;
  let right = 0;
  for (let y = 0; y < image.height; y++) {
    if (alpha[y * image.width]! >= 128) left++;
    if (alpha[y * image.width + image.width - 1]! >= 128) right++;
  }
  return { left: left / image.height, right: right / image.height };
}

/**
 * The arrangement. The adult goes on the side their face turns towards (so they look at the
 * child, not away); the child is mirrored when that moves a side cut by the photo's edge away
 * from the adult, or else turns the child's face towards the adult.
 */
export function arrange(adult: Person, child: Person): { adult: Placement; child: Placement } {
  const adultLeft = adult.head.turn >= -0.08;
  const side = adultLeft ? 1 : -1; // +1: the child is to the adult's right in the frame.
  const cut = cutRows(child);
  // Unmirrored, the child's side facing the adult is its photo's left when the adult is left.
  const inner = adultLeft ? cut.left : cut.right;
  const outer = adultLeft ? cut.right : cut.left;
  const facesAway = side * child.head.turn > 0.1; // nose points away from the adult
  const mirror = inner > outer + 0.1 || (Math.abs(inner - outer) <= 0.1 && facesAway);

  const fa = LAYOUT.adultFace * HEIGHT;
  const fc = fa * LAYOUT.childScale;
  const ka = fa / adult.head.height;
  const kc = fc / child.head.height;
  const ya = LAYOUT.headroom * HEIGHT + 1.1 * fa;
  const yc = ya + LAYOUT.childDrop * fa;
  const gap = (LAYOUT.closeness * (adult.head.width * ka + child.head.width * kc)) / 2;
  const xa = WIDTH / 2 - (side * gap) / 2;
  const xc = WIDTH / 2 + (side * gap) / 2;
  const childRoll = mirror ? -child.head.roll : child.head.roll;
  return {
    adult: { x: xa, y: ya, k: ka, angle: side * LAYOUT.adultTilt - adult.head.roll, mirror: false },
    child: { x: xc, y: yc, k: kc, angle: -side * LAYOUT.childTilt - childRoll, mirror },
  };
}

/** Linear gain and offset taking a person's 5th..95th luminance percentiles to a common range. */
function toneMatch({ image, alpha }: Person): { gain: number; offset: number; mono: boolean } {
  const hist = new Float64Array(256);
  let n = 0;
  let rg = 0;
  let yb = 0;
  let rg2 = 0;
  let yb2 = 0;
  const { data } = image;
  for (let i = 0; i < image.width * image.height; i++) {
    const a = alpha[i]!;
    if (a < 128) continue;
    const r = data[i * 3]!;
    const g = data[i * 3 + 1]!;
    const b = data[i * 3 + 2]!;
    hist[Math.round(lum(r, g, b))]!++;
    n++;
    const u = r - g;
    const v = 0.5 * (r + g) - b;
    rg += u;
    yb += v;
    rg2 += u * u;
    yb2 += v * v;
  }
  if (n === 0) return { gain: 1, offset: 0, mono: false };
  const pct = (p: number) => {
    let acc = 0;
    for (let v = 0; v < 256; v++) if ((acc += hist[v]!) >= p * n) return v;
    return 255;
  };
  const [lo, hi] = [pct(0.05), pct(0.95)];
  const [tlo, thi] = [16, 232];
  const gain = Math.max(0.85, Math.min(2, (thi - tlo) / Math.max(1, hi - lo)));
  const offset = (tlo + thi) / 2 - gain * ((lo + hi) / 2);
  // Colourfulness (Hasler and Suesstrunk): black-and-white and sepia photos score low.
  const mrg = rg / n;
  const myb = yb / n;
  const colourfulness =
    Math.sqrt(Math.max(0, rg2 / n - mrg * mrg) + Math.max(0, yb2 / n - myb * myb)) +
    0.3 * Math.hypot(mrg, myb);
  return { gain, offset, mono: colourfulness < 18 };
}

/**
 * A generic head-and-shoulders silhouette around a face (offsets in face heights from the
 * face centre, image axes): neck below the chin, rounded shoulders widening into a torso.
 * Beyond the photo's edges the person is continued inside this shape only, so a torso cut
 * by a tight crop ends in rounded shoulders, never in a wall along the photo's old edge.
 */
export function bodyShape(ox: number, oy: number): number {
  const shoulderTop = 0.45; // where the shoulders start to widen (the chin is at 0.5)
  const shoulderLine = 1.0; // full shoulder width from here down
  const half = 1.35;
  let reach: number;
  if (oy < shoulderTop)
    reach = 0.95; // the head and its hair
  else if (oy < shoulderLine) {
    const t = (shoulderLine - oy) / (shoulderLine - shoulderTop);
    reach = 0.45 + (half - 0.45) * Math.sqrt(Math.max(0, 1 - t * t));
  } else reach = half + 0.12 * (oy - shoulderLine);
  return smooth((reach - Math.abs(ox)) / 0.25 + 0.5);
}

/**
 * Draws a person into a frame-sized layer. Where the photo ends (the body cut off by its
 * bottom or sides) the person continues inside {@link bodyShape}, blurred more and more and
 * turning into shadow, the bottom far enough to leave the frame, so the torso never ends in
 * a cut line; elsewhere the cut fades out within a short distance.
 */
async function layer(p: Person, at: Placement, tone: { gain: number; offset: number }): Promise<Layer> {
  const { image, alpha, head } = p;
  const { width: w, height: h } = image;
  const px = image.data;
  const matte = new Float32Array(w * h);
  for (let i = 0; i < w * h; i++) matte[i] = alpha[i]! / 255;
  // Blurred copies of the person alone (coarse.ts), so the continued body keeps its
  // clothing's colour, not the old background's; the first one's blurred matte softens the
  // person's outline near the photo's edge.
  const near = personBlur(px, matte, w, h, Math.max(2, head.height * 0.05));
  const far = personBlur(px, matte, w, h, Math.max(4, head.height * 0.2));

  const rgb = new Float32Array(WIDTH * HEIGHT * 3);
  const cover = new Float32Array(WIDTH * HEIGHT);
  const cos = Math.cos(at.angle);
  const sin = Math.sin(at.angle);
  const fh = head.height;
  // How far (face heights beyond the photo's edge) the person continues before fading out.
  const reach = { bottom: 3, side: 0.3, top: 0.2 };
  // Within this distance inside the photo's edge, the sharp photo blends into the blurred one.
  const blend = 0.12 * fh;

  // Only the frame pixels whose photo point can have any coverage: the photo grown by the
  // reach at the top, sides and bottom, and the body shape below it (bodyShape is 0 beyond
  // its reach + 0.125 face heights from the centre line).
  const oyMin = -reach.top * fh - head.cy - 1;
  const oyMax = h - 1 + reach.bottom * fh - head.cy + 1;
  const bodyReach = (Math.max(0.95, 1.35 + 0.12 * Math.max(0, oyMax / fh - 1)) + 0.125) * fh;
  const oxMax = Math.max(Math.max(head.cx, w - 1 - head.cx) + reach.side * fh, bodyReach) + 1;
  let fx0 = WIDTH;
  let fx1 = 0;
  let fy0 = HEIGHT;
  let fy1 = 0;
  for (const ox of [-oxMax, oxMax])
    for (const oy of [oyMin, oyMax]) {
      const x = at.x + at.k * (cos * ox - sin * oy);
      const y = at.y + at.k * (sin * ox + cos * oy);
      fx0 = Math.min(fx0, x);
      fx1 = Math.max(fx1, x);
      fy0 = Math.min(fy0, y);
      fy1 = Math.max(fy1, y);
    }
  const xa = Math.max(0, Math.floor(fx0) - 1);
  const xb = Math.min(WIDTH, Math.ceil(fx1) + 2);
  const ya = Math.max(0, Math.floor(fy0) - 1);
  const yb = Math.min(HEIGHT, Math.ceil(fy1) + 2);

  const soft = new Float32Array(3);
  const hazy = new Float32Array(3);
  const softMatte = new Float32Array(1);
  const v = new Float32Array(3);
  for (let y = ya; y < yb; y++) {
    for (let x = xa; x < xb; x++) {
      const dx = (x - at.x) / at.k;
      const dy = (y - at.y) / at.k;
      const ox = cos * dx + sin * dy;
      const oy = -sin * dx + cos * dy;
      const sx = head.cx + (at.mirror ? -ox : ox);
      const sy = head.cy + oy;
      // Distance beyond each edge of the photo, in face heights.
      const left = Math.max(0, -sx) / fh;
      const right = Math.max(0, sx - (w - 1)) / fh;
      const top = Math.max(0, -sy) / fh;
      const bottom = Math.max(0, sy - (h - 1)) / fh;
      const beyond = left + right + bottom;
      let fade = (1 - smooth(bottom / reach.bottom)) * (1 - smooth(top / reach.top));
      if (beyond > 0) fade *= Math.max(bodyShape(ox / fh, oy / fh), 1 - smooth((left + right) / reach.side));
      if (fade <= 0) continue;
      const qx = Math.min(w - 1, Math.max(0, sx));
      const qy = Math.min(h - 1, Math.max(0, sy));
      const inside = qx === sx && qy === sy;
      const edge = Math.min(qx, w - 1 - qx, qy, h - 1 - qy);
      const sharpness = inside ? smooth(edge / blend) : 0;
      // Bilinear weights of the full-size photo and matte at (qx, qy).
      const x0 = Math.min(w - 2, Math.max(0, Math.floor(qx)));
      const y0 = Math.min(h - 2, Math.max(0, Math.floor(qy)));
      const wx = Math.min(1, Math.max(0, qx - x0));
      const wy = Math.min(1, Math.max(0, qy - y0));
      const i00 = y0 * w + x0;
      const w00 = (1 - wx) * (1 - wy);
      const w01 = wx * (1 - wy);
      const w10 = (1 - wx) * wy;
      const w11 = wx * wy;
      let a = 0;
      if (sharpness > 0)
        a =
          (matte[i00]! * w00 + matte[i00 + 1]! * w01 + matte[i00 + w]! * w10 + matte[i00 + w + 1]! * w11) *
          sharpness;
      if (sharpness < 1) {
        sample(near.matte, qx, qy, softMatte);
        a += softMatte[0]! * (1 - sharpness);
      }
      a *= fade;
      if (a <= 0.002) continue;
      const o = y * WIDTH + x;
      cover[o] = a;
      // Out beyond the photo the body blurs more and turns slowly into shadow.
      const haze = smooth(beyond / 0.6);
      const shade = 1 - 0.3 * smooth(beyond / 1.5);
      if (sharpness > 0)
        for (let c = 0; c < 3; c++) {
          const j = i00 * 3 + c;
          v[c] = px[j]! * w00 + px[j + 3]! * w01 + px[j + w * 3]! * w10 + px[j + w * 3 + 3]! * w11;
        }
      if (sharpness < 1) {
        sample(near.rgb, qx, qy, soft);
        if (haze > 0) {
          sample(far.rgb, qx, qy, hazy);
          for (let c = 0; c < 3; c++) soft[c] = soft[c]! * (1 - haze) + hazy[c]! * haze;
        }
        for (let c = 0; c < 3; c++)
          v[c] = sharpness > 0 ? v[c]! * sharpness + soft[c]! * (1 - sharpness) : soft[c]!;
      }
      for (let c = 0; c < 3; c++) rgb[o * 3 + c] = (v[c]! * tone.gain + tone.offset) * shade;
    }
  }
  return { rgb, alpha: cover };
}

/** Soft gradient, a glow behind the pair, and out-of-focus light discs (seeded). */
function background(p: Palette, seed: number): Float32Array {
  const bg = new Float32Array(WIDTH * HEIGHT * 3);
  // The glow is a Gaussian: a column factor times a row factor.
  const glowX = Float32Array.from({ length: WIDTH }, (_, x) => Math.exp(-(((x / WIDTH - 0.5) / 0.35) ** 2)));
  for (let y = 0; y < HEIGHT; y++) {
    const t = y / (HEIGHT - 1);
    const glowY = 26 * Math.exp(-(((y / HEIGHT - 0.35) / 0.45) ** 2));
    const base = [0, 1, 2].map((c) => p.top[c]! + (p.bottom[c]! - p.top[c]!) * t);
    for (let x = 0; x < WIDTH; x++) {
      const glow = glowY * glowX[x]!;
      const o = (y * WIDTH + x) * 3;
      bg[o] = base[0]! + glow;
      bg[o + 1] = base[1]! + glow;
      bg[o + 2] = base[2]! + glow;
    }
  }
  const rand = uniform(seed);
  for (let k = 0; k < 34; k++) {
    const cx = rand() * WIDTH;
    const cy = rand() * HEIGHT * 0.85;
    const r = 18 + rand() * 60;
    const strength = 0.12 + rand() * 0.22;
    for (let y = Math.max(0, Math.floor(cy - r)); y < Math.min(HEIGHT, cy + r); y++) {
      for (let x = Math.max(0, Math.floor(cx - r)); x < Math.min(WIDTH, cx + r); x++) {
        const d = Math.hypot(x - cx, y - cy) / r;
        if (d >= 1) continue;
        // Flat disc with a soft rim, like a defocused highlight.
        const a = strength * Math.min(1, (1 - d) / 0.25);
        const o = (y * WIDTH + x) * 3;
        for (let c = 0; c < 3; c++) bg[o + c] = bg[o + c]! + (p.bokeh[c]! - bg[o + c]!) * a;
      }
    }
  }
  return bg;
}

/** A colour's chroma direction (colour minus its grey), scaled to unit length. */
function chromaOf(c: Rgb): [number, number, number] {
  const l = lum(...c);
  const v = [c[0] - l, c[1] - l, c[2] - l];
  const n = Math.hypot(...v) || 1;
  return [v[0]! / n, v[1]! / n, v[2]! / n];
}

export interface Composition {
  adult: Layer;
  child: Layer;
  placement: { adult: Placement; child: Placement };
  /** The two photos were toned to one duotone (either was black-and-white or sepia). */
  toned: boolean;
}

/** Both people drawn into frame-sized layers, at one scale, in the hug's arrangement. */
export async function compose(adult: Person, child: Person): Promise<Composition> {
  const placement = arrange(adult, child);
  const [ta, tc] = [toneMatch(adult), toneMatch(child)];
  const [a, c] = await Promise.all([layer(adult, placement.adult, ta), layer(child, placement.child, tc)]);
  return { adult: a, child: c, placement, toned: ta.mono || tc.mono };
}

/** The soft light from above the pair with its vignette, per frame pixel (the same every render). */
let light: Float32Array | null = null;
function lightField(): Float32Array {
  if (light) return light;
  const field = new Float32Array(WIDTH * HEIGHT);
  for (let y = 0; y < HEIGHT; y++)
    for (let x = 0; x < WIDTH; x++) {
      const u = (x / WIDTH - 0.5) / 0.62;
      const v = (y / HEIGHT - 0.42) / 0.7;
      const d = Math.hypot(u, v);
      field[y * WIDTH + x] = (1 - 0.42 * smooth((d - 0.45) / 0.75)) * (1 + 0.06 * Math.exp(-(d * d) / 0.15));
    }
  return (light = field);
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  if (req.images.length !== 2)
    throw new EngineError(
      "Please upload two photos: you today first, then you as a child.",
      false,
      "needTwoPhotos",
    );
  const people = await inspect(req);
  const { adult, child, placement, toned } = await compose(people.adult, people.child);

  const palette = paletteFor(req.prompt);
  const seed = (req.seed ^ hash(req.prompt)) >>> 0;
  const canvas = background(palette, seed);
  const n = WIDTH * HEIGHT;
  for (let i = 0; i < n; i++) {
    const a = adult.alpha[i]!;
    if (a > 0)
      for (let c = 0; c < 3; c++)
        canvas[i * 3 + c] = canvas[i * 3 + c]! * (1 - a) + adult.rgb[i * 3 + c]! * a;
  }
  // The child, in front, casts a soft shadow onto the adult (towards the adult and down).
  const reachPx = 0.07 * LAYOUT.adultFace * HEIGHT;
  const shadow = blurred(child.alpha, WIDTH, HEIGHT, reachPx);
  const shiftX = Math.round(Math.sign(placement.adult.x - placement.child.x) * reachPx * 0.6);
  const shiftY = Math.round(reachPx * 0.5);
  const shade = new Float32Array(1);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = y * WIDTH + x;
      const a = child.alpha[i]!;
      const under = adult.alpha[i]!;
      if (a === 0 && under === 0) continue;
      let s = 0;
      if (under > 0) {
        const sx = Math.min(WIDTH - 1, Math.max(0, x - shiftX));
        const sy = Math.min(HEIGHT - 1, Math.max(0, y - shiftY));
        sample(shadow, sx, sy, shade);
        s = 0.4 * shade[0]! * under;
      }
      for (let c = 0; c < 3; c++) {
        const under = canvas[i * 3 + c]! * (1 - s);
        canvas[i * 3 + c] = under * (1 - a) + child.rgb[i * 3 + c]! * a;
      }
    }
  }

  // One grade over everything, so the two photos (often one old and faded) look taken in the
  // same light: toned, the colour is mostly replaced by a duotone in the mood's colours; in
  // colour, a lighter touch of the same. Then a soft light from above the pair, a vignette
  // and one film grain over both.
  const keep = toned ? 0.18 : 0.9;
  const strength = toned ? 30 : 12;
  const shadowTint = chromaOf(palette.bottom);
  const lightTint = chromaOf(palette.top);
  const rand = uniform(seed ^ 0x9e3779b9);
  const out = Buffer.alloc(n * 3);
  const light = lightField();
  for (let i = 0; i < n; i++) {
    const k = i * 3;
    const lin = lum(canvas[k]!, canvas[k + 1]!, canvas[k + 2]!);
    const grain = (rand() - 0.5) * 12;
    const l = Math.max(0, Math.min(255, lin * light[i]! + grain));
    const t = l / 255;
    const bell = 4 * t * (1 - t) * strength;
    const chroma = light[i]! * keep;
    for (let c = 0; c < 3; c++) {
      const tint = (shadowTint[c]! * (1 - t) + lightTint[c]! * t) * bell;
      out[k + c] = Math.max(0, Math.min(255, Math.round(l + (canvas[k + c]! - lin) * chroma + tint)));
    }
  }
  return encodePng({ data: out, width: WIDTH, height: HEIGHT, channels: 3 });
}
