import { personMatte } from "../../vision/human";
import { encodePng, transformRaw, type EffectOutput, type RawImage } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import { babyShape, centroid, dist, FACE_OVAL, LEFT_EYE, MARKS, RIGHT_EYE } from "./baby-shape";
import type { Pt } from "../../shared/warp/delaunay";
import { inspect, type Parent } from "./rules";
import { smoothSkin } from "./skin";
import { applySim, fitSimilarity, invertSim, warpPiecewise, type WarpSource } from "../../shared/warp/warp";

/**
 * Baby face generator: two parents' faces (two photos, or one photo of the couple) are
 * aligned on their meshes, morphed into one face (mean shape, cross-dissolved texture), given
 * baby proportions and smoother skin, and framed as a square portrait on a soft background.
 */
export const OUTPUT = 768;
/** Where the aligned eyes sit in the output (fractions of its side). */
const EYES = { y: 0.46, halfGap: 0.12 } as const;
/** Face width in source pixels that the warp samples from (close to its width in the output). */
const SOURCE_FACE_WIDTH = 420;
const BACKGROUND: readonly [number, number, number] = [238, 228, 220];

/** The source shrunk (or enlarged) so the face is about as wide as it will be drawn, with its matte. */
async function prepare(p: Parent): Promise<{ image: RawImage; mesh: Pt[] }> {
  const mesh0 = p.face.mesh.map(([x, y]): Pt => [x, y]);
  const k = Math.min(1.5, SOURCE_FACE_WIDTH / dist(mesh0[MARKS.face[0]]!, mesh0[MARKS.face[1]]!));
  const width = Math.max(1, Math.round(p.image.width * k));
  const height = Math.max(1, Math.round(p.image.height * k));
  const rgb = await transformRaw(p.image, (img) => img.resize(width, height, { kernel: "lanczos3" }));
  const { alpha } = await personMatte(rgb);
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    data[i * 4] = rgb.data[i * 3]!;
    data[i * 4 + 1] = rgb.data[i * 3 + 1]!;
    data[i * 4 + 2] = rgb.data[i * 3 + 2]!;
    data[i * 4 + 3] = alpha[i]!;
  }
  const sx = width / p.image.width;
  const sy = height / p.image.height;
  return { image: { data, width, height, channels: 4 }, mesh: mesh0.map(([x, y]) => [x * sx, y * sy]) };
}

/** Points around the face oval, pushed out from its centre: they carry the hair and neck along. */
function ring(shape: readonly Pt[], by: number): Pt[] {
  const c = centroid(shape, FACE_OVAL);
  return FACE_OVAL.map((i) => [c[0] + (shape[i]![0] - c[0]) * by, c[1] + (shape[i]![1] - c[1]) * by]);
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const found = await inspect(req);
  const sources = await Promise.all(found.map(prepare));

  // 1. Align: the first face's eyes onto the template, the second face onto the first (all points).
  const eyesOf = (m: Pt[]) => [centroid(m, RIGHT_EYE), centroid(m, LEFT_EYE)];
  const template: Pt[] = [
    [OUTPUT * (0.5 - EYES.halfGap), OUTPUT * EYES.y],
    [OUTPUT * (0.5 + EYES.halfGap), OUTPUT * EYES.y],
  ];
  const simA = fitSimilarity(eyesOf(sources[0]!.mesh), template);
  const alignedA = sources[0]!.mesh.map((p) => applySim(simA, p));
  const simB = fitSimilarity(sources[1]!.mesh, alignedA);
  const sims = [simA, simB];
  const aligned = [alignedA, sources[1]!.mesh.map((p) => applySim(simB, p))];

  // 2. Mean shape, then baby proportions.
  const mean: Pt[] = alignedA.map(([x, y], i) => [
    (x + aligned[1]![i]![0]) / 2,
    (y + aligned[1]![i]![1]) / 2,
  ]);
  const baby = babyShape(mean);

  // 3. Warp both faces onto the baby shape; two rings around the face and the frame's border
  //    carry the surroundings along smoothly.
  const border: Pt[] = [];
  for (let k = 0; k <= 4; k++) {
    const t = (OUTPUT * k) / 4;
    border.push([t, 0], [t, OUTPUT]);
    if (k > 0 && k < 4) border.push([0, t], [OUTPUT, t]);
  }
  const target = [...baby, ...ring(baby, 1.25), ...ring(baby, 1.6), ...border];
  const warpSources: WarpSource[] = sources.map((s, k) => {
    const back = invertSim(sims[k]!);
    const own = aligned[k]!;
    return {
      image: s.image,
      points: [
        ...s.mesh,
        ...[...ring(own, 1.25), ...ring(own, 1.6), ...border].map((p) => applySim(back, p)),
      ],
    };
  });
  const [wa, wb] = warpPiecewise(target, warpSources, OUTPUT, OUTPUT);

  // 4. Cross-dissolve the two faces. Only the head is kept (where both mattes agree, inside an
  //    oval from the crown to just below the chin): adult hair lengths and clothes would not
  //    suit a baby. It fades into a soft nursery background, like an old vignetted portrait.
  const w = dist(baby[MARKS.face[0]]!, baby[MARKS.face[1]]!);
  const top = baby[10]![1] - 0.3 * w;
  const bottom = baby[152]![1] + 0.2 * w;
  const head = { x: (baby[MARKS.face[0]]![0] + baby[MARKS.face[1]]![0]) / 2, y: (top + bottom) / 2 };
  const radii = { x: 0.66 * w, y: (bottom - top) / 2 };
  const rgb = Buffer.alloc(OUTPUT * OUTPUT * 3);
  for (let i = 0; i < OUTPUT * OUTPUT; i++) {
    const x = i % OUTPUT;
    const y = (i - x) / OUTPUT;
    const r = Math.hypot((x - head.x) / radii.x, (y - head.y) / radii.y);
    const oval = Math.max(0, Math.min(1, (1.06 - r) / 0.2));
    const a = (Math.min(wa!.data[i * 4 + 3]!, wb!.data[i * 4 + 3]!) / 255) * oval;
    const shade = 1 - 0.1 * Math.min(1, Math.hypot(x / OUTPUT - 0.5, y / OUTPUT - 0.45) * 1.6);
    for (let c = 0; c < 3; c++) {
      const face = (wa!.data[i * 4 + c]! + wb!.data[i * 4 + c]!) / 2;
      rgb[i * 3 + c] = Math.round(face * a + BACKGROUND[c]! * shade * (1 - a));
    }
  }
  const smooth = await smoothSkin({ data: rgb, width: OUTPUT, height: OUTPUT, channels: 3 }, baby);
  return encodePng(smooth);
}
