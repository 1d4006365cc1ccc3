import { randomUUID } from 'node:crypto';
import { type DatabaseHandle, rowsOf } from '@payrail/db';
import { countUpdates, type MigratedTestDatabase, migratedTestDatabase } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresChargeAttemptStore } from '../src/adapters/postgres/charge-attempt-store';
import { installmentChargeKey } from '@payrail/contracts';
import { subscriptionsService } from '../src/service';

// An attempt is written when its charge is requested and updated once with the outcome, in no indexed
// column. With room on its page the update is a heap-only tuple (no new entry in the table's four indexes);
// pages filled to 100 % (the default) made most of them full updates. Migration 0006 leaves 60 % of each page
// free. Attempts are recorded and settled as the consumers do: 50 at a time, each batch its own transaction.

let migrated: MigratedTestDatabase;
let database: DatabaseHandle;

beforeAll(async () => {
  migrated = await migratedTestDatabase('subscriptions_attempts_room', subscriptionsService);
  database = migrated.database;
});

afterAll(async () => {
  await migrated?.drop();
});

it('settles charge attempts as heap-only updates (no new index entries)', async () => {
  const attempts = 2_000;
  const merchantId = randomUUID();
  const paymentMethodId = randomUUID();
  const requestedAt = new Date('2026-03-10T12:00:00Z');
  const batches = Array.from({ length: attempts / 50 }, (_, batch) =>
    Array.from({ length: 50 }, (_, index) => batch * 50 + index + 1),
  );
  for (const installmentIds of batches)
    await database.db.transaction(async (tx) => {
      // The attempts alone: no subscription or installment rows for their foreign keys to check.
      await tx.execute(sql`set local session_replication_role = replica`);
      await postgresChargeAttemptStore(tx).recordAttempts(
        installmentIds.map((installmentId) => ({
          installmentId,
          subscriptionId: installmentId,
          merchantId,
          attempt: 1,
          idempotencyKey: installmentChargeKey(installmentId, 1),
          runId: null,
          paymentMethodId,
          processor: null,
          amount: '150000.00',
          currency: 'PYG',
          status: 'requested',
          requestedAt,
          settledAt: null,
          chargeId: null,
          declineCode: null,
          category: null,
          nextAttemptOn: null,
        })),
      );
    });

  let updates = 0;
  let heapOnly = 0;
  for (const installmentIds of batches)
    await database.db.transaction(async (tx) => {
      const counted = await countUpdates(tx, 'subscriptions', 'charge_attempts', () =>
        postgresChargeAttemptStore(tx).settleAttempts(
          installmentIds.map((installmentId) => ({
            installmentId,
            attempt: 1,
            outcome: {
              status: 'succeeded' as const,
              chargeId: randomUUID(),
              processor: 'PARAGUAY.PROCESSOR_A',
              settledAt: new Date('2026-03-10T12:00:05Z'),
              declineCode: null,
              category: null,
            },
          })),
        ),
      );
      updates += counted.updates;
      heapOnly += counted.heapOnly;
    });

  const [settled] = rowsOf<{ count: number }>(
    await database.db.execute(sql`select count(*)::int as count from subscriptions.charge_attempts
      where merchant_id = ${merchantId} and status = 'succeeded' and settled_at is not null`),
  );
  expect(settled?.count).toBe(attempts);
  expect(updates).toBe(attempts);
  // Every update found room on its page (a quarter did at the default fill).
  expect(heapOnly / updates).toBeGreaterThan(0.95);
});
