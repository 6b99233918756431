import { describe, expect, it } from "vitest";
import { InputRefusal } from "@/core/ports/input-rules";
import { EngineError, type Renderer, type RenderRequest } from "@/core/ports/renderer";
import { ANY_ENGINE_INPUT_CHECKS, LOCAL_INPUT_CHECKS } from "../../effects/local";
import { ProviderRouter, type RouterConfig } from "../router";
import { poolInputRules } from "./input-rules";
import type { EnginePool } from "./pool";
import type { RuleScope } from "./pool-worker";

/** A pool that records which rules it was asked to check, and refuses when told to. */
function fakePool(refuse?: EngineError) {
  const checks: Array<{ effectId: string; scope: RuleScope | undefined }> = [];
  const pool = {
    id: "local",
    supports: () => true,
    render: () => Promise.reject(new Error("not used")),
    async check(req: RenderRequest, scope?: RuleScope) {
      checks.push({ effectId: req.effectId, scope });
      if (refuse) throw refuse;
    },
    screen: async () => undefined,
    close: async () => undefined,
  } satisfies EnginePool;
  return { pool, checks };
}

const hosted = (id: string, supported: string[] = []): Renderer => ({
  id,
  supports: (effectId) => supported.length === 0 || supported.includes(effectId),
  render: () => Promise.reject(new Error("not used")),
});

const config = (over: Partial<RouterConfig> = {}): RouterConfig => ({
  engine: "fal",
  overrides: {},
  fallback: ["local"],
  renderTimeoutMs: 1_000,
  breaker: { threshold: 2, cooldownMs: 60_000 },
  costPerImage: {},
  dailyCap: {},
  ...over,
});

const ask = { images: [{ bytes: new Uint8Array([1]), mime: "image/png" }], options: {}, prompt: "" };

describe("the planned engine (ProviderRouter.plannedEngine)", () => {
  it("is the runtime setting, else the override, else ENGINE; skipping a provider that lacks the effect", () => {
    const settings: { engine?: string } = {};
    const router = new ProviderRouter(
      [hosted("fal", ["pixie-cut-filter", "3d-finger"]), hosted("gemini"), hosted("local")],
      config({
        overrides: { "3d-finger": "gemini" },
        fallback: ["gemini", "local"],
        engineFor: () => settings.engine,
      }),
    );
    expect(router.plannedEngine("pixie-cut-filter")).toBe("fal");
    expect(router.plannedEngine("3d-finger")).toBe("gemini");
    // fal has no such effect: the router would go on to gemini, so gemini is planned.
    expect(router.plannedEngine("emoji-icon")).toBe("gemini");
    settings.engine = "local";
    expect(router.plannedEngine("pixie-cut-filter")).toBe("local");
    expect(router.plannedEngine("3d-finger")).toBe("local");
  });

  it("counts the local engine even where this process's stand-in renders nothing (scale-out web)", () => {
    const router = new ProviderRouter(
      [hosted("fal"), { ...hosted("local"), supports: () => false }],
      config({ engine: "local" }),
    );
    expect(router.plannedEngine("pixie-cut-filter")).toBe("local");
  });
});

describe("poolInputRules: the rules of the engine that renders", () => {
  it("declares which effects keep rules on a hosted engine and which are local limits only", () => {
    // Every rule every engine obeys is also a local rule.
    for (const id of Object.keys(ANY_ENGINE_INPUT_CHECKS)) expect(LOCAL_INPUT_CHECKS[id], id).toBeDefined();
    // The bust's consent and minor rules hold everywhere; a people effect still needs its face.
    for (const id of ["boob-boost-effect", "pixie-cut-filter", "hair-style-generator", "hug-my-younger-self"])
      expect(ANY_ENGINE_INPUT_CHECKS[id], id).toBeDefined();
    // Finding a subject with the object detector is the local engine's own limit.
    expect(ANY_ENGINE_INPUT_CHECKS["stylized-stickers"]).toBeUndefined();
  });

  it("runs every rule when the local engine is planned, only the any-engine rules otherwise", async () => {
    const { pool, checks } = fakePool();
    let planned = "local";
    const rules = poolInputRules(
      () => pool,
      null,
      () => planned,
    );
    await rules.check({ effectId: "pixie-cut-filter", ...ask });
    planned = "fal";
    await rules.check({ effectId: "pixie-cut-filter", ...ask });
    expect(checks).toEqual([
      { effectId: "pixie-cut-filter", scope: "local" },
      { effectId: "pixie-cut-filter", scope: "anyEngine" },
    ]);
  });

  it("skips an effect with only local limits on a hosted engine (unless photos are screened)", async () => {
    const { pool, checks } = fakePool();
    let planned = "fal";
    const rules = poolInputRules(
      () => pool,
      null,
      () => planned,
    );
    expect(rules.appliesTo("stylized-stickers")).toBe(false);
    await rules.check({ effectId: "stylized-stickers", ...ask });
    expect(checks).toEqual([]);
    planned = "local";
    expect(rules.appliesTo("stylized-stickers")).toBe(true);
    expect(
      poolInputRules(
        () => pool,
        0.5,
        () => "fal",
      ).appliesTo("stylized-stickers"),
    ).toBe(true);
  });

  it("turns a rule's refusal into an InputRefusal with its code", async () => {
    const { pool } = fakePool(new EngineError("Under 18?", false, "mayBeMinor"));
    const err = await poolInputRules(
      () => pool,
      null,
      () => "gemini",
    )
      .check({ effectId: "boob-boost-effect", ...ask })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputRefusal);
    expect(err).toMatchObject({ code: "mayBeMinor", reason: "Under 18?" });
  });
});
