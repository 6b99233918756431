import { describe, expect, it } from "vitest";
import { preferWait } from "./generate";
import { asksForSexualContent, parseDimension, routeTier } from "./free-form";

describe("the generic generate call's fields", () => {
  it("reads dimension as an aspect ratio or a size, nearest supported ratio", () => {
    expect(parseDimension(undefined)).toBe("auto");
    expect(parseDimension("auto")).toBe("auto");
    expect(parseDimension("16:9")).toBe("16:9");
    expect(parseDimension("1920x1080")).toBe("16:9");
    expect(parseDimension("1024*768")).toBe("4:3");
    expect(parseDimension("1000x1000")).toBe("1:1");
    expect(parseDimension("768x1344")).toBe("9:16");
    for (const bad of ["wide", "0x100", "100x0", "10000x10", "16:9:1", "-1x2"])
      expect(parseDimension(bad)).toBe(null);
  });

  it("refuses instructions that ask for nude or sexualised images, and only those", () => {
    for (const p of [
      "make her topless",
      "Put him in LINGERIE",
      "remove her clothes and make it nsfw",
      "une femme nue",
      "Foto nackt",
      "把她变成裸体",
      "sexy pose",
    ])
      expect(asksForSexualContent(p), p).toBe(true);
    for (const p of [
      "make the sky purple",
      "a comic strip of a cat",
      "chicken breast on a plate",
      "thêm nụ cười", // Vietnamese "add a smile": folds to "nu"
      "a nuanced portrait",
      "Essex county map",
    ])
      expect(asksForSexualContent(p), p).toBe(false);
  });

  it("renders each route's tier, or the model the caller chose", () => {
    expect(routeTier("v1")).toBe("v1");
    expect(routeTier("v2")).toBe("v2");
    expect(routeTier("create")).toBe("v1");
    expect(routeTier("create-v2")).toBe("v2");
    expect(routeTier("flux-kontext-v2")).toBe("v2");
    expect(routeTier("flux-kontext-dev-v2")).toBe("v1");
    expect(routeTier("create-v2:v1")).toBe("v1");
    expect(routeTier("create:v2")).toBe("v2");
  });

  it("reads RFC 7240's Prefer: wait", () => {
    expect(preferWait(undefined)).toBe(null);
    expect(preferWait("respond-async")).toBe(null);
    expect(preferWait("wait")).toBe(Infinity);
    expect(preferWait("return=minimal, wait=30")).toBe(30);
    expect(preferWait('wait="10"')).toBe(10);
  });
});
