import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { Db } from "@/core/db";
import * as schema from "@/core/schema";
import type { DbLog } from "./embedded-postgres";

export interface DatabaseHandle {
  db: Db;
  /**
   * "embedded": PostgreSQL started by this process in DATA_DIR/pg (the default);
   * "postgres": the server at DATABASE_URL; "pglite": in-process PGlite (tests only).
   */
  kind: "embedded" | "postgres" | "pglite";
  close(): Promise<void>;
}

const MIGRATIONS = path.resolve(__dirname, "../../../drizzle");
/** Arbitrary constant: one advisory lock so concurrent starts migrate one at a time. */
const MIGRATION_LOCK = 72_616_001;

/**
 * Opens the database chosen by configuration and applies committed migrations.
 * DATABASE_URL set: node-postgres pool. Unset: the embedded PostgreSQL in `${dataDir}/pg`
 * (src/adapters/db/embedded-postgres.ts), into which a PGlite database left in
 * `${dataDir}/db` by earlier versions is copied once. `pglite` (tests): PGlite in memory
 * when dataDir is "memory://", else on disk in `${dataDir}/db` as earlier versions kept it.
 */
export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  poolSize?: number;
  pglite?: boolean;
  onIdleError?: (err: Error) => void;
  log?: DbLog;
}): Promise<DatabaseHandle> {
  const log: DbLog = opts.log ?? (() => {});
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts, "postgres");
  if (opts.pglite || opts.dataDir === "memory://") return openPglite(opts.dataDir);
  const { startEmbeddedPostgres } = await import("./embedded-postgres");
  const server = await startEmbeddedPostgres(opts.dataDir, log);
  try {
    const handle = await openPostgres(server.url, opts, "embedded");
    try {
      const { importPglite } = await import("./pglite-import");
      await importPglite({ dataDir: opts.dataDir, pool: handle.pool, migrationsFolder: MIGRATIONS, log });
    } catch (err) {
      await handle.close();
      throw err;
    }
    let closed = false;
    return {
      db: handle.db,
      kind: "embedded",
      close: async () => {
        if (closed) return;
        closed = true;
        await handle.close();
        await server.stop();
      },
    };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

async function openPostgres(
  url: string,
  opts: { poolSize?: number; onIdleError?: (err: Error) => void },
  kind: "postgres" | "embedded",
): Promise<DatabaseHandle & { pool: import("pg").Pool }> {
  const { Pool } = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  const pool = new Pool({ connectionString: url, max: opts.poolSize ?? 10 });
  // An idle connection dropped by the server (restart, failover) must not crash the
  // process: the pool replaces it on the next query.
  pool.on("error", (err) => opts.onIdleError?.(err));
  const db = drizzle(pool, { schema });
  // Migrate under a session-level advisory lock, on one dedicated connection.
  try {
    const client = await pool.connect();
    try {
      await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
      const lockedDb = drizzle(client, { schema });
      await migrate(lockedDb, { migrationsFolder: MIGRATIONS });
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  let ended = false;
  return {
    db: db as unknown as Db,
    kind,
    pool,
    close: async () => {
      if (ended) return;
      ended = true;
      await pool.end();
      // Connections still closing when the server stops are not "lost".
      pool.removeAllListeners("error");
      pool.on("error", () => {});
    },
  };
}

async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  let dir: string | undefined;
  if (dataDir !== "memory://") {
    dir = path.join(dataDir, "db");
    fs.mkdirSync(dir, { recursive: true });
  }
  const client = await PGlite.create(dir ? { dataDir: dir } : {});
  const db = drizzle(client, { schema });
  await migrate(db, { migrationsFolder: MIGRATIONS });
  let closed = false;
  return {
    db: db as unknown as Db,
    kind: "pglite",
    close: async () => {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}

/** Cheap readiness probe. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.execute(sql`select 1`);
}
