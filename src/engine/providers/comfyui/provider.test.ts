import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { startComfyUIFake, type ComfyUIFake } from "../../../../tests/integration/fakes/comfyui-fake";
import { ProviderCodes } from "../codes";
import { ProviderHttpError } from "../http";
import { promptFor } from "../prompt-for";
import {
  COMFYUI_DEFAULT_MODEL,
  createComfyUIProvider,
  type ComfyUIOptions,
  type ComfyUIProgress,
} from "./provider";

/**
 * Contract tests of the ComfyUI provider against local fakes that speak ComfyUI's HTTP
 * API and socket (tests/integration/fakes/comfyui-fake.ts). Nothing leaves 127.0.0.1.
 */

const RETRY = { attempts: 3, baseDelayMs: 5, maxDelayMs: 2_000, attemptTimeoutMs: 5_000 };

let photo: Uint8Array;
let photo2: Uint8Array;
beforeAll(async () => {
  photo = new Uint8Array(
    await sharp({ create: { width: 96, height: 64, channels: 3, background: "#3060c0" } })
      .png()
      .toBuffer(),
  );
  photo2 = new Uint8Array(
    await sharp({ create: { width: 64, height: 64, channels: 3, background: "#c06030" } })
      .png()
      .toBuffer(),
  );
});

const fakes: ComfyUIFake[] = [];
async function fake(opts: { token?: string } = {}): Promise<ComfyUIFake> {
  const f = await startComfyUIFake(opts);
  fakes.push(f);
  return f;
}
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

const provider = (urls: string[], extra: Partial<ComfyUIOptions> = {}) =>
  createComfyUIProvider({
    urls,
    retry: RETRY,
    pollMs: 20,
    safetyPollMs: 5_000,
    probeTimeoutMs: 1_000,
    ...extra,
  });

const request = (effectId = "pixel-illustration", images: Uint8Array[] = [photo]): RenderRequest => ({
  effectId,
  route: "v1",
  images: images.map((bytes) => ({ bytes, mime: "image/png" })),
  options: {},
  prompt: "",
  seed: 4242,
});

async function failure(p: Promise<unknown>): Promise<EngineError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
}

const posts = (f: ComfyUIFake, p: string) => f.requests.filter((r) => r.method === "POST" && r.path === p);

describe("ComfyUI provider: a render", () => {
  it("uploads, queues the filled workflow, follows the socket and returns the saved PNG", async () => {
    const comfy = await fake();
    const progress: ComfyUIProgress[] = [];
    const p = provider([comfy.url], { onProgress: (x) => progress.push(x) });
    expect(p.id).toBe("comfyui");
    expect(p.supports("pixel-illustration")).toBe(true);
    expect(p.supports("no-such-effect")).toBe(false);
    // The generic generate call's free-form ids: an edit, and text-to-image (its own workflow).
    expect(p.supports("free-form")).toBe(true);
    expect(p.supports("text-to-image")).toBe(true);

    const req = request();
    const result = await p.render(req);
    expect(result.provider).toBe("comfyui");
    expect(result.model).toBe(COMFYUI_DEFAULT_MODEL);
    expect(result.mime).toBe("image/png");
    const meta = await sharp(result.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([result.width, result.height]);

    // The queued workflow: our upload, the hosted prompt, the seed, a size, a random prefix.
    expect(comfy.uploads).toHaveLength(1);
    const up = comfy.uploads[0]!;
    const sent = comfy.prompts[0]!.prompt;
    const nodes = Object.values(sent);
    expect(nodes.find((n) => n.class_type === "LoadImage")!.inputs.image).toBe(`${up.subfolder}/${up.name}`);
    const encoders = nodes.filter((n) => n.class_type === "TextEncodeQwenImageEditPlus");
    expect(encoders.map((e) => e.inputs.prompt)).toContain((await promptFor(req)).text);
    expect(nodes.find((n) => n.class_type === "KSampler")!.inputs.seed).toBe(4242);
    const latent = nodes.find((n) => n.class_type === "EmptySD3LatentImage")!.inputs;
    expect(latent.width).toBeGreaterThan(latent.height as number); // the input's 3:2 shape
    expect(nodes.find((n) => n.class_type === "SaveImage")!.inputs.filename_prefix).toBe(
      `${up.subfolder}/out`,
    );

    // Followed by socket with our client id; previews (binary frames) were sent and ignored.
    expect(comfy.socketsOpened).toBe(1);
    expect(comfy.binaryFramesSent).toBeGreaterThan(0);
    expect(progress.filter((x) => x.max === 4).map((x) => x.value)).toEqual([1, 2, 3, 4]);
    expect(progress.some((x) => x.queuePosition !== undefined)).toBe(true);
  });

  it("uploads under random names in a random folder per task, never overwriting", async () => {
    const comfy = await fake();
    const p = provider([comfy.url]);
    await p.render(request());
    await p.render(request());
    expect(comfy.uploads).toHaveLength(2);
    const [a, b] = comfy.uploads as [ComfyUIFake["uploads"][0], ComfyUIFake["uploads"][0]];
    for (const u of [a, b]) {
      expect(u.name).toMatch(/^[0-9a-f]{32}\.png$/);
      expect(u.subfolder).toMatch(/^photofx\/[0-9a-f]{32}$/);
      expect(u.type).toBe("input");
      expect(u.overwrite).toBe(false);
    }
    expect(a.name).not.toBe(b.name);
    expect(a.subfolder).not.toBe(b.subfolder);
  });

  it("sends both photos of a two-photo effect to one job", async () => {
    const comfy = await fake();
    await provider([comfy.url]).render(request("baby-face-generator", [photo, photo2]));
    expect(comfy.uploads).toHaveLength(2);
    expect(comfy.uploads[0]!.subfolder).toBe(comfy.uploads[1]!.subfolder);
    const nodes = Object.values(comfy.prompts[0]!.prompt);
    const loads = nodes.filter((n) => n.class_type === "LoadImage").map((n) => n.inputs.image);
    expect(loads).toEqual(comfy.uploads.map((u) => `${u.subfolder}/${u.name}`));
    const enc = nodes.find((n) => n.class_type === "TextEncodeQwenImageEditPlus")!;
    expect(enc.inputs.image1).toBeDefined();
    expect(enc.inputs.image2).toBeDefined();
  });

  it("sends the bearer token on every call and on the socket", async () => {
    const comfy = await fake({ token: "s3cret" });
    await provider([comfy.url], { token: "s3cret" }).render(request());
    expect(comfy.requests.length).toBeGreaterThan(3);
    for (const r of comfy.requests) expect(r.headers.authorization).toBe("Bearer s3cret");
    expect(comfy.upgrades.map((h) => h.authorization)).toEqual(["Bearer s3cret"]);

    const err = await failure(provider([comfy.url], { token: "wrong" }).render(request()));
    expect(err.code).toBe(ProviderCodes.unavailable);
    expect(err.retryable).toBe(true);
  });

  it("uses an operator's workflow file for the effect instead of the built-in one", async () => {
    const comfy = await fake();
    const dir = mkdtempSync(path.join(tmpdir(), "photofx-comfy-"));
    try {
      const custom = {
        "1": { class_type: "LoadImage", inputs: { image: "{{image1}}" } },
        "2": {
          class_type: "ImageScale",
          inputs: {
            image: ["1", 0],
            upscale_method: "lanczos",
            width: "{{width}}",
            height: "{{height}}",
            crop: "center",
          },
        },
        "3": { class_type: "SaveImage", inputs: { images: ["2", 0], filename_prefix: "{{output_prefix}}" } },
      };
      writeFileSync(path.join(dir, "pixel-illustration.json"), JSON.stringify(custom));
      const p = provider([comfy.url], { workflowsDir: dir });
      const result = await p.render(request());
      expect(result.model).toBe("comfyui-workflow:pixel-illustration");
      expect(Object.values(comfy.prompts[0]!.prompt).map((n) => n.class_type)).toEqual([
        "LoadImage",
        "ImageScale",
        "SaveImage",
      ]);
      // Its photo limit is the operator's workflow's, checked when it loads; ours take three.
      expect(p.maxImages).toBeTypeOf("function");
      expect(p.maxImages!("pixel-illustration")).toBeUndefined();
      expect(p.maxImages!("free-form")).toBe(3);
      expect(provider([comfy.url]).maxImages!("pixel-illustration")).toBe(3);
      // Other effects keep the built-in workflow.
      await p.render(request("stylized-stickers"));
      expect(Object.values(comfy.prompts[1]!.prompt).map((n) => n.class_type)).toContain("KSampler");

      // A broken operator workflow fails before anything is uploaded.
      writeFileSync(
        path.join(dir, "pixel-illustration.json"),
        JSON.stringify({ ...custom, "4": { class_type: "X", inputs: { v: "{{strength}}" } } }),
      );
      const uploads = comfy.uploads.length;
      const err = await failure(p.render(request()));
      expect(err.code).toBe(ProviderCodes.unavailable);
      expect(err.retryable).toBe(false);
      expect(comfy.uploads.length).toBe(uploads);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("ComfyUI provider: the fleet", () => {
  it("sends each job to the server with the shortest queue", async () => {
    const a = await fake();
    const b = await fake();
    a.foreign.pending = 3;
    const p = provider([a.url, b.url]);
    await p.render(request());
    expect([a.prompts.length, b.prompts.length]).toEqual([0, 1]);
    a.foreign.pending = 0;
    b.foreign.pending = 2;
    await p.render(request());
    expect([a.prompts.length, b.prompts.length]).toEqual([1, 1]);
  });

  it("skips an unreachable server, remembers it as down, and tries it again later", async () => {
    const a = await fake();
    const b = await fake();
    a.foreign.pending = 2; // b would win if it answered
    b.down = true;
    // Long enough that two renders fit inside it on a loaded machine (300 ms was flaky in CI).
    const p = provider([a.url, b.url], { downMs: 3000 });
    await p.render(request());
    expect(a.prompts).toHaveLength(1);
    const refused = b.refusedConnections;
    expect(refused).toBeGreaterThan(0);

    await p.render(request()); // b is still remembered as down: not even tried
    expect(a.prompts).toHaveLength(2);
    expect(b.refusedConnections).toBe(refused);

    b.down = false;
    await new Promise((r) => setTimeout(r, 3100));
    await p.render(request());
    expect(b.prompts).toHaveLength(1);
  });

  it("fails as busy (retryable) when no server can be reached", async () => {
    const a = await fake();
    a.down = true;
    const err = await failure(provider([a.url]).render(request()));
    expect(err).toBeInstanceOf(ProviderHttpError);
    expect(err.retryable).toBe(true);
    expect(err.code).toBe(ProviderCodes.busy);
  });

  it("retries a 429 with Retry-After and a 503", async () => {
    const comfy = await fake();
    comfy.failures.push({ path: "/prompt", status: 429, retryAfter: "0" });
    comfy.failures.push({ path: "/upload/image", status: 503 });
    const result = await provider([comfy.url]).render(request());
    expect(result.mime).toBe("image/png");
    expect(posts(comfy, "/prompt")).toHaveLength(2);
    expect(posts(comfy, "/upload/image")).toHaveLength(2);
    expect(comfy.prompts).toHaveLength(1);
  });
});

describe("ComfyUI provider: failures", () => {
  it("turns node_errors on submit into a clear, non-retryable failure", async () => {
    const comfy = await fake();
    comfy.mode = "node-errors";
    const err = await failure(provider([comfy.url]).render(request()));
    expect(err.retryable).toBe(false);
    expect(err.code).toBe(ProviderCodes.unavailable);
    expect(err.reason).toContain("UNETLoader");
    expect(err.reason).toContain("Value not in list");
    expect(comfy.prompts).toHaveLength(0);
  });

  it("turns execution_error into a failure with the exception summarised", async () => {
    const comfy = await fake();
    comfy.mode = "execution-error";
    const err = await failure(provider([comfy.url]).render(request()));
    expect(err.code).toBe(ProviderCodes.unexpected);
    expect(err.reason).toContain("KSampler");
    expect(err.reason).toContain("out of memory");
    expect(err.reason).not.toContain("Currently allocated"); // one line, no dump
  });

  it("reads execution_error from /history when following by polling", async () => {
    const comfy = await fake();
    comfy.mode = "execution-error";
    const err = await failure(provider([comfy.url], { webSocket: false }).render(request()));
    expect(err.reason).toContain("out of memory");
    expect(comfy.socketsOpened).toBe(0);
  });

  it("fails with noImage when the job saves nothing", async () => {
    const comfy = await fake();
    comfy.mode = "no-output";
    const err = await failure(provider([comfy.url]).render(request()));
    expect(err.code).toBe(ProviderCodes.noImage);
  });
});

describe("ComfyUI provider: socket loss and polling", () => {
  it("finishes a job by polling /history when the socket drops mid-job", async () => {
    const comfy = await fake();
    comfy.mode = "drop-socket";
    comfy.stepMs = 15;
    const result = await provider([comfy.url]).render(request());
    expect(result.mime).toBe("image/png");
    expect(comfy.socketsDropped).toBe(1);
    expect(comfy.historyReads).toBeGreaterThan(1);
  });

  it("works with the socket turned off", async () => {
    const comfy = await fake();
    const result = await provider([comfy.url], { webSocket: false }).render(request());
    expect(result.mime).toBe("image/png");
    expect(comfy.socketsOpened).toBe(0);
    expect(comfy.historyReads).toBeGreaterThan(0);
  });
});

describe("ComfyUI provider: deadline", () => {
  it("interrupts our running job when the deadline passes", async () => {
    const comfy = await fake();
    comfy.mode = "stuck";
    const signal = AbortSignal.timeout(300);
    const err = await provider([comfy.url])
      .render(request(), signal)
      .catch((e: unknown) => e);
    expect(signal.aborted).toBe(true);
    expect(err).toBe(signal.reason);
    expect(comfy.interrupts).toEqual([comfy.prompts[0]!.promptId]);
    expect(comfy.deletes).toEqual([]);
  });

  it("removes our waiting job from the queue instead of interrupting someone else's", async () => {
    const comfy = await fake();
    comfy.foreign.running = 1; // the GPU is busy with another client's job
    const progress: ComfyUIProgress[] = [];
    const signal = AbortSignal.timeout(300);
    const err = await provider([comfy.url], { onProgress: (x) => progress.push(x) })
      .render(request(), signal)
      .catch((e: unknown) => e);
    expect(err).toBe(signal.reason);
    expect(comfy.deletes).toEqual([comfy.prompts[0]!.promptId]);
    expect(comfy.interrupts).toEqual([]);
    expect(progress[0]).toMatchObject({ queuePosition: 1 });
  });
});

afterAll(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});
