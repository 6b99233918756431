import { describe, expect, it } from "vitest";
import { newNonce, pagePolicy, storageOrigin } from "./security-headers";

const directive = (policy: string, name: string) =>
  policy
    .split(";")
    .map((d) => d.trim())
    .find((d) => d.startsWith(`${name} `));

describe("page Content-Security-Policy", () => {
  it("runs only scripts carrying this response's nonce (or loaded by them): no inline script, no eval", () => {
    const policy = pagePolicy("abc123", { turnstile: false, dev: false });
    expect(directive(policy, "script-src")).toBe("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(policy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(policy).not.toContain("unsafe-eval");
    expect(directive(policy, "frame-ancestors")).toBe("frame-ancestors 'none'");
    expect(directive(policy, "object-src")).toBe("object-src 'none'");
    expect(directive(policy, "frame-src")).toBe("frame-src 'none'");
  });

  it("opens exactly what the configuration needs: the S3 origin for images, Turnstile's frame", () => {
    const policy = pagePolicy("n", {
      turnstile: true,
      dev: false,
      storageOrigin: "https://files.example.com",
    });
    expect(directive(policy, "img-src")).toContain("https://files.example.com");
    expect(directive(policy, "connect-src")).toContain("https://files.example.com");
    expect(directive(policy, "frame-src")).toBe("frame-src https://challenges.cloudflare.com");
    expect(pagePolicy("n", { turnstile: false, dev: true })).toContain("'unsafe-eval'");
  });

  it("makes a new unguessable nonce each time", () => {
    const nonces = new Set(Array.from({ length: 100 }, newNonce));
    expect(nonces.size).toBe(100);
    for (const n of nonces) expect(Buffer.from(n, "base64")).toHaveLength(16);
  });

  it("knows where presigned S3 URLs point: path style on a custom endpoint, bucket subdomain on AWS", () => {
    const base = { S3_REGION: "eu-west-1", S3_FORCE_PATH_STYLE: undefined };
    expect(storageOrigin({ ...base, S3_BUCKET: undefined, S3_ENDPOINT: undefined })).toBeUndefined();
    expect(storageOrigin({ ...base, S3_BUCKET: "pics", S3_ENDPOINT: undefined })).toBe(
      "https://pics.s3.eu-west-1.amazonaws.com",
    );
    expect(storageOrigin({ ...base, S3_BUCKET: "pics", S3_ENDPOINT: "http://127.0.0.1:9000/x" })).toBe(
      "http://127.0.0.1:9000",
    );
    expect(
      storageOrigin({
        ...base,
        S3_BUCKET: "pics",
        S3_ENDPOINT: "https://r2.example.com",
        S3_FORCE_PATH_STYLE: false,
      }),
    ).toBe("https://pics.r2.example.com");
  });
});
