import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { STOCK_NODES } from "./stock-nodes";
import {
  BUILTIN_DIR,
  BUILTIN_WORKFLOWS,
  checkLinks,
  checkPlaceholders,
  fillWorkflow,
  isLink,
  loadWorkflow,
  outputSize,
  parseWorkflow,
  placeholdersOf,
  WorkflowError,
  type ApiWorkflow,
} from "./workflow";

const builtins = readdirSync(BUILTIN_DIR).filter((f) => f.endsWith(".json"));
const read = (file: string): ApiWorkflow =>
  parseWorkflow(readFileSync(path.join(BUILTIN_DIR, file), "utf8"), file);
const imageCountOf = (file: string): number =>
  Number(Object.entries(BUILTIN_WORKFLOWS).find(([, f]) => f === file)?.[0]);

const values = (images: number) => ({
  images: Array.from({ length: images }, (_, i) => `photofx/abc/in${i + 1}.png`),
  prompt: "Make it {{seed}} blue",
  seed: 1234,
  width: 1024,
  height: 1024,
  outputPrefix: "photofx/abc/out",
});

describe("built-in ComfyUI workflows", () => {
  it("are the ones the provider picks from, one per image count (none: text-to-image)", () => {
    expect(builtins.sort()).toEqual(Object.values(BUILTIN_WORKFLOWS).sort());
    expect(Object.keys(BUILTIN_WORKFLOWS).map(Number)).toEqual([0, 1, 2, 3]);
  });

  for (const file of builtins) {
    describe(file, () => {
      const wf = read(file);

      it("uses only stock node classes, with their real input names", () => {
        for (const [id, node] of Object.entries(wf)) {
          const stock = STOCK_NODES[node.class_type];
          expect(stock, `node ${id}: ${node.class_type}`).toBeDefined();
          const allowed = new Set([...stock!.required, ...stock!.optional]);
          for (const input of Object.keys(node.inputs))
            expect(allowed, `${node.class_type}.${input}`).toContain(input);
          for (const input of stock!.required)
            expect(node.inputs, `${node.class_type}.${input}`).toHaveProperty(input);
        }
      });

      it("links only to existing nodes and outputs", () => {
        expect(() => checkLinks(wf, file)).not.toThrow();
        for (const node of Object.values(wf)) {
          for (const value of Object.values(node.inputs)) {
            if (!isLink(value)) continue;
            const target = wf[value[0]]!;
            expect(value[1]).toBeLessThan(STOCK_NODES[target.class_type]!.outputs);
          }
        }
      });

      it("has exactly the placeholders we fill, and every one gets filled", () => {
        const n = imageCountOf(file);
        const expected = ["prompt", "seed", "width", "height", "output_prefix"];
        for (let i = 1; i <= n; i++) expected.push(`image${i}`);
        expect([...placeholdersOf(wf)].sort()).toEqual(expected.sort());
        expect(() => checkPlaceholders(wf, n, file)).not.toThrow();
        const filled = fillWorkflow(wf, values(n));
        expect(JSON.stringify(filled)).not.toMatch(/\{\{(?!seed\}\} blue)/);
        const sampler = Object.values(filled).find((x) => x.class_type === "KSampler")!;
        expect(sampler.inputs.seed).toBe(1234);
        const latent = Object.values(filled).find((x) => x.class_type === "EmptySD3LatentImage")!;
        expect(latent.inputs).toMatchObject({ width: 1024, height: 1024 });
        const save = Object.values(filled).find((x) => x.class_type === "SaveImage")!;
        expect(save.inputs.filename_prefix).toBe("photofx/abc/out");
        const loads = Object.values(filled).filter((x) => x.class_type === "LoadImage");
        expect(loads.map((l) => l.inputs.image)).toEqual(values(n).images);
      });

      it("feeds every input image to the Qwen edit encoder (text-to-image: a plain text encoder)", () => {
        const n = imageCountOf(file);
        if (n === 0) {
          // Qwen-Image from text alone: no image anywhere, the description through CLIPTextEncode.
          expect(Object.values(wf).some((x) => x.class_type === "LoadImage")).toBe(false);
          const texts = Object.values(wf).filter((x) => x.class_type === "CLIPTextEncode");
          expect(texts.map((t) => t.inputs.text).sort()).toEqual(["", "{{prompt}}"]);
          const unet = Object.values(wf).find((x) => x.class_type === "UNETLoader")!;
          expect(unet.inputs.unet_name).not.toMatch(/edit/);
          return;
        }
        const encoders = Object.values(wf).filter((x) => x.class_type === "TextEncodeQwenImageEditPlus");
        expect(encoders.length).toBe(2);
        for (const enc of encoders) {
          for (let i = 1; i <= n; i++) expect(isLink(enc.inputs[`image${i}`])).toBe(true);
        }
      });

      it("names model files the README tells operators to download", () => {
        const readme = readFileSync(path.join(BUILTIN_DIR, "README.md"), "utf8");
        for (const node of Object.values(wf)) {
          for (const key of ["unet_name", "clip_name", "vae_name", "lora_name"]) {
            const name = node.inputs[key];
            if (typeof name === "string") expect(readme).toContain(name);
          }
        }
      });
    });
  }
});

/** The operator-facing detail of the WorkflowError fn throws. */
function detailOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WorkflowError);
    return (err as WorkflowError).detail;
  }
  throw new Error("did not throw");
}

describe("workflow filling", () => {
  const wf: ApiWorkflow = {
    "1": { class_type: "LoadImage", inputs: { image: "{{image1}}" } },
    "2": {
      class_type: "SaveImage",
      inputs: { images: ["1", 0], filename_prefix: "{{output_prefix}}/x-{{seed}}" },
    },
  };

  it("reads inserted text literally (one pass) and types whole-value numbers", () => {
    const filled = fillWorkflow(
      { ...wf, "3": { class_type: "X", inputs: { text: "{{prompt}}", seed: "{{ seed }}" } } },
      values(1),
    );
    expect(filled["3"]!.inputs).toEqual({ text: "Make it {{seed}} blue", seed: 1234 });
    expect(filled["2"]!.inputs.filename_prefix).toBe("photofx/abc/out/x-1234");
    expect(wf["1"]!.inputs.image).toBe("{{image1}}"); // the template is untouched
  });

  it("refuses placeholders nothing fills and images without a slot", () => {
    const odd = { ...wf, "3": { class_type: "X", inputs: { v: "{{strength}}" } } };
    expect(() => checkPlaceholders(odd, 1)).toThrow(WorkflowError);
    expect(detailOf(() => fillWorkflow(odd, values(1)))).toMatch(/strength/);
    expect(detailOf(() => checkPlaceholders(wf, 2))).toMatch(/image2/);
    expect(() => fillWorkflow({ a: { class_type: "X", inputs: { i: "{{image2}}" } } }, values(1))).toThrow(
      WorkflowError,
    );
  });

  it("refuses UI-format files, broken JSON and links to missing nodes", () => {
    expect(detailOf(() => parseWorkflow(JSON.stringify({ nodes: [], links: [] })))).toMatch(/Export \(API\)/);
    expect(detailOf(() => parseWorkflow("{"))).toMatch(/not valid JSON/);
    expect(detailOf(() => parseWorkflow(JSON.stringify({ "1": { inputs: {} } })))).toMatch(/class_type/);
    expect(
      detailOf(() => checkLinks({ "1": { class_type: "VAEDecode", inputs: { vae: ["9", 0] } } })),
    ).toMatch(/missing node "9"/);
  });

  it("picks built-ins by image count and fails clearly past them", async () => {
    expect((await loadWorkflow("pixel-illustration", 1)).file).toBe(BUILTIN_WORKFLOWS[1]);
    expect((await loadWorkflow("baby-face-generator", 2)).file).toBe(BUILTIN_WORKFLOWS[2]);
    expect((await loadWorkflow("text-to-image", 0)).file).toBe(BUILTIN_WORKFLOWS[0]);
    expect((await loadWorkflow("free-form", 3)).file).toBe(BUILTIN_WORKFLOWS[3]);
    await expect(loadWorkflow("free-form", 4)).rejects.toThrow(WorkflowError);
  });
});

describe("output size", () => {
  it("is about one megapixel in the aspect ratio, in multiples of 16", () => {
    expect(outputSize("1:1", undefined)).toEqual({ width: 1024, height: 1024 });
    for (const ar of ["4:5", "3:4", "16:9", "21:9"]) {
      const { width, height } = outputSize(ar, undefined);
      expect(width % 16).toBe(0);
      expect(height % 16).toBe(0);
      const [a, b] = ar.split(":").map(Number) as [number, number];
      expect(Math.abs(width / height - a / b)).toBeLessThan(0.03);
      expect(Math.abs((width * height) / 1024 ** 2 - 1)).toBeLessThan(0.05);
    }
  });

  it("keeps the input's shape when the effect has no ratio", () => {
    const { width, height } = outputSize(undefined, { width: 3000, height: 2000 });
    expect(Math.abs(width / height - 1.5)).toBeLessThan(0.03);
    expect(outputSize(undefined, undefined)).toEqual({ width: 1024, height: 1024 });
  });
});
