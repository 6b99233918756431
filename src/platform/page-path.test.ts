import { describe, expect, it } from "vitest";
import { isPagePath } from "./page-path";

describe("page paths", () => {
  it("lets pages through and stops backslash and protocol-relative paths (a 500 before)", () => {
    for (const ok of ["/", "/de", "/nano-banana-lora/gta-style-filter?x=%5C", "/pricing#plans"])
      expect(isPagePath(ok), ok).toBe(true);
    for (const bad of [
      "/%5C%5Cevil.example",
      "/%5c%5cevil.example",
      "/\\\\evil.example",
      "//evil.example",
      "/a/%5C/b",
      "",
    ])
      expect(isPagePath(bad), bad).toBe(false);
  });
});
