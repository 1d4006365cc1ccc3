import { randomUUID } from 'node:crypto';
import { type DatabaseHandle, rowsOf } from '@payrail/db';
import { type MigratedTestDatabase, migratedTestDatabase } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { claimFilter } from '../src/adapters/postgres/run-store';
import { billingSchedulerService } from '../src/service';

// A run claims what is due in batches of 500, and asks whether anything is left (`hasUnclaimed`) while
// other transactions hold rows. The day an installment is due by depends on its subscription's time zone,
// so the claim's bound was a join condition only: every batch read the whole projection (220,000 rows at
// the bench's size, most of them months ahead), a quarter to half a second of PostgreSQL each. The claim
// must read the scheduled rows' index up to the latest zone's day.

let migrated: MigratedTestDatabase;
let database: DatabaseHandle;

beforeAll(async () => {
  migrated = await migratedTestDatabase('billing_claim_plan', billingSchedulerService);
  database = migrated.database;
});

afterAll(async () => {
  await migrated?.drop();
});

it('claims off the scheduled rows’ index, not by reading every installment, and finds what is due in each zone', async () => {
  const run = (text: string) => database.db.execute(sql.raw(text));
  const merchant = randomUUID();
  // 10,000 subscriptions in two zones, 20 installments each: one month due, the rest paid or months ahead.
  await run(`insert into billing_scheduler.subscriptions (subscription_id, merchant_id, status, timezone)
    select g, '${merchant}', 'active', case when g % 2 = 0 then 'America/Asuncion' else 'Asia/Tokyo' end
    from generate_series(1, 10000) g`);
  await run(`insert into billing_scheduler.installments
      (installment_id, subscription_id, merchant_id, number, payment_date, due_on, state)
    select s * 100 + n, s, '${merchant}', n, d, d, case when n < 6 then 'paid' else 'scheduled' end
    from generate_series(1, 10000) s, generate_series(2, 21) n,
         lateral (select date '2026-01-10' + make_interval(months => n - 2) as d0) m,
         lateral (select m.d0::date as d) day`);
  await run('analyze billing_scheduler.installments');
  await run('analyze billing_scheduler.subscriptions');

  const { dueRows, scheduledRows } = claimFilter({
    runId: randomUUID(),
    trigger: 'operator',
    asOf: '2026-05-10',
    merchantId: null,
    upTo: { 'America/Asuncion': '2026-05-10', 'Asia/Tokyo': '2026-05-11' },
    limit: 500,
    startedAt: new Date(),
    reclaimClaimedBefore: new Date(Date.now() - 4 * 3_600_000),
  });
  const query = sql`select i.installment_id, s.timezone ${dueRows} order by i.due_on, i.installment_id limit 500`;
  const plan = JSON.stringify(rowsOf(await database.db.execute(sql`explain (format json) ${query}`)));
  expect(plan).toContain('installments_scheduled_due_idx');
  expect(plan).not.toMatch(/"Seq Scan"[^}]*"Relation Name":"installments"/);

  // A batch of scheduled rows reads them in the index's order and stops at the batch's size: no sort of
  // every due row (10,000 here) for each batch of 500.
  const batch = sql`select i.installment_id ${scheduledRows} order by i.due_on, i.installment_id limit 500
    for update of i skip locked`;
  const analyzed = JSON.stringify(
    rowsOf(await database.db.execute(sql`explain (analyze, format json) ${batch}`)),
  );
  expect(analyzed).not.toContain('"Node Type":"Sort"');
  const readByIndex = [
    ...analyzed.matchAll(/"Index Name":"installments_scheduled_due_idx"[^}]*?"Actual Rows":(\d+)/g),
  ];
  expect(readByIndex.length).toBe(1);
  expect(Number(readByIndex[0]?.[1])).toBeLessThanOrEqual(1_000);

  // Number 6 (due 2026-05-10) of each subscription: the scheduled ones due by the zone's day, none later.
  const due = rowsOf<{ number: number; count: number }>(
    await database.db.execute(
      sql`select i.number, count(*)::int as count ${dueRows} group by i.number order by i.number`,
    ),
  );
  expect(due).toEqual([{ number: 6, count: 10_000 }]);
});
