import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/config/env";
import type { Renderer } from "@/core/ports/renderer";
import { createRenderer, parseOverrides, resolveEngineChoice } from "./setup";

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
    expect(() => parseOverrides("3d-finger=replicate")).toThrow(/not one of local, fal, gemini/);
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
    expect(setup.falWebhooks).toBeNull();
  });
});
