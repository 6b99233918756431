import { expect } from "vitest";
import { fixture, solveBotCheck, type TestUser } from "./harness";

/**
 * The spec's client as it calls the other model routes and the generic generate payload
 * (section 7, issue 19), and as it reads their answers: shared by the tests of those routes
 * on every backend (img-compat, providers-*).
 */

export type Body = Record<string, unknown> & {
  code?: number;
  status?: number;
  message?: string;
  messageKey?: string;
  taskId?: string;
  imageUrl?: string | null;
  imgAfterSrc?: string | null;
  url?: string | null;
  failedReason?: string | null;
  failedCode?: string | null;
  data?: {
    taskIds?: string[];
    taskId?: string;
    imageUrl?: string | null;
    imgAfterSrc?: string | null;
    url?: string | null;
    results?: Array<{ taskId: string; imageUrl: string | null; code: number; failedReason: string | null }>;
    succeeded?: number;
    failed?: number;
  };
};

/** The spec's readings: "data.taskIds array, or data.taskId, or taskId". */
export const taskIdsOf = (b: Body): string[] =>
  b.data?.taskIds ?? (b.data?.taskId ? [b.data.taskId] : b.taskId ? [b.taskId] : []);
/** "code or status" 1 or 2; anything else keeps polling. */
export const outcomeOf = (b: Body): 1 | 2 | null =>
  b.code === 1 || b.status === 1 ? 1 : b.code === 2 || b.status === 2 ? 2 : null;
/** "data.imageUrl, data.imgAfterSrc, imageUrl, url". */
export const imageOf = (b: Body): string | null | undefined =>
  b.data?.imageUrl ?? b.data?.imgAfterSrc ?? b.imageUrl ?? b.url;

/** Uploads a fixture photo; its URL, as image_urls takes it. */
export async function uploadUrl(user: TestUser, name = "portrait-female-1.jpg"): Promise<string> {
  const up = await user.upload(fixture(name), name, name.endsWith(".png") ? "image/png" : "image/jpeg");
  expect(up.status).toBe(200);
  return up.body.url!;
}

/** POSTs a payload with a solved bot-check token (unless the payload sets one). */
export async function post(user: TestUser, path: string, payload: Record<string, unknown>, headers = {}) {
  const token = "turnstileToken" in payload ? payload.turnstileToken : await solveBotCheck(user.server);
  return user.json<Body>(path, { ...payload, turnstileToken: token }, { headers });
}

/** Polls a result route until code or status is 1 or 2, as the spec's client does. */
export async function poll(user: TestUser, path: string, taskId: string, timeoutMs = 60_000): Promise<Body> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await user.json<Body>(path, { taskId });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    if (outcomeOf(r.body)) return r.body;
    if (Date.now() > until) throw new Error(`${taskId} still pending on ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The URL is one of our stored images, served to its owner. */
export async function expectImage(user: TestUser, url: string | null | undefined): Promise<void> {
  expect(url).toMatch(/^\/api\/images\//);
  const res = await user.fetch(url!);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^image\//);
}
