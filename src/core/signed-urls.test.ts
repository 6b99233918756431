import { describe, expect, it } from "vitest";
import { UrlSigner } from "./signed-urls";

describe("signed file URLs", () => {
  const signer = new UrlSigner("s".repeat(40));
  const parse = (url: string) => Object.fromEntries(new URL(url, "http://x").searchParams);

  it("verifies its own signature until it expires", () => {
    const now = 1_700_000_000_000;
    const q = parse(signer.sign("images", "abc123defg", 60, now));
    expect(signer.verify("images", "abc123defg", q.expires, q.sig, now)).toBe(true);
    expect(signer.verify("images", "abc123defg", q.expires, q.sig, now + 61_000)).toBe(false);
  });

  it("refuses another id, another kind, a changed expiry or another secret", () => {
    const q = parse(signer.sign("images", "abc123defg", 60));
    expect(signer.verify("images", "zzz123defg", q.expires, q.sig)).toBe(false);
    expect(signer.verify("uploads", "abc123defg", q.expires, q.sig)).toBe(false);
    expect(signer.verify("images", "abc123defg", String(Number(q.expires) + 1000), q.sig)).toBe(false);
    expect(new UrlSigner("t".repeat(40)).verify("images", "abc123defg", q.expires, q.sig)).toBe(false);
    expect(signer.verify("images", "abc123defg", undefined, undefined)).toBe(false);
  });
});
