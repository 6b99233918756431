import { describe, expect, it } from "vitest";
import { safeNext } from "./safe-next";

const ORIGIN = "https://photos.example";
const HOME = "/nano-banana-lora";

describe("the next-URL after sign-in", () => {
  it("keeps a page of this site, with its query and fragment", () => {
    expect(safeNext("/pricing", ORIGIN, HOME)).toBe("/pricing");
    expect(safeNext("/de/nano-banana-lora/gta-style-filter?x=1#top", ORIGIN, HOME)).toBe(
      "/de/nano-banana-lora/gta-style-filter?x=1#top",
    );
  });

  it("refuses every way to another site (the review's open redirects included)", () => {
    for (const evil of [
      "/\\evil.example/phish", // what URLSearchParams makes of /%5Cevil.example/phish
      "/\t/evil.example", // what it makes of /%09/evil.example
      "/\n/evil.example",
      "//evil.example",
      "///evil.example",
      "/\\/evil.example",
      "https://evil.example/",
      "javascript:alert(1)",
      "evil.example",
      "",
    ])
      expect(safeNext(evil, ORIGIN, HOME), JSON.stringify(evil)).toBe(HOME);
    expect(safeNext(null, ORIGIN, HOME)).toBe(HOME);
  });

  it("reads the parameter the way the browser does", () => {
    const next = new URLSearchParams("next=/%5Cevil.example/phish").get("next");
    expect(safeNext(next, ORIGIN, HOME)).toBe(HOME);
    const tab = new URLSearchParams("next=/%09/evil.example").get("next");
    expect(safeNext(tab, ORIGIN, HOME)).toBe(HOME);
  });
});
