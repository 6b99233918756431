import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { Db } from "@/core/db";
import * as schema from "@/core/schema";

export interface DatabaseHandle {
  db: Db;
  /** "pglite" (embedded) or "postgres". */
  kind: "pglite" | "postgres";
  close(): Promise<void>;
}

const MIGRATIONS = path.resolve(__dirname, "../../../drizzle");
/** Arbitrary constant: one advisory lock so concurrent starts migrate one at a time. */
const MIGRATION_LOCK = 72_616_001;

/**
 * Opens the database chosen by configuration and applies committed migrations.
 * DATABASE_URL set: node-postgres pool. Unset: embedded PGlite stored in `${dataDir}/db`
 * (or in memory when dataDir is "memory://", for tests).
 */
export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  poolSize?: number;
  onIdleError?: (err: Error) => void;
}): Promise<DatabaseHandle> {
  if (opts.databaseUrl) {
    const { Pool } = await import("pg");
    const { drizzle } = await import("drizzle-orm/node-postgres");
    const { migrate } = await import("drizzle-orm/node-postgres/migrator");
    const pool = new Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
    // An idle connection dropped by the server (restart, failover) must not crash the
    // process: the pool replaces it on the next query.
    pool.on("error", (err) => opts.onIdleError?.(err));
    const db = drizzle(pool, { schema });
    // Migrate under a session-level advisory lock, on one dedicated connection.
    const client = await pool.connect();
    try {
      await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
      const lockedDb = drizzle(client, { schema });
      await migrate(lockedDb, { migrationsFolder: MIGRATIONS });
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
      client.release();
    }
    return { db: db as unknown as Db, kind: "postgres", close: () => pool.end() };
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  let dataDir: string | undefined;
  if (opts.dataDir !== "memory://") {
    dataDir = path.join(opts.dataDir, "db");
    fs.mkdirSync(dataDir, { recursive: true });
  }
  const client = await PGlite.create(dataDir ? { dataDir } : {});
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
