import { randomUUID } from 'node:crypto';
import { type DatabaseHandle, rowsOf } from '@payrail/db';
import { type MigratedTestDatabase, migratedTestDatabase } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MARK_RUN_ITEMS } from '../src/adapters/postgres/run-store';
import { billingSchedulerService } from '../src/service';

// A run claims thousands of installments at once, and their requests and outcomes are marked on its run
// items in batches. On a new database (statistics taken while `run_items` was empty, as after a deploy) the
// marks joined the batch with the whole table: the planner takes a JSON set for 100 rows, and hashing every
// run item looked cheaper than 100 lookups. Each batch then read the whole table (the first minute of the
// benchmark: a third of PostgreSQL's time). The marks must read run items by key whatever the statistics.

/** One connection: the setting and the prepared statement are its session's. */
let migrated: MigratedTestDatabase;
let database: DatabaseHandle;

beforeAll(async () => {
  migrated = await migratedTestDatabase('billing_mark_plan', billingSchedulerService);
  database = migrated.database;
});

afterAll(async () => {
  await migrated?.drop();
});

it('marks run items by key, in a generic plan made with the statistics of an empty table and 20,000 rows in it', async () => {
  const run = (text: string) => database.db.execute(sql.raw(text));
  await run('analyze billing_scheduler.run_items');
  await run(`insert into billing_scheduler.run_items (run_id, installment_id, attempt)
    select '${randomUUID()}'::uuid, g, 1 from generate_series(1, 20000) g`);
  const marks = JSON.stringify([
    { installmentId: 5, attempt: 1, requested: true },
    { installmentId: 6, attempt: 1, outcome: 'succeeded' },
  ]);
  // The plan a prepared statement keeps after its first executions (the services prepare it).
  await run('set plan_cache_mode = force_generic_plan');
  await run(`prepare mark(json) as ${MARK_RUN_ITEMS}`);
  const plan = JSON.stringify(rowsOf(await run(`explain (format json) execute mark('${marks}')`)));
  expect(plan).toContain('run_items');
  expect(plan).not.toMatch(/"Seq Scan"[^}]*"Relation Name":"run_items"/);

  // And it marks what it should.
  await run(`execute mark('${marks}')`);
  const rows = rowsOf<{ installment: number; requested: boolean; outcome: string | null }>(
    await run(`select installment_id::int as installment, requested_at is not null as requested, outcome
      from billing_scheduler.run_items where installment_id in (5, 6, 7) order by installment_id`),
  );
  expect(rows).toEqual([
    { installment: 5, requested: true, outcome: null },
    { installment: 6, requested: false, outcome: 'succeeded' },
    { installment: 7, requested: false, outcome: null },
  ]);
});
