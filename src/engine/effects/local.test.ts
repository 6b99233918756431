import { describe, expect, it } from "vitest";
import { EFFECTS } from "@/core/catalogue";
import { LOCAL_EFFECTS, LOCAL_INPUT_CHECKS } from "./local";

describe("local engine index (registry parity)", () => {
  it("renders every effect of the catalogue, with no key and no network", () => {
    expect(Object.keys(LOCAL_EFFECTS).sort()).toEqual(EFFECTS.map((e) => e.id).sort());
  });

  it("checks the people effects' input rules before charging, and only for effects it renders", () => {
    for (const id of Object.keys(LOCAL_INPUT_CHECKS)) expect(LOCAL_EFFECTS[id], id).toBeDefined();
    // Every effect that finds faces refuses a photo without one before any credit is charged.
    for (const id of [
      "stylized-stickers",
      "studio-portrait",
      "linkedIn-profile-photo-generator",
      "emoji-icon",
      "hair-style-generator",
      "pixie-cut-filter",
      "baby-face-generator",
      "hug-my-younger-self",
      "3d-finger",
      "3d-caricature",
      "boob-boost-effect",
    ])
      expect(LOCAL_INPUT_CHECKS[id], id).toBeDefined();
  });
});
