import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';

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
  url?: string;
  /** Without a URL: embedded PGlite, kept in this folder (in memory when absent). */
  dataDir?: string;
  /** Pool size for postgres.js. */
  max?: number;
  /** A shared PGlite instance (the embedded mode runs every service on one). */
  pglite?: PGlite;
  /**
   * With a shared PGlite: the role the service's queries run as (`SET LOCAL ROLE` in each transaction).
   * `migrate()` creates it and grants it its own schema only, so one service cannot read another's tables.
   */
  role?: string;
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

export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  if (options.url) {
    const client = postgres(options.url, { max: options.max ?? 10, onnotice: () => {} });
    const db = drizzlePostgres(client) as unknown as Database;
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
        const single = postgres(options.url as string, { max: 1, onnotice: () => {} });
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
  const client = options.pglite ?? new PGlite(options.dataDir);
  const role = options.role;
  const db = drizzlePglite({
    client: (role ? actingAs(client, role) : client) as PGlite,
  }) as unknown as Database;
  return {
    db,
    driver: 'pglite',
    async listen(channel, onNotify, onListen) {
      const unlisten = await client.listen(channel, onNotify);
      onListen?.();
      return unlisten;
    },
    async ping() {
      await client.query('select 1');
    },
    async close() {
      // A shared instance is closed by whoever created it.
      if (!options.pglite) await client.close();
    },
    async migrate(migration) {
      // As the superuser: the first migration creates the schema. Then the role gets that schema alone.
      await migratePglite(drizzlePglite(client), migrationConfig(migration));
      if (role) await grantSchemaTo(client, migration.schema, role);
    },
  };
}

/**
 * A PGlite client whose every statement runs as `role`: a query alone becomes a one-statement
 * transaction that sets the role first, and a transaction sets it as its first statement (`SET LOCAL`:
 * the role ends with the transaction, so services sharing the one connection never see each other's).
 */
function actingAs(client: PGlite, role: string) {
  const setRole = `set local role "${role}"`;
  return {
    query: (query: string, params?: unknown[], options?: Record<string, unknown>) =>
      client.transaction(async (tx) => {
        await tx.exec(setRole);
        return tx.query(query, params, options);
      }),
    transaction: <T>(work: (tx: Parameters<Parameters<PGlite['transaction']>[0]>[0]) => Promise<T>) =>
      client.transaction(async (tx) => {
        await tx.exec(setRole);
        return work(tx);
      }),
  };
}

async function grantSchemaTo(client: PGlite, schema: string, role: string): Promise<void> {
  const quotedRole = `"${role.replace(/"/g, '""')}"`;
  const quotedSchema = `"${schema.replace(/"/g, '""')}"`;
  await client.exec(`
    do $$ begin
      if not exists (select from pg_roles where rolname = '${role.replace(/'/g, "''")}') then
        create role ${quotedRole} nologin;
      end if;
    end $$;
    grant usage on schema ${quotedSchema} to ${quotedRole};
    grant select, insert, update, delete, truncate, references, trigger
      on all tables in schema ${quotedSchema} to ${quotedRole};
    grant usage, select, update on all sequences in schema ${quotedSchema} to ${quotedRole};
    grant execute on all functions in schema ${quotedSchema} to ${quotedRole};
  `);
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
function migrationConfig(options: MigrationOptions) {
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

export { PGlite };
