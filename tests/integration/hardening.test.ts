import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerSum } from "@/core/credits";
import {
  fixture,
  signUp,
  solveBotCheck,
  startTestServer,
  submit,
  waitForTask,
  type TestServer,
} from "./harness";

/** Holes from the security review (the hardening issue), one test each. */
describe("hardening", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it("answers 400, not 500, to a NUL byte in the prompt, and keeps the bot-check token unspent", async () => {
    const user = await signUp(server);
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const token = await solveBotCheck(server);
    const bad = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-y2k-style-ai",
      prompt: "neon\u0000pink",
      turnstileToken: token,
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ messageKey: "promptControl" });
    expect(await ledgerSum(server.services.db, user.id)).toBe(10);
    // The same token still works: nothing was spent on the refused request.
    const ok = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-y2k-style-ai",
      prompt: "neon\npink",
      turnstileToken: token,
    });
    expect(ok.status).toBe(200);
    expect((await waitForTask(user, ok.body.data!.taskIds[0]!)).body.code).toBe(1);
  }, 60_000);

  it("answers 400, not 500, to a NUL byte in a task id, and 404 to one in a checkout id", async () => {
    const user = await signUp(server);
    const post = await user.json("/api/img/nano-banana/taskResult", { taskId: "abc\u0000def" });
    expect(post.status).toBe(400);
    const get = await user.fetch(`/api/img/nano-banana/taskEvents?taskId=${encodeURIComponent("abc\u0000")}`);
    expect(get.status).toBe(400);
    const checkout = await user.fetch(`/api/checkout/${encodeURIComponent("x\u0000y")}`);
    expect(checkout.status).toBe(404);
  });
});
