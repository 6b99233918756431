import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, ledgerSum } from "@/core/credits";
import { newId } from "@/core/ids";
import { checkoutSession, subscription, user as userTable } from "@/core/schema";
import { signUp, startTestServer, type TestServer } from "./harness";

/** Holes from the security review (the hardening issue), part two: one test each. */

describe("purchases without Stripe need TEST_CHECKOUT=true", () => {
  let off: TestServer;
  let on: TestServer;
  beforeAll(async () => {
    [off, on] = await Promise.all([
      startTestServer({ env: { TEST_CHECKOUT: "false" } }),
      startTestServer({ env: { TEST_CHECKOUT: "true" } }),
    ]);
  });
  afterAll(async () => {
    await off?.close();
    await on?.close();
  });

  it("refuses a checkout when the test checkout is not enabled: 503, nothing written, balance unchanged", async () => {
    const user = await signUp(off);
    const pricing = await (await fetch(`${off.url}/api/pricing`)).json();
    expect(pricing.checkout).toBe("none");
    for (const productId of ["starter", "pro"]) {
      const res = await user.json("/api/checkout", { productId });
      expect(res.status, productId).toBe(503);
      expect(res.body).toMatchObject({ messageKey: "purchasesNotConfigured" });
    }
    const rows = await off.services.db
      .select()
      .from(checkoutSession)
      .where(eq(checkoutSession.userId, user.id));
    expect(rows).toEqual([]);

    // A test checkout left from when the operator had it on cannot be completed (nor the
    // Pro plan taken) once it is off.
    const leftover = newId();
    await off.services.db
      .insert(checkoutSession)
      .values({ id: leftover, userId: user.id, productId: "pro", kind: "plan", provider: "test" });
    const done = await user.json(`/api/checkout/test/${leftover}/complete`, {});
    expect(done.status).toBe(503);
    expect(done.body).toMatchObject({ messageKey: "purchasesNotConfigured" });
    expect((await user.json(`/api/checkout/test/${leftover}/cancel`, {})).status).toBe(503);
    expect(await getBalance(off.services.db, user.id)).toBe(10);
    expect(await ledgerSum(off.services.db, user.id)).toBe(10);
    const subs = await off.services.db.select().from(subscription).where(eq(subscription.userId, user.id));
    expect(subs).toEqual([]);
  });

  it("sells through the test checkout when TEST_CHECKOUT=true", async () => {
    const user = await signUp(on);
    const pricing = await (await fetch(`${on.url}/api/pricing`)).json();
    expect(pricing.checkout).toBe("test");
    const start = await user.json<{ url: string; checkoutId: string }>("/api/checkout", {
      productId: "starter",
    });
    expect(start.status).toBe(200);
    expect(start.body.url).toBe(`/checkout/test/${start.body.checkoutId}`);
    expect((await user.json(`/api/checkout/test/${start.body.checkoutId}/complete`, {})).status).toBe(200);
    expect(await getBalance(on.services.db, user.id)).toBe(10 + 40);
  });
});

describe("password policy", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const signUpWith = (email: string, password: string) =>
    fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.services.env.appUrl },
      body: JSON.stringify({ email, password, name: "Pat" }),
    });

  it("refuses a common password at sign-up with PASSWORD_TOO_COMMON, and creates no account", async () => {
    for (const password of ["password1", "Iloveyou", "12345678", "qwertyuiop"]) {
      const email = `common-${newId()}@example.com`;
      const res = await signUpWith(email, password);
      expect(res.status, password).toBe(400);
      const body = (await res.json()) as { code?: string; message?: string };
      expect(body.code, password).toBe("PASSWORD_TOO_COMMON");
      expect(body.message).toMatch(/too common/);
      const rows = await server.services.db.select().from(userTable).where(eq(userTable.email, email));
      expect(rows).toEqual([]);
    }
  });

  it("accepts a password that is not on the list, and refuses a common one as a new password", async () => {
    const email = `strong-${newId()}@example.com`;
    const res = await signUpWith(email, "plum-Orbit-47-lantern");
    expect(res.status).toBe(200);
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const change = (newPassword: string) =>
      fetch(`${server.url}/api/auth/change-password`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.services.env.appUrl, cookie },
        body: JSON.stringify({ currentPassword: "plum-Orbit-47-lantern", newPassword }),
      });
    const weak = await change("sunshine1");
    expect(weak.status).toBe(400);
    expect(((await weak.json()) as { code?: string }).code).toBe("PASSWORD_TOO_COMMON");
    expect((await change("violet-Harbor-93-comet")).status).toBe(200);
  });
});
