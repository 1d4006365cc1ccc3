// PostgreSQL through postgres.js. The embedded mode's PGlite is in `@payrail/db/pglite` (src/pglite.ts), so a
// service run as its own process does not load it (a 440 kB module compiled at every start).
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { preparingClient } from './prepared-statements';

export { isDatabaseUnavailable } from './unavailable';

/** A Drizzle database on either driver; services write their repositories against this type. */
export type Database = PgDatabase<PgQueryResultHKT>;
/** The transaction handed to `db.transaction(async (tx) => ...)`. */
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
/** Either the database or a transaction: repositories accept both. */
export type Executor = Database | Transaction;

export interface DatabaseHandle {
  db: Database;
  driver: 'postgres' | 'pglite';
  /**
   * Calls `onNotify` on every NOTIFY on `channel`; resolves to an unlisten function. `onListen` runs each
   * time the LISTEN is in place, the first time and after every reconnect (what was sent in between is
   * lost: a cache kept fresh by NOTIFY drops everything then).
   */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onListen?: () => void,
  ): Promise<() => Promise<void>>;
  /** Throws when the database does not answer (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Applies a service's migrations (see `runMigrations`). */
  migrate(options: MigrationOptions): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL: real PostgreSQL through postgres.js. */
  url: string;
  /** Pool size for postgres.js. */
  max?: number;
  /** Told the text of every statement sent, BEGIN and COMMIT included (tests counting round trips). */
  onQuery?: (text: string) => void;
}

/**
 * Creates the database a postgres:// URL names when the server does not have it yet (a first
 * `npm start` against a fresh server). True when it was created.
 */
export async function createDatabaseIfMissing(url: string): Promise<boolean> {
  const target = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await target`select 1`;
    return false;
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000') throw error;
  } finally {
    await target.end({ timeout: 5 });
  }
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const server = new URL(url);
  server.pathname = '/postgres';
  const sql = postgres(server.toString(), { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await sql.unsafe(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    return true;
  } catch (error) {
    // Another start created it in the meantime.
    if ((error as { code?: string }).code === '42P04') return false;
    throw error;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** A service's database on PostgreSQL (`@payrail/db/pglite` has the embedded one). */
export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  const { onQuery } = options;
  const client = postgres(options.url, {
    max: options.max ?? 10,
    onnotice: () => {},
    ...(onQuery ? { debug: (_connection: number, text: string) => onQuery(text) } : {}),
  });
  const db = drizzlePostgres(preparingClient(client)) as unknown as Database;
  return {
    db,
    driver: 'postgres',
    async listen(channel, onNotify, onListen) {
      const { unlisten } = await client.listen(channel, (payload) => onNotify(payload), onListen);
      return unlisten;
    },
    async ping() {
      await client`select 1`;
    },
    close: () => client.end({ timeout: 5 }),
    async migrate(migration) {
      // The advisory lock belongs to one session, so lock, migrate and unlock on a one-connection
      // client: replicas that start together then apply the migrations once. One lock for every
      // service, not one per schema: all of them keep their journal in the shared `drizzle` schema,
      // and two services creating it at once (a first `npm start` on an empty database) collide.
      const single = postgres(options.url, { max: 1, onnotice: () => {} });
      const key = 'payrail:migrations';
      try {
        await single`select pg_advisory_lock(hashtext(${key}))`;
        await migratePostgres(drizzlePostgres(single), migrationConfig(migration));
        await single`select pg_advisory_unlock(hashtext(${key}))`;
      } finally {
        await single.end({ timeout: 5 });
      }
    },
  };
}

export interface MigrationOptions {
  /** Folder with drizzle-kit's generated SQL and `meta/_journal.json`. */
  migrationsFolder: string;
  /** The service's own Postgres schema; its migrations table lives there too. */
  schema: string;
}

/**
 * Each service's migrations are tracked in its own table, `drizzle.<schema>_migrations`. The table sits
 * outside the service's schema because the first migration creates that schema itself.
 */
export function migrationConfig(options: MigrationOptions) {
  return {
    migrationsFolder: options.migrationsFolder,
    migrationsSchema: 'drizzle',
    migrationsTable: `${options.schema.replace(/-/g, '_')}_migrations`,
  };
}

/** Applies a service's migrations: drizzle-kit's generated SQL. */
export function runMigrations(handle: DatabaseHandle, options: MigrationOptions): Promise<void> {
  return handle.migrate(options);
}

/**
 * Runs a hand-written statement (`$1`, `$2`, ... parameters) as a prepared statement on either driver:
 * postgres.js prepares it once per connection (PostgreSQL parses and plans it once), and no query builder
 * runs per call. For the busiest statements; rows as objects, values as the driver gives them (bigint
 * columns may be strings, jsonb already parsed).
 */
export async function executePrepared<T>(
  executor: Executor,
  name: string,
  text: string,
  params: unknown[],
): Promise<T[]> {
  const query = executor._.session.prepareQuery({ sql: text, params }, undefined, name, false);
  return rowsOf<T>(await query.execute());
}

/** Rows of a raw `db.execute()` result, whichever driver produced it. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

/**
 * A PostgreSQL array literal of texts (`{"a","b\"c"}`), for a parameter cast to `text[]`: a batch of values
 * as one parameter, so the statement's text is the same whatever the batch's size (prepared once, and no
 * SQL is built per row). Every element is quoted; a backslash or a double quote in it is escaped.
 */
export function textArrayLiteral(values: readonly string[]): string {
  let literal = '{';
  for (let index = 0; index < values.length; index += 1) {
    if (index > 0) literal += ',';
    literal += `"${(values[index] as string).replace(/[\\"]/g, '\\$&')}"`;
  }
  return `${literal}}`;
}
