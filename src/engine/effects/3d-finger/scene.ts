import sharp from "sharp";

/**
 * The desk scene around the figure, drawn as SVG (rendered by sharp/librsvg): the blurred wall
 * and wooden desk, the retail box's printed panels, and the glossy acrylic display base.
 * Geometry is fixed (the output has one size), so tests can measure where things are.
 */
export const WIDTH = 1536;
export const HEIGHT = 1152;
/** Where the desk's top edge meets the wall. */
export const DESK_TOP = 700;
/** The display base: the ellipse of its top face, and the cylinder's thickness. */
export const BASE = { cx: 540, cy: 968, rx: 250, ry: 58, depth: 30 } as const;
/** The space the figure is fitted into (its bottom sinks into the base's top face). */
export const FIGURE_SLOT = { maxWidth: 480, maxHeight: 700 } as const;
/** The box's front panel, and the window in it that shows the figure's artwork. */
export const BOX = { x: 860, y: 210, width: 520, height: 680, depth: 70 } as const;
export const ART = { x: BOX.x + 50, y: BOX.y + 150, width: BOX.width - 100, height: 420 } as const;

/** Box print colours: [main, dark, accent]. One is picked per request seed. */
export const PALETTES: ReadonlyArray<readonly [string, string, string]> = [
  ["#1d3f8f", "#0e1f4d", "#ffcc1f"],
  ["#b3122e", "#5c0716", "#ffffff"],
  ["#1b1b1f", "#000000", "#e8b339"],
  ["#0f7a6c", "#073d36", "#ffe066"],
];

const escapeXml = (s: string) =>
  s.replace(
    /[<>&'"]/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[c]!,
  );

/** Wall (with window light) and desk, flat shapes; the grain is added by {@link woodGrain}. */
export function backgroundSvg(): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}">
  <defs>
    <linearGradient id="wall" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#cfc6b8"/><stop offset="1" stop-color="#a99f91"/>
    </linearGradient>
    <radialGradient id="window" cx="0.22" cy="0.25" r="0.6">
      <stop offset="0" stop-color="#fff6e4" stop-opacity="0.75"/><stop offset="1" stop-color="#fff6e4" stop-opacity="0"/>
    </radialGradient>
    <linearGradient id="wood" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#7a4a2a"/><stop offset="1" stop-color="#a86d3f"/>
    </linearGradient>
  </defs>
  <rect width="${WIDTH}" height="${DESK_TOP}" fill="url(#wall)"/>
  <rect width="${WIDTH}" height="${DESK_TOP}" fill="url(#window)"/>
  <rect y="${DESK_TOP}" width="${WIDTH}" height="${HEIGHT - DESK_TOP}" fill="url(#wood)"/>
  <rect y="${DESK_TOP}" width="${WIDTH}" height="4" fill="#d39a66" opacity="0.7"/>
</svg>`;
}

/**
 * What is out of focus or soft: a shelf and plant on the wall (depth of field) and the contact
 * shadows of the box and the base on the desk. Drawn sharp; the caller blurs this layer.
 */
export function softSvg(): string {
  const { cx, cy, rx, ry, depth } = BASE;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}">
  <g opacity="0.55">
    <rect x="60" y="250" width="300" height="26" fill="#5b4a3a"/>
    <rect x="90" y="150" width="60" height="100" fill="#3f6b4a"/>
    <ellipse cx="250" cy="190" rx="70" ry="60" fill="#4d7a52"/>
  </g>
  <rect x="${BOX.x - BOX.depth + 20}" y="${BOX.y + BOX.height - 20}" width="${BOX.width + BOX.depth + 40}" height="44" fill="#000" opacity="0.45"/>
  <ellipse cx="${cx + 30}" cy="${cy + depth + 8}" rx="${rx + 30}" ry="${ry + 16}" fill="#000" opacity="0.6"/>
</svg>`;
}

/**
 * Wood grain on the desk rows of an RGB image, in place: long, slightly wavy streaks (sums
 * of sines), darker and lighter along the boards.
 */
function woodGrain(rgb: Buffer): void {
  const [p1, p2, p3, p4] = [0.4, 2.1, 4.0, 1.3];
  for (let y = DESK_TOP + 4; y < HEIGHT; y++) {
    // Perspective: streaks get wider towards the viewer.
    const v = (y - DESK_TOP) ** 0.8;
    for (let x = 0; x < WIDTH; x++) {
      const wave = 3 * Math.sin(x * 0.004 + p1) + 1.5 * Math.sin(x * 0.011 + p2);
      const t = v * 0.55 + wave;
      const grain = 0.6 * Math.sin(t + p3) + 0.3 * Math.sin(t * 2.7 + p4) + 0.1 * Math.sin(t * 7.3);
      const k = 1 + 0.09 * grain;
      const o = (y * WIDTH + x) * 3;
      rgb[o] = Math.min(255, rgb[o]! * k);
      rgb[o + 1] = Math.min(255, rgb[o + 1]! * k);
      rgb[o + 2] = Math.min(255, rgb[o + 2]! * k);
    }
  }
}

/** The retail box: side and top panels for depth, the printed front with logo band and window. */
export function boxSvg(palette: readonly [string, string, string], title: string): string {
  const [main, dark, accent] = palette;
  const { x, y, width, height, depth } = BOX;
  const t = escapeXml(title.toUpperCase());
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}">
  <defs>
    <linearGradient id="front" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="${main}"/><stop offset="1" stop-color="${dark}"/>
    </linearGradient>
    <linearGradient id="art" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#fdfdfd"/><stop offset="1" stop-color="#d9dde6"/>
    </linearGradient>
  </defs>
  <polygon points="${x},${y} ${x - depth},${y + depth * 0.45} ${x - depth},${y + height - 8} ${x},${y + height}" fill="${dark}"/>
  <polygon points="${x},${y} ${x + width},${y} ${x + width - depth},${y + depth * 0.45} ${x - depth},${y + depth * 0.45}" fill="${main}" opacity="0.85"/>
  <rect x="${x}" y="${y}" width="${width}" height="${height}" fill="url(#front)"/>
  <rect x="${x}" y="${y + 24}" width="${width}" height="92" fill="${accent}"/>
  <text x="${x + 28}" y="${y + 86}" font-family="DejaVu Sans" font-weight="bold" font-style="italic" font-size="50" fill="${dark}">FIGURE</text>
  <text x="${x + width - 28}" y="${y + 64}" text-anchor="end" font-family="DejaVu Sans" font-weight="bold" font-size="26" fill="${dark}">1/7</text>
  <text x="${x + width - 28}" y="${y + 94}" text-anchor="end" font-family="DejaVu Sans" font-size="18" fill="${dark}">SCALE</text>
  <rect x="${ART.x - 6}" y="${ART.y - 6}" width="${ART.width + 12}" height="${ART.height + 12}" rx="16" fill="${accent}"/>
  <rect x="${ART.x}" y="${ART.y}" width="${ART.width}" height="${ART.height}" rx="12" fill="url(#art)"/>
  <text x="${x + width / 2}" y="${ART.y + ART.height + 52}" text-anchor="middle" font-family="DejaVu Sans" font-weight="bold" font-size="30" fill="#fff">${t}</text>
  <text x="${x + width / 2}" y="${ART.y + ART.height + 84}" text-anchor="middle" font-family="DejaVu Sans" font-size="17" fill="${accent}" letter-spacing="3">PREMIUM COLLECTIBLE FIGURE</text>
</svg>`;
}

/** The window's clear plastic: a sheen laid over the printed artwork. */
export function windowSheenSvg(): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}">
  <defs><linearGradient id="s" x1="0" y1="0" x2="1" y2="0.4">
    <stop offset="0.2" stop-color="#fff" stop-opacity="0"/><stop offset="0.35" stop-color="#fff" stop-opacity="0.22"/>
    <stop offset="0.5" stop-color="#fff" stop-opacity="0"/></linearGradient></defs>
  <rect x="${ART.x}" y="${ART.y}" width="${ART.width}" height="${ART.height}" rx="12" fill="url(#s)"/>
</svg>`;
}

/** The glossy black acrylic base: cylinder side, top face, rim highlights. */
export function baseSvg(): string {
  const { cx, cy, rx, ry, depth } = BASE;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}">
  <defs>
    <linearGradient id="side" x1="0" y1="0" x2="1" y2="0">
      <stop offset="0" stop-color="#050506"/><stop offset="0.3" stop-color="#3a3a40"/>
      <stop offset="0.45" stop-color="#101012"/><stop offset="1" stop-color="#020203"/>
    </linearGradient>
    <radialGradient id="top" cx="0.4" cy="0.35" r="0.7">
      <stop offset="0" stop-color="#2c2c33"/><stop offset="1" stop-color="#060608"/>
    </radialGradient>
    <filter id="glow"><feGaussianBlur stdDeviation="3"/></filter>
  </defs>
  <path d="M ${cx - rx} ${cy} L ${cx - rx} ${cy + depth} A ${rx} ${ry} 0 0 0 ${cx + rx} ${cy + depth} L ${cx + rx} ${cy} Z" fill="url(#side)"/>
  <ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}" fill="url(#top)"/>
  <path d="M ${cx - rx * 0.8} ${cy - ry * 0.6} A ${rx} ${ry} 0 0 1 ${cx + rx * 0.3} ${cy - ry * 0.98}" stroke="#fff" stroke-opacity="0.55" stroke-width="3" fill="none" filter="url(#glow)"/>
  <path d="M ${cx - rx} ${cy + 1} A ${rx} ${ry} 0 0 0 ${cx + rx} ${cy + 1}" stroke="#9a9aa6" stroke-opacity="0.6" stroke-width="2" fill="none"/>
</svg>`;
}

const backdrops = new Map<number, Promise<Buffer>>();

/**
 * Everything but the figure and its artwork, as raw RGB at the output size: wall, desk,
 * soft shadows, the box in the given palette, the display base. It depends on the palette
 * only, so each is rendered once per process and reused (SVG rendering is the slow part).
 */
export function backdrop(paletteIndex: number): Promise<Buffer> {
  let cached = backdrops.get(paletteIndex);
  if (!cached) {
    cached = (async () => {
      const svg = (s: string) => Buffer.from(s);
      const background = await sharp(svg(backgroundSvg())).removeAlpha().raw().toBuffer();
      woodGrain(background);
      const soft = await sharp(svg(softSvg())).blur(22).png().toBuffer();
      return sharp(background, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
        .composite([
          { input: soft, left: 0, top: 0 },
          { input: svg(boxSvg(PALETTES[paletteIndex]!, "COLLECTOR'S EDITION")), left: 0, top: 0 },
          { input: svg(baseSvg()), left: 0, top: 0 },
        ])
        .removeAlpha()
        .raw()
        .toBuffer();
    })();
    backdrops.set(paletteIndex, cached);
  }
  return cached;
}
