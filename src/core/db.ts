import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema";

/**
 * The Drizzle database every domain function receives: the query layer over the domain's
 * schema (./schema.ts), whatever the driver. Connections, drivers and migrations are the
 * adapters' (src/adapters/db): PGlite or node-postgres, both typed as this.
 */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** A transaction handle, as `db.transaction(async (tx) => …)` passes it. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
