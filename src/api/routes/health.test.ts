import { describe, expect, it } from "vitest";
import { metricsAllowed } from "./health";

describe("who may read /api/metrics", () => {
  it("without a token, only this machine; with one, only its bearer", () => {
    expect(metricsAllowed(undefined, undefined, "127.0.0.1")).toBe(true);
    expect(metricsAllowed(undefined, undefined, "::1")).toBe(true);
    expect(metricsAllowed(undefined, undefined, "203.0.113.9")).toBe(false);
    expect(metricsAllowed(undefined, undefined, undefined)).toBe(false);
    const token = "a-metrics-token-of-32-characters";
    expect(metricsAllowed(token, `Bearer ${token}`, "203.0.113.9")).toBe(true);
    expect(metricsAllowed(token, undefined, "127.0.0.1")).toBe(false);
    expect(metricsAllowed(token, "Bearer wrong", "127.0.0.1")).toBe(false);
  });
});
