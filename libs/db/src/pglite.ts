// The embedded mode's database: PGlite (PostgreSQL compiled to WebAssembly) in this process. Apart from
// `@payrail/db` so that a service run as its own process on PostgreSQL never loads it.
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { type Database, type DatabaseHandle, migrationConfig } from './index';

export interface PgliteDatabaseOptions {
  /** Where PGlite keeps its files (in memory when absent and no `pglite` is given). */
  dataDir?: string;
  /** A shared PGlite instance (the embedded mode runs every service on one). */
  pglite?: PGlite;
  /**
   * With a shared PGlite: the role the service's queries run as (`SET LOCAL ROLE` in each transaction).
   * `migrate()` creates it and grants it its own schema only, so one service cannot read another's tables.
   */
  role?: string;
}

/** A service's database on PGlite. */
export function openPgliteDatabase(options: PgliteDatabaseOptions = {}): DatabaseHandle {
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

export { PGlite };
