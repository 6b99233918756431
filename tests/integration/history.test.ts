import { eq, sql } from "drizzle-orm";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, ledgerSum } from "@/core/credits";
import { newId } from "@/core/ids";
import { image, shareLink, task } from "@/core/schema";
import {
  fixture,
  signUp,
  startTestServer,
  submit,
  waitForTask,
  type TestServer,
  type TestUser,
} from "./harness";
import { startComfyUIFake, type ComfyUIFake } from "./fakes/comfyui-fake";
import { post, taskIdsOf, uploadUrl } from "./spec-client";

interface Item {
  id: string;
  taskId: string;
  batchId: string;
  batchSize: number;
  effectId: string;
  url: string;
  createdAt: string;
  share: { token: string } | null;
}
interface Page {
  items: Item[];
  nextCursor: string | null;
}

/** One submit of `photos` to the mirror effect (fast, exact); waits for every task. */
async function makeBatch(user: TestUser, photos: string[]): Promise<string[]> {
  const urls: string[] = [];
  for (const p of photos) {
    const up = await user.upload(fixture(p), p, p.endsWith(".png") ? "image/png" : "image/jpeg");
    expect(up.status).toBe(200);
    urls.push(up.body.url!);
  }
  const res = await submit(user, { image_urls: urls, imageType: "nano-banana-lora-inverted-face-filter" });
  expect(res.status).toBe(200);
  const taskIds = res.body.data!.taskIds;
  for (const id of taskIds) expect((await waitForTask(user, id, 60_000)).body.code).toBe(1);
  return taskIds;
}

/** Writes results straight into the tables (no file behind them): for pages and filters. */
async function seedResults(
  server: TestServer,
  userId: string,
  rows: Array<{ effectId: string; createdAt: Date; batchId?: string; micros?: number }>,
): Promise<string[]> {
  const db = server.services.db;
  const ids: string[] = [];
  for (const r of rows) {
    const taskId = newId();
    const imageId = newId();
    await db.insert(task).values({
      id: taskId,
      userId,
      effectId: r.effectId,
      imageType: `nano-banana-lora-${r.effectId}`,
      route: "v1",
      seed: 1,
      state: "succeeded",
      credits: 2,
      dedupeKey: `seed-${taskId}`,
      batchId: r.batchId ?? null,
      deadlineAt: new Date(Date.now() + 60_000),
      createdAt: r.createdAt,
    });
    await db.insert(image).values({
      id: imageId,
      taskId,
      userId,
      storageKey: `images/seeded-${imageId}`,
      mime: "image/png",
      width: 10,
      height: 10,
      seed: 1,
      sourceUrls: [],
      provider: "local",
      model: "seed",
      createdAt: r.createdAt,
    });
    // Postgres keeps microseconds (a JS Date does not): results made within one millisecond.
    if (r.micros)
      await db
        .update(image)
        .set({ createdAt: sql`${image.createdAt} + make_interval(secs => ${r.micros / 1e6})` })
        .where(eq(image.id, imageId));
    ids.push(imageId);
  }
  return ids;
}

async function allPages(user: TestUser, query: string): Promise<Item[]> {
  const out: Item[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 20; i++) {
    const q: string = `/api/history?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await user.json<Page>(q);
    expect(page.status).toBe(200);
    expect(page.body.items.length).toBeLessThanOrEqual(24);
    out.push(...page.body.items);
    cursor = page.body.nextCursor;
    if (!cursor) return out;
  }
  throw new Error("more than 20 pages");
}

describe("history, deletion, share links and batch ZIPs (Postgres)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { SIGNUP_CREDITS: "40" } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("lists the user's results newest first, filters by effect, and pages through all of them without gaps or repeats", async () => {
    const user = await signUp(server);
    const other = await signUp(server);
    const base = Date.now() - 3_600_000;
    // 30 results: in fours within one millisecond (microseconds apart, pairs at the same
    // microsecond, where the id breaks the tie), so a cursor must keep both.
    const seeded = await seedResults(
      server,
      user.id,
      Array.from({ length: 30 }, (_, i) => ({
        effectId: i % 3 === 0 ? "pixel-illustration" : "coloring-page",
        createdAt: new Date(base + Math.floor(i / 4) * 1000),
        micros: ((i % 4) >> 1) * 250,
      })),
    );
    await seedResults(server, other.id, [{ effectId: "coloring-page", createdAt: new Date(base) }]);

    const first = await user.json<Page>("/api/history");
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(24);
    expect(first.body.nextCursor).toBeTruthy();

    const all = await allPages(user, "limit=7");
    expect(all).toHaveLength(30);
    expect(new Set(all.map((i) => i.id))).toEqual(new Set(seeded));
    const times = all.map((i) => Date.parse(i.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(all[0]).toMatchObject({ url: `/api/images/${all[0]!.id}`, batchSize: 1, share: null });

    const pixel = await allPages(user, "effect=pixel-illustration&limit=4");
    expect(pixel).toHaveLength(10);
    expect(pixel.every((i) => i.effectId === "pixel-illustration")).toBe(true);

    for (const bad of [
      "limit=25",
      "limit=0",
      "limit=abc",
      "effect=not-an-effect",
      "cursor=nonsense",
      `cursor=${Buffer.from("2024-01-01T00:00:00Z|x").toString("base64url")}`,
    ]) {
      const res = await user.json(`/api/history?${bad}`);
      expect(res.status, bad).toBe(400);
    }
    expect((await fetch(`${server.url}/api/history`)).status).toBe(401);
  });

  it("deletes a result for real: its file URL answers 404, its file and record are gone, and it is the owner's alone", async () => {
    const user = await signUp(server);
    const stranger = await signUp(server);
    const [taskId] = await makeBatch(user, ["portrait-female-1.jpg"]);
    const list = await user.json<Page>("/api/history?effect=inverted-face-filter");
    const item = list.body.items.find((i) => i.taskId === taskId)!;
    expect(item).toBeTruthy();
    expect((await user.fetch(item.url)).status).toBe(200);
    const [row] = await server.services.db.select().from(image).where(eq(image.id, item.id));
    expect(await server.services.storage.exists(row!.storageKey)).toBe(true);
    // A signed URL (what a provider or a link gets) works now, and must not after the delete.
    const signed = server.services.signer.sign("images", item.id, 600);
    expect((await fetch(`${server.url}${signed}`)).status).toBe(200);

    // Someone else's id: 404, and nothing happens to it.
    expect((await stranger.fetch(`/api/history/${item.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await user.fetch(item.url)).status).toBe(200);
    // A state-changing call from another site is refused.
    const cross = await user.fetch(`/api/history/${item.id}`, {
      method: "DELETE",
      headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(cross.status).toBe(403);
    expect((await user.fetch(item.url)).status).toBe(200);

    const del = await user.fetch(`/api/history/${item.id}`, { method: "DELETE" });
    expect(del.status).toBe(204);
    expect((await user.fetch(item.url)).status).toBe(404);
    expect((await fetch(`${server.url}${signed}`)).status).toBe(404);
    expect(await server.services.storage.exists(row!.storageKey)).toBe(false);
    expect(await server.services.db.select().from(image).where(eq(image.id, item.id))).toHaveLength(0);
    const after = await user.json<Page>("/api/history");
    expect(after.body.items.some((i) => i.id === item.id)).toBe(false);
    // Again: the same state, answered 404 (no such result any more); malformed ids too.
    expect((await user.fetch(`/api/history/${item.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await user.fetch(`/api/history/bad%00id`, { method: "DELETE" })).status).toBe(404);
    expect((await fetch(`${server.url}/api/history/${item.id}`, { method: "DELETE" })).status).toBe(401);
  }, 120_000);

  it("shares a result through a public link that works signed out, and stops working once revoked or deleted", async () => {
    const user = await signUp(server);
    const stranger = await signUp(server);
    const [taskId] = await makeBatch(user, ["portrait-male-1.jpg"]);
    const item = (await user.json<Page>("/api/history")).body.items.find((i) => i.taskId === taskId)!;
    const own = Buffer.from(await (await user.fetch(item.url)).arrayBuffer());

    expect((await stranger.json(`/api/history/${item.id}/share`, {})).status).toBe(404);
    const made = await user.json<{ token: string; url: string }>(`/api/history/${item.id}/share`, {});
    expect(made.status).toBe(200);
    const token = made.body.token;
    // At least 128 random bits: 32 base64url characters are 192.
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(made.body.url).toBe(`/s/${token}`);
    // One live link per result: asking again gives the same one.
    expect((await user.json<{ token: string }>(`/api/history/${item.id}/share`, {})).body.token).toBe(token);
    const listed = (await user.json<Page>("/api/history")).body.items.find((i) => i.id === item.id)!;
    expect(listed.share?.token).toBe(token);

    // Signed out, no cookie: the image loads through the share URL, the owner's file URL does not.
    const publicImg = await fetch(`${server.url}/api/share/${token}/image`);
    expect(publicImg.status).toBe(200);
    expect(publicImg.headers.get("content-type")).toMatch(/^image\//);
    expect(Buffer.from(await publicImg.arrayBuffer()).equals(own)).toBe(true);
    expect((await fetch(`${server.url}${item.url}`)).status).toBe(404);
    const guessed = token.slice(0, 31) + (token[31] === "A" ? "B" : "A");
    expect((await fetch(`${server.url}/api/share/${guessed}/image`)).status).toBe(404);

    // Only the owner revokes; then the link is dead, and a new link is a new token.
    expect((await stranger.fetch(`/api/history/${item.id}/share`, { method: "DELETE" })).status).toBe(404);
    expect((await fetch(`${server.url}/api/share/${token}/image`)).status).toBe(200);
    expect((await user.fetch(`/api/history/${item.id}/share`, { method: "DELETE" })).status).toBe(204);
    expect((await fetch(`${server.url}/api/share/${token}/image`)).status).toBe(404);
    expect((await user.fetch(`/api/history/${item.id}/share`, { method: "DELETE" })).status).toBe(204);
    const again = await user.json<{ token: string }>(`/api/history/${item.id}/share`, {});
    expect(again.body.token).not.toBe(token);
    expect((await fetch(`${server.url}/api/share/${again.body.token}/image`)).status).toBe(200);

    // Deleting the result deletes its links.
    expect((await user.fetch(`/api/history/${item.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await fetch(`${server.url}/api/share/${again.body.token}/image`)).status).toBe(404);
    const links = await server.services.db.select().from(shareLink).where(eq(shareLink.imageId, item.id));
    expect(links).toHaveLength(0);
  }, 120_000);

  it("zips a batch's results, named by the batch or by one of its tasks, with only the caller's images", async () => {
    const user = await signUp(server);
    const stranger = await signUp(server);
    const taskIds = await makeBatch(user, ["portrait-female-1.jpg", "pet-1-cat.png"]);
    expect(taskIds).toHaveLength(2);
    const items = (await user.json<Page>("/api/history")).body.items.filter((i) =>
      taskIds.includes(i.taskId),
    );
    expect(items).toHaveLength(2);
    const batchId = items[0]!.batchId;
    expect(items[1]!.batchId).toBe(batchId);
    expect(items.every((i) => i.batchSize === 2)).toBe(true);
    const expected = new Set<string>();
    for (const i of items)
      expected.add(Buffer.from(await (await user.fetch(i.url)).arrayBuffer()).toString("base64"));

    // A row of someone else's that claims the same batch id must never end up in the ZIP.
    await seedResults(server, stranger.id, [
      { effectId: "inverted-face-filter", createdAt: new Date(), batchId },
    ]);
    const strangerBatch = await makeBatch(stranger, ["portrait-male-2.jpg"]);

    for (const query of [`batch=${batchId}`, `task=${taskIds[1]}`]) {
      const res = await user.fetch(`/api/history/zip?${query}`);
      expect(res.status, query).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/zip");
      expect(res.headers.get("content-disposition")).toMatch(
        /^attachment; filename="photofx_inverted-face-filter_\d{8}_\d{6}\.zip"$/,
      );
      const entries = unzipSync(new Uint8Array(await res.arrayBuffer()));
      const names = Object.keys(entries);
      expect(names).toHaveLength(2);
      for (const n of names) expect(n).toMatch(/^inverted-face-filter_\d{8}_\d{6}_[12]\.\w+$/);
      expect(new Set(Object.values(entries).map((b) => Buffer.from(b).toString("base64")))).toEqual(expected);
    }

    // Someone else's batch or task: 404, as an unknown one.
    const outsider = await signUp(server);
    expect((await outsider.fetch(`/api/history/zip?batch=${batchId}`)).status).toBe(404);
    expect((await stranger.fetch(`/api/history/zip?task=${taskIds[0]}`)).status).toBe(404);
    // The stranger's own row under that batch id gives them their row alone (its file does not
    // exist, so an empty ZIP), never the user's images.
    const theirs = await stranger.fetch(`/api/history/zip?batch=${batchId}`);
    expect(Object.keys(unzipSync(new Uint8Array(await theirs.arrayBuffer())))).toHaveLength(0);
    expect((await user.fetch(`/api/history/zip?task=${strangerBatch[0]}`)).status).toBe(404);
    expect((await user.fetch(`/api/history/zip?batch=${newId()}`)).status).toBe(404);
    expect((await user.fetch(`/api/history/zip`)).status).toBe(400);
    expect((await user.fetch(`/api/history/zip?batch=${batchId}&task=${taskIds[0]}`)).status).toBe(400);
    expect((await fetch(`${server.url}/api/history/zip?batch=${batchId}`)).status).toBe(401);

    // A deleted result leaves the batch's ZIP (and its size) at once.
    expect((await user.fetch(`/api/history/${items[0]!.id}`, { method: "DELETE" })).status).toBe(204);
    const rest = unzipSync(
      new Uint8Array(await (await user.fetch(`/api/history/zip?batch=${batchId}`)).arrayBuffer()),
    );
    expect(Object.keys(rest)).toHaveLength(1);
    const left = (await user.json<Page>("/api/history")).body.items.find((i) => i.id === items[1]!.id)!;
    expect(left.batchSize).toBe(1);
  }, 180_000);
});

describe("re-running a free-form result from the history", () => {
  let comfy: ComfyUIFake;
  let server: TestServer;
  let localOnly: TestServer;
  beforeAll(async () => {
    comfy = await startComfyUIFake();
    server = await startTestServer({
      env: { COMFYUI_URL: comfy.url, ENGINE_RETRY_BASE_MS: "20", ENGINE_BREAKER_THRESHOLD: "1000" },
    });
    localOnly = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
    await localOnly?.close();
    await comfy?.close();
  });

  const taskRow = async (s: TestServer, id: string) =>
    (await s.services.db.select().from(task).where(eq(task.id, id)))[0]!;
  const rerun = (user: TestUser, imageId: string, key: string) =>
    post(user, `/api/results/${imageId}/rerun`, {}, { "idempotency-key": key });

  it("asks a free-form edit again with the same instruction, shape, model and seed, charged as a new submit", async () => {
    const user = await signUp(server);
    await user.json("/api/account/preferences", { keepOriginals: true }, { method: "PUT" });
    const made = await post(user, "/api/img/create", {
      prompt: "Paint the cat in the style of a stained-glass window",
      image_urls: [await uploadUrl(user, "pet-1-cat.png")],
      dimension: "4:3",
      model: "nano-banana-2",
      seed: 11,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.code).toBe(1);
    const [item] = (await user.json<Page>("/api/history")).body.items;
    expect(item!.effectId).toBe("free-form");
    const before = comfy.prompts.length;

    const again = await rerun(user, item!.id, "ff-1");
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const [newTask] = taskIdsOf(again.body);
    expect((await waitForTask(user, newTask!, 60_000)).body.code).toBe(1);
    const [first, second] = await Promise.all([taskRow(server, item!.taskId), taskRow(server, newTask!)]);
    expect(second).toMatchObject({
      effectId: "free-form",
      route: "create:v2",
      prompt: "Paint the cat in the style of a stained-glass window",
      options: { aspectRatio: "4:3" },
      seed: 11,
    });
    expect(second!.route).toBe(first!.route);
    // The same kind of backend got the same instruction on the same photo.
    const job = comfy.prompts.slice(before).at(-1)!.prompt;
    const nodes = Object.values(job);
    expect(nodes.filter((n) => n.class_type === "LoadImage")).toHaveLength(1);
    expect(
      nodes.some(
        (n) =>
          n.class_type === "TextEncodeQwenImageEditPlus" &&
          String(n.inputs.prompt).includes("stained-glass window"),
      ),
    ).toBe(true);
    expect(await getBalance(server.services.db, user.id)).toBe(6);
    expect(await ledgerSum(server.services.db, user.id)).toBe(6);
  }, 120_000);

  it("asks a text-to-image result again without any original photo", async () => {
    const user = await signUp(server);
    const made = await post(user, "/api/img/create", {
      prompt: "A tiny house in a glass bottle",
      dimension: "9:16",
      seed: 3,
    });
    expect(made.body.code).toBe(1);
    const [item] = (await user.json<Page>("/api/history")).body.items;
    expect(item!.effectId).toBe("text-to-image");
    const again = await rerun(user, item!.id, "t2i-1");
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const [newTask] = taskIdsOf(again.body);
    expect((await waitForTask(user, newTask!, 60_000)).body.code).toBe(1);
    expect(await taskRow(server, newTask!)).toMatchObject({
      effectId: "text-to-image",
      route: "create",
      prompt: "A tiny house in a glass bottle",
      options: { aspectRatio: "9:16" },
      seed: 3,
    });
    expect(await getBalance(server.services.db, user.id)).toBe(6);
    // Someone else's result is not found, and costs them nothing.
    const other = await signUp(server);
    expect((await rerun(other, item!.id, "t2i-2")).status).toBe(404);
    expect(await getBalance(server.services.db, other.id)).toBe(10);
  }, 120_000);

  it("is refused, translated and before any charge, once the server has no generative engine", async () => {
    const user = await signUp(localOnly);
    const db = localOnly.services.db;
    // A text-to-image result made while the server still had one (written as the task system does).
    const taskId = newId();
    const imageId = newId();
    await db.insert(task).values({
      id: taskId,
      userId: user.id,
      effectId: "text-to-image",
      imageType: "text-to-image",
      route: "create-v2",
      prompt: "A fox in the snow",
      options: { aspectRatio: "1:1" },
      seed: 5,
      state: "succeeded",
      credits: 2,
      dedupeKey: `seed-${taskId}`,
      deadlineAt: new Date(Date.now() + 60_000),
    });
    await db.insert(image).values({
      id: imageId,
      taskId,
      userId: user.id,
      storageKey: `images/seeded-${imageId}`,
      mime: "image/png",
      width: 10,
      height: 10,
      seed: 5,
      sourceUrls: [],
      provider: "comfyui",
      model: "qwen-image-lightning",
    });
    const res = await rerun(user, imageId, "gone-1");
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ messageKey: "noGenerativeEngine" });
    expect(res.body.message).toMatch(/no generative image engine/);
    expect(await getBalance(db, user.id)).toBe(10);
    expect(await db.select().from(task).where(eq(task.userId, user.id))).toHaveLength(1);
  });
});
