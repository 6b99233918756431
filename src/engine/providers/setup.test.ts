import { describe, expect, it } from "vitest";
import { envSchema, EnvError, parseEnv } from "@/config/env";
import type { Renderer } from "@/core/ports/renderer";
import { createRenderer, parseOverrides, resolveEngineChoice } from "./setup";
import { PROVIDER_TABLE } from "./table";

const env = (vars: Record<string, string> = {}) => parseEnv({ DATA_DIR: "/tmp/photofx-setup-test", ...vars });
const local: Renderer = {
  id: "local",
  supports: () => true,
  render: () => Promise.reject(new Error("unused")),
};

describe("engine configuration", () => {
  it("keeps the local engine alone when no key is set", async () => {
    expect(resolveEngineChoice(env())).toEqual({ engine: "local", overrides: {}, fallback: ["local"] });
    const setup = await createRenderer(env(), { local });
    expect(setup.renderer).toBe(local);
    expect(setup.router).toBeNull();
  });

  it("picks the provider whose key is set, keeps the mirror local, and ends the fallback with local", () => {
    expect(resolveEngineChoice(env({ FAL_KEY: "k" }))).toEqual({
      engine: "fal",
      overrides: { "inverted-face-filter": "local" },
      fallback: ["local"],
    });
    expect(resolveEngineChoice(env({ FAL_KEY: "k", GEMINI_API_KEY: "g" })).fallback).toEqual([
      "gemini",
      "local",
    ]);
    expect(resolveEngineChoice(env({ GEMINI_API_KEY: "g" })).engine).toBe("gemini");
    expect(
      resolveEngineChoice(
        env({ FAL_KEY: "k", GEMINI_API_KEY: "g", ENGINE: "gemini", ENGINE_FALLBACK: "local" }),
      ),
    ).toMatchObject({ engine: "gemini", fallback: ["local"] });
  });

  it("applies per-effect overrides in both notations", () => {
    expect(parseOverrides("coloring-page=local, 3d-finger = gemini")).toEqual({
      "coloring-page": "local",
      "3d-finger": "gemini",
    });
    expect(parseOverrides('{"inverted-face-filter":"fal"}')).toEqual({ "inverted-face-filter": "fal" });
    const choice = resolveEngineChoice(
      env({ FAL_KEY: "k", ENGINE_OVERRIDES: "inverted-face-filter=fal,coloring-page=local" }),
    );
    expect(choice.overrides).toEqual({ "inverted-face-filter": "fal", "coloring-page": "local" });
  });

  it("stops start-up with the variable's name on a bad setting", () => {
    expect(() => resolveEngineChoice(env({ ENGINE: "fal" }))).toThrow(/ENGINE: "fal" needs FAL_KEY/);
    expect(() => resolveEngineChoice(env({ FAL_KEY: "k", ENGINE_OVERRIDES: "3d-finger=gemini" }))).toThrow(
      /ENGINE_OVERRIDES: "gemini" needs GEMINI_API_KEY/,
    );
    expect(() => parseOverrides("nope=fal")).toThrow(EnvError);
    expect(() => parseOverrides("3d-finger=banana")).toThrow(
      /not one of local, comfyui, fal, gemini, openai, replicate/,
    );
    expect(() => parseOverrides("{broken")).toThrow(/not valid JSON/);
    expect(() => resolveEngineChoice(env({ FAL_KEY: "k", ENGINE_FALLBACK: "fal,banana" }))).toThrow(
      /ENGINE_FALLBACK/,
    );
  });

  it("builds a router over the configured providers", async () => {
    const setup = await createRenderer(env({ FAL_KEY: "k", GEMINI_API_KEY: "g" }), { local });
    expect(setup.router).not.toBeNull();
    expect(setup.router!.candidates("3d-finger")).toEqual(["fal", "gemini", "local"]);
    expect(setup.router!.cost("fal", "v1")).toBe(0.039);
    expect(setup.webhooks.size).toBe(0);
  });

  it("lets the runtime settings choose an effect's engine per render, over ENGINE_OVERRIDES", async () => {
    let chosen: string | undefined = "gemini";
    const setup = await createRenderer(
      env({ FAL_KEY: "k", GEMINI_API_KEY: "g", ENGINE_OVERRIDES: "coloring-page=fal" }),
      { local, engineFor: (id) => (id === "coloring-page" ? chosen : undefined) },
    );
    expect(setup.router!.candidates("coloring-page")[0]).toBe("gemini");
    chosen = undefined;
    expect(setup.router!.candidates("coloring-page")[0]).toBe("fal");
    // A provider the settings name but this server has not configured is passed over.
    chosen = "comfyui";
    expect(setup.router!.candidates("coloring-page")).toEqual(["fal", "gemini", "local"]);
  });

  it("registers fal's webhook receiver for the generic webhook route in webhook mode", async () => {
    const setup = await createRenderer(
      env({ FAL_KEY: "k", FAL_WEBHOOK_URL: "https://photos.example/api/providers/fal/webhook" }),
      { local },
    );
    expect([...setup.webhooks.keys()]).toEqual(["fal"]);
  });

  it("starts the spend caps from today's stored images", async () => {
    const setup = await createRenderer(env({ FAL_KEY: "k", FAL_DAILY_CAP: "0.12" }), {
      local,
      imagesToday: async () => [
        { provider: "fal", model: "fal-ai/nano-banana/edit", count: 2 },
        { provider: "local", model: "photofx-local-1", count: 50 },
      ],
    });
    // 2 x 0.039 spent of 0.12: one more v1 image fits, a v2 image (0.08) does not.
    expect(await setup.router!.spend.tryReserve("fal", 0.08)).toBeNull();
    expect(await setup.router!.spend.tryReserve("fal", 0.039)).not.toBeNull();
  });

  it("keeps photos on the operator's hardware: ComfyUI first, and no third party in its default fallback", () => {
    const comfy = { COMFYUI_URL: "http://gpu1:8188,http://gpu2:8188" };
    expect(resolveEngineChoice(env({ ...comfy, FAL_KEY: "k", GEMINI_API_KEY: "g" }))).toMatchObject({
      engine: "comfyui",
      fallback: ["local"],
    });
    // Only when ENGINE_FALLBACK names it may a task leave for a third party.
    expect(resolveEngineChoice(env({ ...comfy, FAL_KEY: "k", ENGINE_FALLBACK: "fal" })).fallback).toEqual([
      "fal",
      "local",
    ]);
  });

  it("never lets an OpenAI or Replicate key alone send photos anywhere", () => {
    expect(resolveEngineChoice(env({ OPENAI_API_KEY: "o", REPLICATE_API_TOKEN: "r" })).engine).toBe("local");
    expect(resolveEngineChoice(env({ OPENAI_API_KEY: "o", ENGINE: "openai" }))).toMatchObject({
      engine: "openai",
      fallback: ["local"],
    });
    expect(() => resolveEngineChoice(env({ ENGINE: "replicate" }))).toThrow(
      /ENGINE: "replicate" needs REPLICATE_API_TOKEN/,
    );
    expect(() => resolveEngineChoice(env({ ENGINE: "banana" }))).toThrow(/not one of local, comfyui, fal/);
  });

  it("lists in every provider row only variables the config schema validates", () => {
    for (const p of PROVIDER_TABLE) {
      for (const key of p.envKeys) expect(key in envSchema.shape, `${p.id}: ${key}`).toBe(true);
    }
    expect(PROVIDER_TABLE.map((p) => p.id)).toEqual([
      "local",
      "comfyui",
      "fal",
      "gemini",
      "openai",
      "replicate",
    ]);
  });
});
