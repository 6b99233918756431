import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerSum } from "@/core/credits";
import { countLiveUploads } from "@/core/uploads";
import { fixture, signUp, startTestServer, submit, waitForTask, type TestServer } from "./harness";

/**
 * The embedded path: the same flow on the embedded PostgreSQL (a child process started by
 * the server, its cluster in DATA_DIR/pg), stopped with the server.
 */
describe("embedded defaults smoke run (embedded PostgreSQL)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ database: "pglite" });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("runs PostgreSQL in DATA_DIR/pg, listening on loopback only", async () => {
    expect(server.services.database.kind).toBe("embedded");
    expect(fs.existsSync(path.join(server.dataDir, "pg", "PG_VERSION"))).toBe(true);
    const res = (await server.services.db.execute(
      sql`select current_setting('listen_addresses') as listen`,
    )) as unknown as { rows: Array<{ listen: string }> };
    expect(res.rows[0]).toEqual({ listen: "127.0.0.1" });
  });

  it("signs up, uploads, generates the mirror and settles credits", async () => {
    expect(server.services.database.kind).toBe("embedded");
    const user = await signUp(server);
    const input = fixture("object-coffee.png");
    const up = await user.upload(input, "coffee.png", "image/png");
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await waitForTask(user, res.body.data!.taskIds[0]!);
    expect(done.body.code).toBe(1);
    const out = await sharp(Buffer.from(await (await user.fetch(done.body.data.imageUrl!)).arrayBuffer()))
      .raw()
      .toBuffer();
    const expected = await sharp(input).flop().raw().toBuffer();
    expect(out.equals(expected)).toBe(true);
    expect((await user.json("/api/credits")).body).toEqual({ balance: 8 });
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
    await expect.poll(() => countLiveUploads(server.services.db, user.id)).toBe(0);
  });
});
