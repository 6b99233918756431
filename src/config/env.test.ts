import path from "node:path";
import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "./env";

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
