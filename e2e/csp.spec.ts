import { expect, test } from "@playwright/test";
import { photo, signUpViaApi, uploadPhotos } from "./helpers";

const scriptSrc = (policy: string) =>
  policy
    .split(";")
    .map((d) => d.trim())
    .find((d) => d.startsWith("script-src ")) ?? "";

test("pages run only scripts carrying the response's own nonce: Next.js's scripts have it, a new one each time", async ({
  request,
}) => {
  for (const path of ["/en", "/en/nano-banana-lora/gta-style-filter", "/en/sign-in", "/en/pricing"]) {
    const first = await request.get(path);
    const policy = first.headers()["content-security-policy"] ?? "";
    const nonce = /'nonce-([^']+)'/.exec(scriptSrc(policy))?.[1];
    expect(nonce, path).toBeTruthy();
    expect(scriptSrc(policy), path).toContain("'strict-dynamic'");
    expect(scriptSrc(policy), path).not.toContain("'unsafe-inline'");
    expect(policy, path).toContain("frame-ancestors 'none'");
    // Every executable script in the HTML carries it (JSON-LD data blocks do not execute).
    const html = await first.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]!);
    const executable = scripts.filter((attrs) => !/type="application\/ld\+json"/.test(attrs));
    expect(executable.length, path).toBeGreaterThan(0);
    for (const attrs of executable) expect(attrs, path).toContain(`nonce="${nonce}"`);
    const again = await request.get(path);
    expect(again.headers()["content-security-policy"], path).not.toContain(`'nonce-${nonce}'`);
  }
});

test("the effect page works under the policy: no violation while a free user uploads, passes the bot-check and creates", async ({
  page,
}) => {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content.Security.Policy|Refused to (load|execute|create)/i.test(m.text())) violations.push(m.text());
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`Content Security Policy violation: ${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await page.goto("/");
  await signUpViaApi(page);
  await page.goto("/en/nano-banana-lora/inverted-face-filter");
  await uploadPhotos(page, [photo("pet-1-cat.png")]);
  await page.getByTestId("create-button").click();
  // The browser solves ALTCHA's proof of work in a worker the policy must allow; the submit
  // then follows by itself.
  await expect(page.getByRole("dialog", { name: "Quick check" })).toBeVisible();
  await expect(page.getByTestId("result-card")).toHaveCount(1, { timeout: 60_000 });
  expect(violations).toEqual([]);
});
