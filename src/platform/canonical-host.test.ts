import { describe, expect, it } from "vitest";
import { loopbackRedirect } from "./canonical-host";

describe("loopbackRedirect", () => {
  const app = "http://localhost:3000";

  it("sends 127.0.0.1 and [::1] on APP_URL's port to APP_URL's address, keeping the path", () => {
    expect(loopbackRedirect(app, "127.0.0.1:3000", "/fr/sign-up?next=%2Fpricing")).toBe(
      "http://localhost:3000/fr/sign-up?next=%2Fpricing",
    );
    expect(loopbackRedirect(app, "[::1]:3000", "/")).toBe("http://localhost:3000/");
    expect(loopbackRedirect("http://127.0.0.1:3000", "localhost:3000", "/a")).toBe("http://127.0.0.1:3000/a");
  });

  it("serves APP_URL's own address, other ports, and any non-loopback host unchanged", () => {
    expect(loopbackRedirect(app, "localhost:3000", "/")).toBeNull();
    expect(loopbackRedirect(app, "LOCALHOST:3000", "/")).toBeNull();
    expect(loopbackRedirect(app, "127.0.0.1:3001", "/")).toBeNull();
    expect(loopbackRedirect(app, "evil.example:3000", "/")).toBeNull();
    expect(loopbackRedirect(app, "192.168.1.5:3000", "/")).toBeNull();
    expect(loopbackRedirect(app, undefined, "/")).toBeNull();
    expect(loopbackRedirect(app, "127.0.0.1:3000/x", "/")).toBeNull();
  });

  it("never redirects off APP_URL: a public APP_URL is left to its proxy, and a // path stays on site", () => {
    expect(loopbackRedirect("https://photos.example", "127.0.0.1", "/")).toBeNull();
    expect(loopbackRedirect(app, "127.0.0.1:3000", "//evil.example/x")).toBe("http://localhost:3000/");
  });
});
