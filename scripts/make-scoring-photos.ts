/**
 * Makes the scoring set's new photos (tests/fixtures/photos, credited in
 * tests/fixtures/SOURCES.md): three public-domain/CC0 photos taken from Debian packages,
 * and seven derived from those and the existing fixtures (sepia toning, a torn and
 * scratched print, watermarks in other fonts, colours, sizes and positions, a logo).
 * Everything random is seeded, so a run writes the same files.
 *
 *   apt-get update
 *   apt-get install -y fonts-liberation2 fonts-comic-neue fonts-freefont-ttf
 *   mkdir -p /tmp/debs && cd /tmp/debs
 *   apt-get download python-matplotlib-data python3-skimage python3-scipy
 *   for f in *.deb; do dpkg -x "$f" x; done
 *   DEBS=/tmp/debs/x node --import tsx scripts/make-scoring-photos.ts
 *
 * (bookworm: python-matplotlib-data 3.6.3-1, python3-skimage 0.19.3-8, python3-scipy 1.10.1-2)
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import sharp, { type Sharp } from "sharp";

const PHOTOS = path.resolve(__dirname, "../tests/fixtures/photos");
const DEBS = process.env.DEBS ?? "/tmp/debs/x";
const FONTS = ["Liberation Serif", "Comic Neue", "FreeMono", "Liberation Sans"];

/** mulberry32: a small seeded PRNG. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const jpeg = (img: Sharp, name: string, quality = 88) =>
  img
    .jpeg({ quality, mozjpeg: false })
    .toFile(path.join(PHOTOS, name))
    .then((i) =>
      console.log(`${name}: ${i.width}x${i.height}, ${fs.statSync(path.join(PHOTOS, name)).size} B`),
    );

/** Greyscale, then mapped from a dark brown to a faded paper tone (a toned, faded print). */
async function sepia(input: Buffer | string, width: number, fade: number) {
  const { data, info } = await sharp(input)
    .resize({ width, withoutEnlargement: true })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const dark = [58, 36, 18];
  const light = [236, 214, 172];
  const out = Buffer.alloc(info.width * info.height * 3);
  for (let i = 0; i < info.width * info.height; i++) {
    const v = fade + (1 - 2 * fade) * (data[i * info.channels]! / 255);
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(dark[c]! + (light[c]! - dark[c]!) * v);
  }
  return { raw: out, width: info.width, height: info.height };
}

/** Seeded damage: a torn corner, a crease, scratches and dust, as an SVG overlay. */
function damageSvg(w: number, h: number, seed: number) {
  const r = rng(seed);
  const parts: string[] = [];
  // Torn top-right corner: a jagged edge, the paper behind shows white.
  const tear: string[] = [`${w},0`];
  const steps = 18;
  for (let i = 0; i <= steps; i++) {
    const t = i / steps;
    const x = w - w * 0.34 * (1 - t) + (r() - 0.5) * 14;
    const y = h * 0.42 * t + (r() - 0.5) * 14;
    tear.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  }
  parts.push(`<polygon points="${tear.join(" ")}" fill="#f4f1ea"/>`);
  parts.push(`<polyline points="${tear.slice(1).join(" ")}" fill="none" stroke="#fffdf6" stroke-width="3"/>`);
  // A crease across the lower third.
  const cy = h * (0.62 + r() * 0.1);
  parts.push(
    `<path d="M0 ${cy.toFixed(1)} Q ${w / 2} ${(cy + (r() - 0.5) * 60).toFixed(1)} ${w} ${(cy + (r() - 0.5) * 40).toFixed(1)}" stroke="#f6efe0" stroke-opacity="0.7" stroke-width="4" fill="none"/>`,
  );
  // Scratches: thin, long, nearly vertical, light.
  for (let i = 0; i < 14; i++) {
    const x = r() * w;
    const y = r() * h * 0.6;
    const len = h * (0.15 + r() * 0.5);
    const dx = (r() - 0.5) * 80;
    parts.push(
      `<path d="M${x.toFixed(1)} ${y.toFixed(1)} q ${(dx / 2 + (r() - 0.5) * 20).toFixed(1)} ${(len / 2).toFixed(1)} ${dx.toFixed(1)} ${len.toFixed(1)}" stroke="#fbf6ea" stroke-opacity="${(0.45 + r() * 0.4).toFixed(2)}" stroke-width="${(0.8 + r() * 1.6).toFixed(1)}" fill="none"/>`,
    );
  }
  // Dust: specks, dark and light.
  for (let i = 0; i < 260; i++) {
    const light = r() < 0.55;
    parts.push(
      `<circle cx="${(r() * w).toFixed(1)}" cy="${(r() * h).toFixed(1)}" r="${(0.6 + r() * r() * 4).toFixed(1)}" fill="${light ? "#fffaf0" : "#1c140c"}" fill-opacity="${(0.5 + r() * 0.5).toFixed(2)}"/>`,
    );
  }
  // A water stain.
  parts.push(
    `<ellipse cx="${(w * 0.2).toFixed(0)}" cy="${(h * 0.8).toFixed(0)}" rx="${(w * 0.12).toFixed(0)}" ry="${(h * 0.09).toFixed(0)}" fill="none" stroke="#6b4a22" stroke-opacity="0.35" stroke-width="6"/>`,
  );
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${parts.join("")}</svg>`,
  );
}

const svg = (w: number, h: number, body: string) =>
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${body}</svg>`);

async function main() {
  const missing = FONTS.filter((f) => !execFileSync("fc-list", [f]).toString().trim());
  if (missing.length)
    throw new Error(`install the Debian font packages first (missing: ${missing.join(", ")})`);
  const hopper = path.join(DEBS, "usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg");
  const camera = path.join(DEBS, "usr/lib/python3/dist-packages/skimage/data/camera.png");
  const face = path.join(DEBS, "usr/lib/python3/dist-packages/scipy/misc/face.dat");
  for (const f of [hopper, camera, face])
    if (!fs.existsSync(f)) throw new Error(`missing ${f} (see the header)`);

  // 1. Public-domain / CC0 photos from Debian packages.
  fs.copyFileSync(hopper, path.join(PHOTOS, "portrait-female-4-hopper-navy.jpg"));
  console.log("portrait-female-4-hopper-navy.jpg: copied");
  await jpeg(sharp(camera), "person-1-cameraman-bw.jpg", 90);
  // scipy's face.dat: bz2-compressed raw RGB, 1024x768.
  const raw = execFileSync("bzip2", ["-dc", face], { maxBuffer: 1 << 24 });
  await jpeg(sharp(raw, { raw: { width: 1024, height: 768, channels: 3 } }), "pet-2-raccoon.jpg", 88);

  // 2. Toned and damaged old photos.
  const mother = await sepia(path.join(PHOTOS, "old-bw-1-migrant-mother-1936.jpg"), 788, 0.1);
  await jpeg(
    sharp(mother.raw, { raw: { width: mother.width, height: mother.height, channels: 3 } }),
    "old-toned-1-sepia-migrant-mother.jpg",
  );
  const kids = await sepia(path.join(PHOTOS, "child-1-three-children-1860s.jpg"), 1100, 0.16);
  const kidsImg = await sharp(kids.raw, { raw: { width: kids.width, height: kids.height, channels: 3 } })
    .png()
    .toBuffer();
  await jpeg(
    sharp(kidsImg).composite([{ input: damageSvg(kids.width, kids.height, 1401) }]),
    "old-torn-1-sepia-three-children.jpg",
  );

  // 3. Watermarks the engine was not tuned on (fonts from Debian font packages).
  // 5: red serif italic credit, small, bottom left, slightly rotated, on a small photo.
  await jpeg(
    sharp(path.join(PHOTOS, "object-coffee.png")).composite([
      {
        input: svg(
          600,
          400,
          `<text x="30" y="370" transform="rotate(-6 30 370)" font-family="Liberation Serif" font-style="italic" font-weight="bold" font-size="34" fill="#d0201a" fill-opacity="0.6">© Kaffeehaus Fotografie</text>`,
        ),
      },
    ]),
    "watermark-5-serif-red-coffee.jpg",
    90,
  );
  // 6: black monospace "PROOF" text, two lines across the face, 35 % opacity.
  await jpeg(
    sharp(hopper).composite([
      {
        input: svg(
          512,
          600,
          `<g font-family="FreeMono" font-weight="bold" fill="#000" fill-opacity="0.35" transform="rotate(-20 256 300)"><text x="256" y="250" font-size="64" text-anchor="middle">PROOF</text><text x="256" y="330" font-size="30" text-anchor="middle">NOT FOR RESALE</text></g>`,
        ),
      },
    ]),
    "watermark-6-mono-proof-portrait.jpg",
    90,
  );
  // 7: a blue logo (a camera-aperture disc with letters) and a Comic Neue name, top left, 50 %.
  await jpeg(
    sharp(path.join(PHOTOS, "landscape-1-meadow-cc0.jpg"))
      .resize(1200)
      .composite([
        {
          input: svg(
            1200,
            675,
            `<g fill-opacity="0.5" stroke-opacity="0.5"><circle cx="110" cy="100" r="62" fill="none" stroke="#1e5bd8" stroke-width="12"/><path d="M110 50 L150 120 L70 120 Z" fill="#1e5bd8"/><text x="190" y="118" font-family="Comic Neue" font-weight="bold" font-size="54" fill="#1e5bd8">sunnyshots</text></g>`,
          ),
        },
      ]),
    "watermark-7-logo-blue-landscape.jpg",
    88,
  );
  // 8: a social-media handle, small white sans at 70 % with a soft shadow, bottom right.
  await jpeg(
    sharp(raw, { raw: { width: 1024, height: 768, channels: 3 } }).composite([
      {
        input: svg(
          1024,
          768,
          `<g font-family="Liberation Sans" font-weight="bold" font-size="30" text-anchor="end"><text x="992" y="738" fill="#000" fill-opacity="0.3">@wild.raccoon.pics</text><text x="990" y="736" fill="#fff" fill-opacity="0.7">@wild.raccoon.pics</text></g>`,
        ),
      },
    ]),
    "watermark-8-handle-raccoon.jpg",
    88,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
