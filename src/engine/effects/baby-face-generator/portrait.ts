import { uniform } from "../../shared/random";
import type { Rgb, Traits } from "./traits";
import { hslToRgb } from "../../shared/colour";

/**
 * The baby, drawn: a storybook-style portrait (SVG, rendered by sharp) with infant
 * proportions (a big round head, eyes at its middle, a button nose, chubby cheeks, a tuft
 * of hair) in the parents' combined skin tone, hair and eye colour. Nothing of the adults'
 * pixels is used, so no glasses, beard or adult wrinkles can show through. The seed picks
 * the hair tuft, the expression and the nursery colours.
 */
export const SIZE = 768;

const hex = (c: Rgb) =>
  `#${c
    .map((v) =>
      Math.max(0, Math.min(255, Math.round(v)))
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;
const scale = (c: Rgb, k: number): Rgb => [c[0] * k, c[1] * k, c[2] * k];
const mix = (a: Rgb, b: Rgb, t: number): Rgb => [0, 1, 2].map((i) => a[i]! * (1 - t) + b[i]! * t) as Rgb;
const luma = (c: Rgb) => 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];

/** Nursery backdrops and onesies that go together. */
const PALETTES: Array<{ bg: [string, string]; dots: string; onesie: Rgb }> = [
  { bg: ["#fdf3e7", "#f6dcc4"], dots: "#f0c9a6", onesie: [168, 214, 226] },
  { bg: ["#eef7f1", "#cfe8da"], dots: "#b9dcc8", onesie: [250, 214, 165] },
  { bg: ["#f3effa", "#ddd2ef"], dots: "#c9bce4", onesie: [252, 241, 170] },
  { bg: ["#eaf3fb", "#cbdff1"], dots: "#b3cfe8", onesie: [246, 196, 206] },
];

/** Skin as skin is (HSL): hue 14-32°, saturation 0.22-0.5, lightness 0.22-0.82; the lightness (complexion) kept. */
export function naturalSkin(c: Rgb): Rgb {
  const [r, g, b] = c.map((v) => v / 255) as Rgb;
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  let l = (max + min) / 2;
  const d = max - min;
  let s = d === 0 ? 0 : d / (1 - Math.abs(2 * l - 1));
  let h = 0;
  if (d !== 0) {
    if (max === r) h = ((g - b) / d) % 6;
    else if (max === g) h = (b - r) / d + 2;
    else h = (r - g) / d + 4;
    h *= 60;
    if (h < 0) h += 360;
  }
  // Skin hues of every complexion lie in a narrow orange band; a cool or magenta cast is the
  // photo's light, not the skin.
  h = Math.max(14, Math.min(32, h));
  s = Math.max(Math.min(s, 0.5), l < 0.5 ? 0.22 : 0.28);
  l = Math.max(0.22, Math.min(0.82, l));
  return hslToRgb(h, s, l);
}

export function babySvg(t: Traits, seed: number): string {
  const r = uniform(seed * 7919 + 17);
  const pal = PALETTES[Math.floor(r() * PALETTES.length)]!;
  const smileOpen = r() < 0.5;
  const tuft = Math.floor(r() * 3);
  const cx = SIZE / 2;

  // A baby's skin: the parents' tone, its saturation held to what skin has (a photo's warm
  // light over-saturates it), a little rosier; never lightened towards white.
  const skin = naturalSkin(t.skin);
  const skinLight = mix(skin, [255, 240, 228], 0.18);
  const skinShade = scale(skin, 0.82);
  const blush = mix(skin, [235, 110, 110], 0.35);
  const hair = t.hair ?? mix(skin, [110, 80, 55], 0.6);
  const hairLight = mix(hair, [255, 235, 200], 0.25);
  const iris = t.eye;
  const irisDark = scale(iris, 0.55);
  const lip = mix(skin, [200, 90, 95], 0.45);
  const line = mix(skinShade, [60, 35, 30], 0.45);

  // Head: round, a little wider for a wide-faced pair (aspect about 0.8-1.0 for adults).
  const headRx = 214 * Math.max(0.96, Math.min(1.06, 0.9 + (t.aspect - 0.85) * 0.6));
  const headRy = 222;
  const headCy = 352;
  const eyeY = headCy + 34; // eyes at the middle of a baby's head, lower than an adult's
  const eyeDx = headRx * 0.37;
  const eyeR = 37;
  const noseY = eyeY + 70;
  const mouthY = noseY + 52;

  const dots: string[] = [];
  for (let k = 0; k < 26; k++) {
    const x = r() * SIZE;
    const y = r() * SIZE;
    dots.push(
      `<circle cx="${x.toFixed(0)}" cy="${y.toFixed(0)}" r="${(6 + r() * 8).toFixed(1)}" fill="${pal.dots}" opacity="0.55"/>`,
    );
  }

  const eye = (x: number) => `
    <g>
      <ellipse cx="${x}" cy="${eyeY}" rx="${eyeR + 6}" ry="${eyeR + 4}" fill="#fbfbf8"/>
      <circle cx="${x}" cy="${eyeY + 2}" r="${eyeR - 3}" fill="url(#iris)"/>
      <circle cx="${x}" cy="${eyeY + 2}" r="${eyeR * 0.42}" fill="#140d0a"/>
      <circle cx="${x - 9}" cy="${eyeY - 9}" r="8" fill="#ffffff"/>
      <circle cx="${x + 10}" cy="${eyeY + 10}" r="3.5" fill="#ffffff" opacity="0.85"/>
      <path d="M ${x - eyeR - 8} ${eyeY - 4} Q ${x} ${eyeY - eyeR - 18} ${x + eyeR + 8} ${eyeY - 4}" fill="none" stroke="${hex(line)}" stroke-width="5" stroke-linecap="round"/>
      <path d="M ${x + (x < cx ? -eyeR - 6 : eyeR + 6)} ${eyeY - 6} l ${x < cx ? -9 : 9} -7" stroke="${hex(line)}" stroke-width="4" stroke-linecap="round"/>
    </g>`;

  const brow = (x: number, dir: number) =>
    `<path d="M ${x - 30 * dir} ${eyeY - 62} Q ${x} ${eyeY - 76} ${x + 30 * dir} ${eyeY - 64}" fill="none" stroke="${hex(hair)}" stroke-width="7" stroke-linecap="round" opacity="0.45"/>`;

  const mouth = smileOpen
    ? `<path d="M ${cx - 34} ${mouthY - 4} Q ${cx} ${mouthY + 40} ${cx + 34} ${mouthY - 4} Q ${cx} ${mouthY + 8} ${cx - 34} ${mouthY - 4} Z" fill="#8a3b3f"/>
       <path d="M ${cx - 18} ${mouthY + 16} Q ${cx} ${mouthY + 6} ${cx + 18} ${mouthY + 16} Q ${cx} ${mouthY + 30} ${cx - 18} ${mouthY + 16} Z" fill="#e58a8f"/>`
    : `<path d="M ${cx - 30} ${mouthY} Q ${cx} ${mouthY + 26} ${cx + 30} ${mouthY}" fill="none" stroke="${hex(lip)}" stroke-width="7" stroke-linecap="round"/>`;

  const top = headCy - headRy;
  const tufts = [
    // A single curl.
    `<path d="M ${cx - 10} ${top + 30} C ${cx - 40} ${top - 40}, ${cx + 60} ${top - 60}, ${cx + 40} ${top - 5} C ${cx + 30} ${top + 20}, ${cx + 5} ${top + 5}, ${cx + 15} ${top - 12}" fill="none" stroke="${hex(hair)}" stroke-width="14" stroke-linecap="round"/>`,
    // Three soft strands.
    [-34, 0, 34]
      .map(
        (dx, k) =>
          `<path d="M ${cx + dx * 0.6} ${top + 28} Q ${cx + dx} ${top - 34 - (k === 1 ? 16 : 0)} ${cx + dx * 1.8} ${top - 18}" fill="none" stroke="${hex(hair)}" stroke-width="12" stroke-linecap="round"/>`,
      )
      .join(""),
    // A side swoop.
    `<path d="M ${cx - 90} ${top + 40} Q ${cx - 20} ${top - 40} ${cx + 70} ${top + 6} Q ${cx} ${top - 4} ${cx - 60} ${top + 52} Z" fill="${hex(hair)}"/>`,
  ];

  return `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">
  <defs>
    <radialGradient id="bg" cx="50%" cy="42%" r="70%">
      <stop offset="0" stop-color="${pal.bg[0]}"/><stop offset="1" stop-color="${pal.bg[1]}"/>
    </radialGradient>
    <radialGradient id="skin" cx="42%" cy="36%" r="68%">
      <stop offset="0" stop-color="${hex(skinLight)}"/>
      <stop offset="0.7" stop-color="${hex(skin)}"/>
      <stop offset="1" stop-color="${hex(skinShade)}"/>
    </radialGradient>
    <radialGradient id="blush" cx="50%" cy="50%" r="50%">
      <stop offset="0" stop-color="${hex(blush)}" stop-opacity="0.75"/><stop offset="1" stop-color="${hex(blush)}" stop-opacity="0"/>
    </radialGradient>
    <radialGradient id="iris" cx="50%" cy="45%" r="55%">
      <stop offset="0" stop-color="${hex(mix(iris, [255, 255, 255], luma(iris) < 60 ? 0.25 : 0.12))}"/>
      <stop offset="0.75" stop-color="${hex(iris)}"/>
      <stop offset="1" stop-color="${hex(irisDark)}"/>
    </radialGradient>
    <radialGradient id="fuzz" cx="50%" cy="0%" r="70%">
      <stop offset="0" stop-color="${hex(hairLight)}" stop-opacity="0.75"/><stop offset="1" stop-color="${hex(hair)}" stop-opacity="0"/>
    </radialGradient>
    <clipPath id="head"><ellipse cx="${cx}" cy="${headCy}" rx="${headRx}" ry="${headRy}"/></clipPath>
    <filter id="soft" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="10"/></filter>
  </defs>
  <rect width="${SIZE}" height="${SIZE}" fill="url(#bg)"/>
  ${dots.join("")}
  <!-- body: a onesie with a round collar -->
  <path d="M ${cx - 250} ${SIZE} C ${cx - 240} 620, ${cx - 150} 548, ${cx} 548 C ${cx + 150} 548, ${cx + 240} 620, ${cx + 250} ${SIZE} Z" fill="${hex(pal.onesie)}"/>
  <ellipse cx="${cx}" cy="${headCy + headRy - 4}" rx="${headRx * 0.55}" ry="26" fill="#000" opacity="0.16" filter="url(#soft)"/>
  <path d="M ${cx - 110} 566 Q ${cx} 628 ${cx + 110} 566" fill="none" stroke="${hex(scale(pal.onesie, 0.85))}" stroke-width="12" stroke-linecap="round"/>
  <!-- ears -->
  <ellipse cx="${cx - headRx + 6}" cy="${eyeY + 16}" rx="38" ry="48" fill="${hex(skinShade)}"/>
  <ellipse cx="${cx + headRx - 6}" cy="${eyeY + 16}" rx="38" ry="48" fill="${hex(skinShade)}"/>
  <ellipse cx="${cx - headRx + 8}" cy="${eyeY + 18}" rx="20" ry="28" fill="${hex(blush)}" opacity="0.45"/>
  <ellipse cx="${cx + headRx - 8}" cy="${eyeY + 18}" rx="20" ry="28" fill="${hex(blush)}" opacity="0.45"/>
  <!-- head -->
  <ellipse cx="${cx}" cy="${headCy}" rx="${headRx}" ry="${headRy}" fill="url(#skin)"/>
  <ellipse cx="${cx}" cy="${top + 60}" rx="${headRx * 0.8}" ry="90" fill="url(#fuzz)" clip-path="url(#head)" opacity="0.7"/>
  ${tufts[tuft]}
  <!-- cheeks -->
  <ellipse cx="${cx - eyeDx - 30}" cy="${noseY + 18}" rx="62" ry="44" fill="url(#blush)"/>
  <ellipse cx="${cx + eyeDx + 30}" cy="${noseY + 18}" rx="62" ry="44" fill="url(#blush)"/>
  ${brow(cx - eyeDx, -1)}${brow(cx + eyeDx, 1)}
  ${eye(cx - eyeDx)}${eye(cx + eyeDx)}
  <!-- nose -->
  <ellipse cx="${cx}" cy="${noseY}" rx="20" ry="14" fill="${hex(skinShade)}" opacity="0.55"/>
  <ellipse cx="${cx - 3}" cy="${noseY - 5}" rx="8" ry="5" fill="${hex(skinLight)}" opacity="0.8"/>
  ${mouth}
</svg>`;
}
