import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { asUser, fixture, signUp, startTestServer, submit, waitForTask, type TestServer } from "./harness";

/**
 * Upgrading a machine on embedded defaults: its DATA_DIR holds the PGlite database of
 * earlier versions (DATA_DIR/db); the first start on the embedded PostgreSQL copies it, keeps
 * the old folder renamed, and later starts do not copy again.
 */
describe("embedded PostgreSQL: a PGlite DATA_DIR migrates on start", () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    // The first server made the DATA_DIR: its close() removes it, after the others stop.
    for (const s of servers.slice(1)) await s.stop();
    await servers[0]?.close();
  });

  it("keeps accounts, sessions, balances, ledgers and results, once", async () => {
    // Before: the earlier embedded default, PGlite on disk in DATA_DIR/db.
    const old = await startTestServer({ database: "pglite", pgliteOnDisk: true });
    servers.push(old);
    expect(old.services.database.kind).toBe("pglite");
    const user = await signUp(old);
    const idle = await signUp(old);
    const up = await user.upload(fixture("object-coffee.png"), "coffee.png", "image/png");
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await waitForTask(user, res.body.data!.taskIds[0]!);
    expect(done.body.code).toBe(1);
    const before = {
      balance: (await user.json("/api/credits")).body,
      ledger: (await user.json("/api/credits/ledger")).body,
      images: (await user.json("/api/images")).body,
      idleBalance: (await idle.json("/api/credits")).body,
    };
    expect(before.balance).toEqual({ balance: 8 });
    const resultBytes = Buffer.from(await (await user.fetch(done.body.data.imageUrl!)).arrayBuffer());
    await old.stop();
    expect(fs.existsSync(path.join(old.dataDir, "db", "PG_VERSION"))).toBe(true);

    // First start on the embedded PostgreSQL: copied, old folder renamed, never deleted.
    const next = await startTestServer({ database: "pglite", reuse: { dataDir: old.dataDir } });
    servers.push(next);
    expect(next.services.database.kind).toBe("embedded");
    expect(fs.existsSync(path.join(old.dataDir, "db"))).toBe(false);
    const kept = fs.readdirSync(old.dataDir).filter((n) => n.startsWith("db.migrated-"));
    expect(kept).toHaveLength(1);
    expect(fs.existsSync(path.join(old.dataDir, kept[0]!, "PG_VERSION"))).toBe(true);

    // The session from before still works; signing in with the password works too.
    const sameSession = asUser(next, user.cookie, user.email, user.id);
    expect((await sameSession.json("/api/credits")).body).toEqual(before.balance);
    const signIn = await fetch(`${next.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: next.services.env.appUrl },
      body: JSON.stringify({ email: user.email, password: "correct-horse-battery" }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const again = asUser(next, cookie, user.email, user.id);
    expect((await again.json("/api/credits")).body).toEqual(before.balance);
    expect((await again.json("/api/credits/ledger")).body).toEqual(before.ledger);
    expect((await again.json("/api/images")).body).toEqual(before.images);
    expect((await asUser(next, idle.cookie, idle.email, idle.id).json("/api/credits")).body).toEqual(
      before.idleBalance,
    );
    const imageUrl = (before.images as { images: Array<{ url: string }> }).images[0]!.url;
    expect(Buffer.from(await (await again.fetch(imageUrl)).arrayBuffer()).equals(resultBytes)).toBe(true);

    // Sequences came along: new ledger rows (a new account's grant, a new charge) insert.
    const newcomer = await signUp(next);
    expect((await newcomer.json("/api/credits")).body).toEqual({ balance: 10 });
    const up2 = await again.upload(fixture("object-coffee.png"), "coffee.png", "image/png");
    const res2 = await submit(again, {
      image_urls: [up2.body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    expect(res2.status, JSON.stringify(res2.body)).toBe(200);
    expect((await waitForTask(again, res2.body.data!.taskIds[0]!)).body.code).toBe(1);
    expect((await again.json("/api/credits")).body).toEqual({ balance: 6 });
    await next.stop();

    // A second start does not copy again: the data stays as it is, one kept folder.
    const third = await startTestServer({ database: "pglite", reuse: { dataDir: old.dataDir } });
    servers.push(third);
    expect(fs.readdirSync(old.dataDir).filter((n) => n.startsWith("db.migrated-"))).toEqual(kept);
    const last = asUser(third, cookie, user.email, user.id);
    expect((await last.json("/api/credits")).body).toEqual({ balance: 6 });
    expect(((await last.json("/api/credits/ledger")).body as { entries: unknown[] }).entries).toHaveLength(
      (before.ledger as { entries: unknown[] }).entries.length + 1,
    );
    const proc = fs.readFileSync(path.join(old.dataDir, "pg", "postmaster.pid"), "utf8").split("\n");
    expect(Number(proc[0])).toBeGreaterThan(0);
    await third.stop();
    // Stopped with the server: no postgres process left on this DATA_DIR.
    expect(fs.existsSync(path.join(old.dataDir, "pg", "postmaster.pid"))).toBe(false);
    expect(() => process.kill(Number(proc[0]), 0)).toThrow();
  }, 180_000);
});
