import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, rowsOf } from '../src/index';
import { openPgliteDatabase, PGlite } from '../src/pglite';

// The embedded mode keeps every service in one PGlite: each its own schema, its own migrations table, and
// its queries run as its own role that can use only that schema.
const folders = mkdtempSync(path.join(os.tmpdir(), 'payrail-shared-pglite-'));

/** A drizzle-kit style migrations folder creating `schema` with one table. */
function migrationsFor(schema: string): string {
  const folder = path.join(folders, schema);
  mkdirSync(path.join(folder, 'meta'), { recursive: true });
  writeFileSync(
    path.join(folder, 'meta', '_journal.json'),
    JSON.stringify({
      version: '7',
      dialect: 'postgresql',
      entries: [{ idx: 0, version: '7', when: 1_700_000_000_000, tag: '0000_init', breakpoints: true }],
    }),
  );
  writeFileSync(
    path.join(folder, '0000_init.sql'),
    `CREATE SCHEMA "${schema}";\n--> statement-breakpoint\nCREATE TABLE "${schema}"."things" ("id" serial PRIMARY KEY, "name" text NOT NULL);`,
  );
  return folder;
}

let pglite: PGlite;
let alpha: DatabaseHandle;
let beta: DatabaseHandle;

beforeAll(async () => {
  pglite = new PGlite();
  alpha = openPgliteDatabase({ pglite, role: 'payrail_alpha' });
  beta = openPgliteDatabase({ pglite, role: 'payrail_beta' });
  await alpha.migrate({ schema: 'alpha', migrationsFolder: migrationsFor('alpha') });
  await beta.migrate({ schema: 'beta', migrationsFolder: migrationsFor('beta') });
}, 60_000);

afterAll(async () => {
  await pglite?.close();
  rmSync(folders, { recursive: true, force: true });
});

describe('one PGlite for every service', () => {
  it('keeps each service’s migrations in its own table', async () => {
    const tables = rowsOf<{ table_name: string }>(
      await pglite.query(
        "select table_name from information_schema.tables where table_schema = 'drizzle' order by 1",
      ),
    ).map((row) => row.table_name);
    expect(tables).toEqual(['alpha_migrations', 'beta_migrations']);
  });

  it('lets a service use its own schema, in plain queries and in transactions', async () => {
    await alpha.db.execute(sql`insert into alpha.things (name) values ('mine')`);
    await alpha.db.transaction(async (tx) => {
      await tx.execute(sql`insert into alpha.things (name) values ('also mine')`);
    });
    const rows = rowsOf<{ name: string }>(
      await alpha.db.execute(sql`select name from alpha.things order by id`),
    );
    expect(rows.map((row) => row.name)).toEqual(['mine', 'also mine']);
  });

  it('refuses a service another service’s schema', async () => {
    /** Drizzle wraps the database's error; its cause is PostgreSQL's own. */
    const refusal = async (work: Promise<unknown>) => {
      const error = await work.then(
        () => undefined,
        (failure: Error & { cause?: Error }) => failure,
      );
      return error?.cause?.message ?? error?.message;
    };
    expect(await refusal(beta.db.execute(sql`select * from alpha.things`))).toMatch(/permission denied/);
    expect(
      await refusal(
        beta.db.transaction(async (tx) => {
          await tx.execute(sql`insert into alpha.things (name) values ('not yours')`);
        }),
      ),
    ).toMatch(/permission denied/);
    expect(await refusal(alpha.db.execute(sql`select * from beta.things`))).toMatch(/permission denied/);
  });

  it('leaves no role behind on the shared connection after a query', async () => {
    await beta.db.execute(sql`select 1`);
    const [row] = rowsOf<{ current_user: string }>(await pglite.query('select current_user'));
    expect(row?.current_user).toBe('postgres');
  });
});
