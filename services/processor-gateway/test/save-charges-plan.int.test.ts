import { randomUUID } from 'node:crypto';
import { type DatabaseHandle, rowsOf } from '@payrail/db';
import { type MigratedTestDatabase, migratedTestDatabase } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SAVE_CHARGES } from '../src/adapters/postgres/charge-store';
import { processorGatewayService } from '../src/service';

// The charges of a batch are settled by one statement. Joined only with the JSON set of the batch (which
// the planner takes for 100 rows), the whole charges table was hashed for each batch while it was small or
// its statistics old: a new database, whose statistics were taken on an empty table. By key it must be.

/** One connection: the setting and the prepared statement are its session's. */
let migrated: MigratedTestDatabase;
let database: DatabaseHandle;

beforeAll(async () => {
  migrated = await migratedTestDatabase('pg_save_charges_plan', processorGatewayService);
  database = migrated.database;
});

afterAll(async () => {
  await migrated?.drop();
});

it('settles charges by key, in a generic plan made with the statistics of an empty table and 20,000 rows in it', async () => {
  const run = (text: string) => database.db.execute(sql.raw(text));
  await run('analyze processor_gateway.charges');
  await run(`insert into processor_gateway.charges (id, idempotency_key, merchant_id, kind, processor, reference,
      amount, currency, status, created_at, updated_at, next_check_at)
    select gen_random_uuid(), 'installment:' || g || ':attempt:1', '${randomUUID()}'::uuid, 'stored-card',
      'PARAGUAY.PROCESSOR_A', 'ref-' || g, 150000, 'PYG', 'pending', now(), now(), now()
    from generate_series(1, 20000) g`);
  const [charge] = rowsOf<Record<string, unknown>>(
    await run(`select * from processor_gateway.charges where reference = 'ref-7'`),
  );
  const settled = JSON.stringify([{ ...charge, status: 'succeeded', settled_at: new Date().toISOString() }]);
  // The plan a prepared statement keeps after its first executions (the service prepares it).
  await run('set plan_cache_mode = force_generic_plan');
  await run(`prepare save(json, uuid[]) as ${SAVE_CHARGES}`);
  const args = `'${settled}', '{${charge?.id}}'`;
  const plan = JSON.stringify(rowsOf(await run(`explain (format json) execute save(${args})`)));
  expect(plan).toContain('charges');
  expect(plan).not.toMatch(/"Seq Scan"[^}]*"Relation Name":"charges"/);

  await run(`execute save(${args})`);
  const statuses = rowsOf<{ status: string; count: number }>(
    await run(
      'select status, count(*)::int as count from processor_gateway.charges group by status order by status',
    ),
  );
  expect(statuses).toEqual([
    { status: 'pending', count: 19_999 },
    { status: 'succeeded', count: 1 },
  ]);
});
