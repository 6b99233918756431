import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RenderRequest, RenderResult } from "@/core/ports/renderer";
import { fixture, signUp, startTestServer, submit, waitForTask, type TestServer } from "./harness";

/** A render that never ends: the task times out and is refunded. */
const hangingRenderer = {
  id: "hanging",
  supports: () => true,
  render(_req: RenderRequest, signal?: AbortSignal): Promise<RenderResult> {
    return new Promise((_resolve, reject) => {
      signal?.addEventListener("abort", () => reject(new Error("aborted")));
    });
  },
};

interface Entry {
  kind: string;
  amount: number;
  source: string;
  effectId: string | null;
  productId: string | null;
}

/**
 * The account page names each credit movement in the reader's language from what the ledger
 * answer says it was for (not from the English note written with it): the source, the effect
 * of a charge or refund, the pack or plan of a purchase.
 */
describe("the credit history says what each entry was for", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ renderer: hangingRenderer, env: { TASK_TIMEOUT_SECONDS: "1" } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("welcome credits, a generation and its refund, a pack and a plan's monthly credits", async () => {
    const user = await signUp(server);
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-gta-style-filter",
    });
    expect(res.status).toBe(200);
    const taskId = res.body.data!.taskIds[0]!;
    await new Promise((r) => setTimeout(r, 1_200));
    await server.services.sweep();
    expect((await waitForTask(user, taskId, 2_000)).body).toMatchObject({ code: 2 });

    for (const productId of ["starter", "pro"]) {
      const start = await user.json<{ checkoutId: string }>("/api/checkout", { productId });
      expect(start.status).toBe(200);
      expect((await user.json(`/api/checkout/test/${start.body.checkoutId}/complete`, {})).status).toBe(200);
    }

    const ledger = await user.json<{ entries: Entry[] }>("/api/credits/ledger");
    const rows = ledger.body.entries.map((e) => [e.source, e.amount, e.effectId, e.productId]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ["welcome", 10, null, null],
        ["generation", -2, "gta-style-filter", null],
        ["refund", 2, "gta-style-filter", null],
        ["pack", 40, null, "starter"],
        ["subscription", 300, null, "pro"],
      ]),
    );
    expect(rows).toHaveLength(5);
  }, 60_000);
});
