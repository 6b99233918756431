import type { Body, Face } from "./human";

/**
 * Could this person be a minor? Human's age model alone misjudges children (on the
 * fixtures it calls a child 36 and finds no age at all for another), so three signals are
 * read and any one of them is enough to say "maybe":
 *
 * 1. Face proportions from the mesh: mouth width plus nose width, over the distance between
 *    the eye centres. Children's mouths and noses are small next to their eyes (fixtures:
 *    children 1.29-1.38, adults 1.34-1.70; the two adults below the line are refused too).
 * 2. Head to shoulders: face width over shoulder width, when both shoulders are found with
 *    confidence. A child's head is large for its shoulders (children 0.66-0.78, adults
 *    0.36-0.55).
 * 3. Human's age estimate (faceres), when it gives one.
 *
 * The thresholds were set on the fixture photos (docs/ENGINE.md lists every face) and lean
 * towards refusing: an adult refused can use another photo; a child edited cannot be undone.
 */
export const MIN_PROPORTION = 1.42;
export const MAX_HEAD_TO_SHOULDER = 0.6;
export const MIN_MODEL_AGE = 20;
/** Shoulder keypoints below this confidence are not used. */
export const MIN_SHOULDER_SCORE = 0.3;

export interface MinorSignals {
  proportion: number;
  headToShoulder: number | null;
  modelAge: number | null;
  /** Which signals said "maybe a minor". */
  flags: Array<"proportion" | "headToShoulder" | "modelAge">;
  mayBeMinor: boolean;
}

const dist = (a: readonly number[], b: readonly number[]) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!);
const mid = (a: readonly number[], b: readonly number[]) => [(a[0]! + b[0]!) / 2, (a[1]! + b[1]!) / 2];

/** The shoulders of a body, when both are found with confidence. */
export function shoulders(
  body: Body | undefined,
): { left: [number, number]; right: [number, number] } | null {
  const find = (part: string) =>
    body?.keypoints.find((k) => k.part === part && k.score >= MIN_SHOULDER_SCORE) ?? null;
  const l = find("leftShoulder");
  const r = find("rightShoulder");
  return l && r ? { left: [l.x, l.y], right: [r.x, r.y] } : null;
}

/**
 * The mouth's and the nose's widths over the distance between the eyes' centres, on the mesh
 * (MediaPipe FaceMesh: eye corners 33/133 and 362/263, mouth corners 61/291, nose wings
 * 129/358): a child's mouth and nose are small next to its eyes.
 */
export function meshProportion(face: Face): number {
  const m = face.mesh;
  const eyes = dist(mid(m[33]!, m[133]!), mid(m[362]!, m[263]!));
  return (dist(m[61]!, m[291]!) + dist(m[129]!, m[358]!)) / eyes;
}

export function minorSignals(face: Face, body?: Body): MinorSignals {
  const m = face.mesh;
  // Cheek extremes 234/454 (the proportion's indices: meshProportion).
  const proportion = meshProportion(face);
  const sh = shoulders(body);
  const headToShoulder = sh ? dist(m[234]!, m[454]!) / dist(sh.left, sh.right) : null;
  const modelAge = face.age ?? null;
  const flags: MinorSignals["flags"] = [];
  if (proportion < MIN_PROPORTION) flags.push("proportion");
  if (headToShoulder !== null && headToShoulder > MAX_HEAD_TO_SHOULDER) flags.push("headToShoulder");
  if (modelAge !== null && modelAge < MIN_MODEL_AGE) flags.push("modelAge");
  return { proportion, headToShoulder, modelAge, flags, mayBeMinor: flags.length > 0 };
}
