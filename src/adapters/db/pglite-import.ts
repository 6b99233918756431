import fs from "node:fs";
import path from "node:path";
import type pg from "pg";
import type { DbLog } from "./embedded-postgres";

/**
 * One-time move of a PGlite database (the embedded default before the embedded PostgreSQL,
 * `DATA_DIR/db`) into the embedded PostgreSQL. Both sides are migrated to the current
 * schema first; every table of the public schema is then copied row for row (JSON batches
 * through json_populate_recordset, so every type round-trips through its own text form),
 * foreign keys unchecked during the copy (session_replication_role = replica), then the
 * sequences are set to PGlite's values, the row counts compared, and a marker written, all
 * in one transaction. Only after it commits is the old folder renamed `db.migrated-<time>`;
 * it is never deleted. A crash between the commit and the rename is finished at the next
 * start (the marker says the copy is done).
 */

const BATCH = 500;
const MARKER_SCHEMA = "photofx_embedded";

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function hasPgliteDatabase(dataDir: string): boolean {
  return fs.existsSync(path.join(dataDir, "db", "PG_VERSION"));
}

function renameAside(dataDir: string, log: DbLog): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const to = path.join(dataDir, `db.migrated-${stamp}`);
  fs.renameSync(path.join(dataDir, "db"), to);
  log(
    "info",
    `the PGlite database in ${path.join(dataDir, "db")} was copied into the embedded PostgreSQL and kept as ${to}`,
  );
  return to;
}

/** Copies DATA_DIR/db into the (migrated) database behind `pool`; a no-op when there is none. */
export async function importPglite(opts: {
  dataDir: string;
  pool: pg.Pool;
  migrationsFolder: string;
  log: DbLog;
}): Promise<{ tables: number; rows: number } | null> {
  const { dataDir, pool, log } = opts;
  if (!hasPgliteDatabase(dataDir)) return null;
  const target = await pool.connect();
  try {
    await target.query(`create schema if not exists ${MARKER_SCHEMA}`);
    await target.query(
      `create table if not exists ${MARKER_SCHEMA}.pglite_import (source text not null, rows bigint not null, at timestamptz not null default now())`,
    );
    const done = await target.query(`select 1 from ${MARKER_SCHEMA}.pglite_import limit 1`);
    if (done.rowCount) {
      // Copied by an earlier start that stopped before the rename.
      renameAside(dataDir, log);
      return null;
    }
    const users = await target.query(`select count(*)::int as n from "user"`);
    if (users.rows[0].n > 0)
      throw new Error(
        `${path.join(dataDir, "db")} holds a PGlite database but the embedded PostgreSQL in ${path.join(dataDir, "pg")} already holds accounts: move one of the two folders aside`,
      );

    log("info", `copying the PGlite database in ${path.join(dataDir, "db")} into the embedded PostgreSQL`);
    const { PGlite } = await import("@electric-sql/pglite");
    const { drizzle } = await import("drizzle-orm/pglite");
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    const source = await PGlite.create({ dataDir: path.join(dataDir, "db") });
    try {
      await migrate(drizzle(source), { migrationsFolder: opts.migrationsFolder });
      const tables = (
        await source.query<{ name: string }>(
          `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
           where n.nspname = 'public' and c.relkind in ('r', 'p') order by c.relname`,
        )
      ).rows.map((r) => r.name);
      let total = 0;
      await target.query("begin");
      await target.query("set local session_replication_role = replica");
      for (const table of tables) {
        // The target's insertable columns (stored generated columns are computed again).
        const cols = (
          await target.query<{ name: string }>(
            `select a.attname as name from pg_attribute a
             where a.attrelid = $1::regclass and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
             order by a.attnum`,
            [`public.${ident(table)}`],
          )
        ).rows.map((r) => ident(r.name));
        if (!cols.length) continue;
        const list = cols.join(", ");
        let copied = 0;
        for (let offset = 0; ; offset += BATCH) {
          const rows = (
            await source.query<{ j: string }>(
              `select coalesce(json_agg(t), '[]')::text as j from (select * from public.${ident(table)} order by ctid limit ${BATCH} offset ${offset}) t`,
            )
          ).rows[0]!.j;
          const n = (
            await target.query(
              `insert into public.${ident(table)} (${list}) overriding system value
               select ${list} from json_populate_recordset(null::public.${ident(table)}, $1::json)`,
              [rows],
            )
          ).rowCount!;
          copied += n;
          if (n < BATCH) break;
        }
        const expected = (
          await source.query<{ n: number }>(`select count(*)::int as n from public.${ident(table)}`)
        ).rows[0]!.n;
        if (copied !== expected) throw new Error(`copying ${table}: ${copied} rows of ${expected}`);
        total += copied;
      }
      const sequences = (
        await source.query<{ name: string; last: string | null; called: boolean }>(
          `select sequencename as name, last_value::text as last, last_value is not null as called
           from pg_sequences where schemaname = 'public'`,
        )
      ).rows;
      for (const s of sequences) {
        if (s.last === null) continue;
        await target.query(`select setval($1::regclass, $2::bigint, $3)`, [
          `public.${ident(s.name)}`,
          s.last,
          s.called,
        ]);
      }
      await target.query(`insert into ${MARKER_SCHEMA}.pglite_import (source, rows) values ($1, $2)`, [
        path.join(dataDir, "db"),
        total,
      ]);
      await target.query("commit");
      log("info", "copied the PGlite database", {
        tables: tables.length,
        rows: total,
        sequences: sequences.length,
      });
      await source.close();
      renameAside(dataDir, log);
      return { tables: tables.length, rows: total };
    } catch (err) {
      await target.query("rollback").catch(() => {});
      await source.close().catch(() => {});
      throw err;
    }
  } finally {
    target.release();
  }
}
