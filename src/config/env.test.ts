import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { engineDebugDelayMs, EnvError, envSchema, parseEnv } from "./env";

describe("configuration", () => {
  it("selects the embedded defaults when nothing is set", () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.dataDir).toBe(path.resolve("./data"));
    expect(env.appUrl).toBe("http://localhost:3000");
    expect(env.SIGNUP_CREDITS).toBe(10);
    expect(env.UPLOAD_TTL_MINUTES).toBe(60);
    expect(env.TASK_TIMEOUT_SECONDS).toBe(300);
  });

  it("offers the test checkout only when TEST_CHECKOUT is set to true", () => {
    expect(parseEnv({}).TEST_CHECKOUT).toBe(false);
    expect(parseEnv({ TEST_CHECKOUT: "true" }).TEST_CHECKOUT).toBe(true);
    expect(parseEnv({ TEST_CHECKOUT: "false" }).TEST_CHECKOUT).toBe(false);
    expect(() => parseEnv({ TEST_CHECKOUT: "sure" })).toThrow("TEST_CHECKOUT");
  });

  it("follows PORT, and treats empty values as unset", () => {
    const env = parseEnv({ PORT: "4123", DATABASE_URL: "" });
    expect(env.appUrl).toBe("http://localhost:4123");
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it.each([
    [{ PORT: "eighty" }, "PORT"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ AUTH_SECRET: "short" }, "AUTH_SECRET"],
    [{ SIGNUP_CREDITS: "-1" }, "SIGNUP_CREDITS"],
    [{ GOOGLE_CLIENT_ID: "id-only" }, "GOOGLE_CLIENT_ID"],
  ])("stops with a message naming the bad variable: %o", (source, name) => {
    expect(() => parseEnv(source)).toThrow(EnvError);
    expect(() => parseEnv(source)).toThrow(name);
  });
});

describe("the README's configuration table", () => {
  const readme = fs.readFileSync(path.resolve(__dirname, "../../README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## How it works"));
  const documented = new Set([...section.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));

  it("documents every variable of the schema", () => {
    const missing = Object.keys(envSchema.shape).filter((name) => !documented.has(name));
    expect(missing).toEqual([]);
  });

  it("documents no variable the schema does not read", () => {
    const extra = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]+)`/gm)]
      .map((m) => m[1]!)
      .filter((name) => !(name in envSchema.shape));
    expect(extra).toEqual([]);
  });
});

describe("values read outside Services", () => {
  it("reads ENGINE_DEBUG_DELAY_MS with the schema's default and validation", () => {
    expect(engineDebugDelayMs({})).toBe(0);
    expect(engineDebugDelayMs({ ENGINE_DEBUG_DELAY_MS: "250" })).toBe(250);
    expect(() => engineDebugDelayMs({ ENGINE_DEBUG_DELAY_MS: "-1" })).toThrow();
  });

  it("parses WORKER_SHUTDOWN_GRACE_SECONDS (default 30)", () => {
    expect(parseEnv({}).WORKER_SHUTDOWN_GRACE_SECONDS).toBe(30);
    expect(parseEnv({ WORKER_SHUTDOWN_GRACE_SECONDS: "5" }).WORKER_SHUTDOWN_GRACE_SECONDS).toBe(5);
  });
});
