import { randomUUID } from 'node:crypto';
import { type DatabaseHandle, rowsOf } from '@payrail/db';
import { countUpdates, type MigratedTestDatabase, migratedTestDatabase } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresRunStore } from '../src/adapters/postgres/run-store';
import type { RunItemMark } from '../src/ports/run-store';
import { billingSchedulerService } from '../src/service';

// A run item is written at the claim and updated twice (requested, then its outcome), never in an indexed
// column. With room on its page each update is a heap-only tuple (no new entry in the table's three
// indexes); pages filled to 100 % (the default) made most of them full updates. Migration 0003 leaves 60 %
// of each page free. The marks come as the consumer sends them: 50 at a time, each batch its own transaction.

let migrated: MigratedTestDatabase;
let database: DatabaseHandle;

beforeAll(async () => {
  migrated = await migratedTestDatabase('billing_run_items_room', billingSchedulerService);
  database = migrated.database;
});

afterAll(async () => {
  await migrated?.drop();
});

it('marks run items requested as heap-only updates (no new index entries), then settled', async () => {
  const runId = randomUUID();
  const items = 2_000;
  await database.db.execute(
    sql.raw(`insert into billing_scheduler.run_items (run_id, installment_id, attempt)
      select '${runId}', g, 1 from generate_series(1, ${items}) g`),
  );
  // Heap-only updates of each pass: [updates, heap-only].
  const passes: Array<[number, number]> = [];
  const marks: Array<(installmentId: number) => RunItemMark> = [
    (installmentId) => ({ installmentId, attempt: 1, requested: true }),
    (installmentId) => ({ installmentId, attempt: 1, outcome: 'succeeded', runId }),
  ];
  for (const mark of marks) {
    let updates = 0;
    let heapOnly = 0;
    for (let first = 1; first <= items; first += 50) {
      await database.db.transaction(async (tx) => {
        const ids = Array.from({ length: 50 }, (_, index) => first + index);
        const counted = await countUpdates(tx, 'billing_scheduler', 'run_items', () =>
          postgresRunStore(tx).markRunItems(ids.map(mark)),
        );
        updates += counted.updates;
        heapOnly += counted.heapOnly;
      });
    }
    passes.push([updates, heapOnly]);
  }
  const [settled] = rowsOf<{ count: number }>(
    await database.db.execute(sql`select count(*)::int as count from billing_scheduler.run_items
      where run_id = ${runId} and requested_at is not null and outcome = 'succeeded'`),
  );
  expect(settled?.count).toBe(items);
  expect(passes.map(([updates]) => updates)).toEqual([items, items]);
  // The first update of every item finds room on its page: all heap-only (about half at the default fill).
  // The second needs the first's dead versions pruned (mostly heap-only too, fewer while another
  // transaction's snapshot still sees them): not asserted.
  const [requested] = passes;
  expect((requested?.[1] ?? 0) / items).toBeGreaterThan(0.95);
});
