import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { EngineError } from "@/core/ports/renderer";
import { ProviderCodes } from "../codes";

/**
 * ComfyUI workflows in API format ("Export (API)" in ComfyUI: an object of nodes keyed by
 * id, each `{class_type, inputs}`, a link being `[nodeId, outputIndex]`), with our
 * placeholders in their string values:
 *
 * - `{{image1}}`, `{{image2}}`, …: the uploaded input images (as LoadImage wants them)
 * - `{{prompt}}`: the effect's hosted instruction
 * - `{{seed}}`, `{{width}}`, `{{height}}`: numbers (a value that is exactly the placeholder
 *   becomes a JSON number; inside a longer string it is written as text)
 * - `{{output_prefix}}`: SaveImage's filename_prefix, a per-task random subfolder
 *
 * Filling is strict: a placeholder we do not know, or an input image the workflow has no
 * slot for, is an error rather than a silently wrong render.
 */

export interface WorkflowNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string };
}
export type ApiWorkflow = Record<string, WorkflowNode>;

export interface WorkflowValues {
  /** LoadImage values of the inputs, in order. */
  images: string[];
  prompt: string;
  seed: number;
  width: number;
  height: number;
  outputPrefix: string;
}

export interface LoadedWorkflow {
  workflow: ApiWorkflow;
  /** "builtin" or "operator" (a file in workflowsDir). */
  source: "builtin" | "operator";
  /** File name, for logs. */
  file: string;
}

/**
 * Our built-in workflows by number of input images: none is text-to-image (Qwen-Image), one
 * to three an instruction edit (Qwen-Image-Edit-2509 takes at most three images).
 */
export const BUILTIN_WORKFLOWS: Readonly<Record<number, string>> = {
  0: "qwen-image.text-to-image.json",
  1: "qwen-image-edit-2509.1-image.json",
  2: "qwen-image-edit-2509.2-images.json",
  3: "qwen-image-edit-2509.3-images.json",
};
/** The most input images a built-in workflow takes. */
export const MAX_BUILTIN_IMAGES = 3;
export const BUILTIN_DIR = path.join(import.meta.dirname, "workflows");

const NOT_SET_UP = "This effect is not set up correctly on the image server. Please try another effect.";

/** An unusable workflow (the operator's or ours): a configuration problem, not the photo's. */
export class WorkflowError extends EngineError {
  constructor(readonly detail: string) {
    super(NOT_SET_UP, false, ProviderCodes.unavailable);
    this.name = "WorkflowError";
  }
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z0-9_]+)\s*\}\}$/;
const SAFE_EFFECT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Whether the operator put a workflow for the effect in workflowsDir (read on every call, as loadWorkflow does). */
export function hasOperatorWorkflow(effectId: string, workflowsDir?: string): boolean {
  return (
    !!workflowsDir && SAFE_EFFECT_ID.test(effectId) && existsSync(path.join(workflowsDir, `${effectId}.json`))
  );
}

/**
 * The workflow for an effect: `<workflowsDir>/<effect-id>.json` if the operator put one
 * there, else ours for the number of input images. Read on every render, so an operator can
 * edit a workflow without a restart. Checked before anything is uploaded.
 */
export async function loadWorkflow(
  effectId: string,
  imageCount: number,
  workflowsDir?: string,
): Promise<LoadedWorkflow> {
  let loaded: LoadedWorkflow | undefined;
  if (workflowsDir && SAFE_EFFECT_ID.test(effectId)) {
    const file = path.join(workflowsDir, `${effectId}.json`);
    const text = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return undefined;
      throw new WorkflowError(`cannot read ${file}: ${err.message}`);
    });
    if (text !== undefined) loaded = { workflow: parseWorkflow(text, file), source: "operator", file };
  }
  if (!loaded) {
    const name = BUILTIN_WORKFLOWS[imageCount];
    if (!name) throw new WorkflowError(`no built-in workflow takes ${imageCount} images`);
    const file = path.join(BUILTIN_DIR, name);
    loaded = { workflow: parseWorkflow(await readFile(file, "utf8"), file), source: "builtin", file: name };
  }
  checkLinks(loaded.workflow, loaded.file);
  checkPlaceholders(loaded.workflow, imageCount, loaded.file);
  return loaded;
}

/** Parses and shape-checks an API-format workflow. */
export function parseWorkflow(text: string, file = "workflow"): ApiWorkflow {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new WorkflowError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    throw new WorkflowError(`${file} is not a JSON object`);
  }
  if ("nodes" in data && "links" in data) {
    throw new WorkflowError(`${file} is in ComfyUI's UI format; save it with "Export (API)" instead`);
  }
  const entries = Object.entries(data as Record<string, unknown>);
  if (entries.length === 0) throw new WorkflowError(`${file} has no nodes`);
  for (const [id, node] of entries) {
    const n = node as Partial<WorkflowNode> | null;
    if (
      !n ||
      typeof n !== "object" ||
      typeof n.class_type !== "string" ||
      !n.inputs ||
      typeof n.inputs !== "object"
    ) {
      throw new WorkflowError(`${file}: node "${id}" needs a class_type and an inputs object`);
    }
  }
  return data as ApiWorkflow;
}

/** Whether a value is a link `[nodeId, outputIndex]`. */
export function isLink(value: unknown): value is [string, number] {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === "string" &&
    typeof value[1] === "number" &&
    Number.isInteger(value[1])
  );
}

/** Every link points at a node of the workflow. */
export function checkLinks(workflow: ApiWorkflow, file = "workflow"): void {
  for (const [id, node] of Object.entries(workflow)) {
    for (const [input, value] of Object.entries(node.inputs)) {
      if (isLink(value) && !(value[0] in workflow)) {
        throw new WorkflowError(`${file}: node "${id}" input "${input}" links to missing node "${value[0]}"`);
      }
    }
  }
}

/** The placeholder names used in a workflow's string values. */
export function placeholdersOf(workflow: ApiWorkflow): Set<string> {
  const found = new Set<string>();
  walkStrings(workflow, (s) => {
    for (const m of s.matchAll(PLACEHOLDER)) found.add(m[1]!);
  });
  return found;
}

/** Placeholder names a request with `imageCount` images fills. */
export function knownPlaceholders(imageCount: number): Set<string> {
  const names = ["prompt", "seed", "width", "height", "output_prefix"];
  for (let i = 1; i <= imageCount; i++) names.push(`image${i}`);
  return new Set(names);
}

/**
 * The workflow uses only placeholders we fill, and has a slot for every input image
 * (an image with nowhere to go would be dropped silently: a baby with one parent).
 */
export function checkPlaceholders(workflow: ApiWorkflow, imageCount: number, file = "workflow"): void {
  const used = placeholdersOf(workflow);
  const known = knownPlaceholders(imageCount);
  const unknown = [...used].filter((p) => !known.has(p));
  if (unknown.length) {
    throw new WorkflowError(
      `${file}: placeholders nothing fills: ${unknown.map((u) => `{{${u}}}`).join(", ")}`,
    );
  }
  for (let i = 1; i <= imageCount; i++) {
    if (!used.has(`image${i}`)) {
      throw new WorkflowError(`${file} has no {{image${i}}} slot for input image ${i} of ${imageCount}`);
    }
  }
}

/**
 * A copy of the workflow with every placeholder replaced. Substitution is one pass over
 * the template, so text we insert (a prompt that happens to contain "{{seed}}") is never
 * read as a placeholder itself. Throws WorkflowError if a placeholder has no value.
 */
export function fillWorkflow(workflow: ApiWorkflow, values: WorkflowValues): ApiWorkflow {
  const map = new Map<string, string | number>([
    ["prompt", values.prompt],
    ["seed", values.seed],
    ["width", values.width],
    ["height", values.height],
    ["output_prefix", values.outputPrefix],
  ]);
  values.images.forEach((name, i) => map.set(`image${i + 1}`, name));
  const lookup = (name: string): string | number => {
    const v = map.get(name);
    if (v === undefined) throw new WorkflowError(`placeholder {{${name}}} has no value`);
    return v;
  };
  const fill = (value: unknown): unknown => {
    if (typeof value === "string") {
      const whole = WHOLE.exec(value);
      if (whole) return lookup(whole[1]!);
      return value.replace(PLACEHOLDER, (_, name: string) => String(lookup(name)));
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    }
    return value;
  };
  return fill(workflow) as ApiWorkflow;
}

function walkStrings(value: unknown, visit: (s: string) => void): void {
  if (typeof value === "string") visit(value);
  else if (Array.isArray(value)) value.forEach((v) => walkStrings(v, visit));
  else if (value && typeof value === "object") Object.values(value).forEach((v) => walkStrings(v, visit));
}

/**
 * The latent size for an output: about `megapixels` million pixels in the effect's aspect
 * ratio (or the first input's shape when it has none), both sides multiples of 16 (what
 * EmptySD3LatentImage steps by and Qwen-Image's patches need).
 */
export function outputSize(
  aspectRatio: string | undefined,
  input: { width: number; height: number } | undefined,
  megapixels = 1,
): { width: number; height: number } {
  let ratio = 1;
  const m = aspectRatio ? /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(aspectRatio) : null;
  if (m) ratio = Number(m[1]) / Number(m[2]);
  else if (input && input.width > 0 && input.height > 0) ratio = input.width / input.height;
  const total = megapixels * 1024 * 1024;
  const round16 = (v: number) => Math.max(256, Math.round(v / 16) * 16);
  const width = Math.sqrt(total * ratio);
  return { width: round16(width), height: round16(width / ratio) };
}
