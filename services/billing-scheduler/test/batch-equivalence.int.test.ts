import { randomUUID } from 'node:crypto';
import { createEvent, type EventEnvelope } from '@payrail/contracts';
import { type DatabaseHandle, openDatabase } from '@payrail/db';
import { createTestDatabase, type TestDatabase, testClock } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installmentOf, numberInData } from '../src/adapters/messaging/lock-order';
import { postgresRunStore } from '../src/adapters/postgres/run-store';
import { billingStores } from '../src/adapters/postgres/stores';
import {
  projectInstallmentEvent,
  projectInstallmentEventBatch,
} from '../src/application/project-installment-events';
import { recordChargeOutcome, recordChargeOutcomeBatch } from '../src/application/record-charge-outcome';
import { claimRun } from '../src/application/run-billing';
import { billingSchedulerService } from '../src/service';
import {
  aSubscription,
  chargeRequested,
  chargeSkipped,
  installmentPaid,
  installmentsEvent,
  paymentFailed,
  paymentSucceeded,
  subscriptionCreated,
  subscriptionStatus,
  type TestSubscription,
} from './support';

/**
 * The batch path against the single path: the same mixed batches, sorted as the consumers sort them, applied
 * to two databases holding the same rows, one through `recordChargeOutcomeBatch` / `projectInstallmentEventBatch`
 * in one transaction, the other message by message through `recordChargeOutcome` / `projectInstallmentEvent`
 * in one transaction. Every row of the projection, the run items and the outbox must come out the same.
 */
const clock = testClock(new Date('2026-12-10T15:00:00Z'));
const runId = randomUUID();
let batched: { testDatabase: TestDatabase; database: DatabaseHandle };
let single: { testDatabase: TestDatabase; database: DatabaseHandle };

async function open(prefix: string) {
  const testDatabase = await createTestDatabase(prefix);
  const database = openDatabase({ url: testDatabase.url, max: 2 });
  if (billingSchedulerService.database) await database.migrate(billingSchedulerService.database);
  return { testDatabase, database };
}

beforeAll(async () => {
  [batched, single] = await Promise.all([open('billing_batched'), open('billing_single')]);
});

afterAll(async () => {
  for (const copy of [batched, single]) {
    await copy?.database.close();
    await copy?.testDatabase.drop();
  }
});

type Message = { type: string; body: string };
const asMessage = (event: EventEnvelope): Message => ({ type: event.type, body: JSON.stringify(event) });

/** Stable sort by the consumer's lock order, as the unit of work hands a batch over. */
function sorted(events: EventEnvelope[], key: (message: Message) => number): Message[] {
  return events
    .map((event, index) => ({ message: asMessage(event), index }))
    .map((item) => ({ ...item, key: key(item.message) }))
    .sort((a, b) => a.key - b.key || a.index - b.index)
    .map((item) => item.message);
}

const inContext = (message: Message) => ({ message, run: <T>(work: () => T) => work() });

async function projectOneByOne(database: DatabaseHandle, messages: Message[]) {
  await database.db.transaction(async (tx) => {
    const store = billingStores(tx);
    for (const message of messages) await projectInstallmentEvent(store, message);
  });
}

/** Both copies: the same rows, the same run claimed. */
async function seed(subscriptions: TestSubscription[]) {
  const events = subscriptions.flatMap((subscription) => [
    subscriptionCreated(subscription),
    subscriptionStatus(subscription, 'subscription.activated'),
  ]);
  for (const { database } of [batched, single]) {
    await projectOneByOne(database, events.map(asMessage));
    await claimRun(
      {
        runs: postgresRunStore(database.db),
        clock,
        simulatedTime: true,
        batchSize: 500,
        lockWaitMs: 0,
        reclaimAfterMs: 4 * 60 * 60 * 1000,
        logger: { warn: () => {} },
      },
      { id: runId, trigger: 'operator', asOf: '2026-12-10', merchantId: null, startedAt: clock.now() },
    );
  }
}

/** What a copy holds, without what differs by nature (the moment a transaction ran, random event ids). */
async function contents(database: DatabaseHandle) {
  const rows = async (query: ReturnType<typeof sql>) => {
    const result = (await database.db.execute(query)) as unknown;
    return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<
      string,
      unknown
    >[];
  };
  return {
    subscriptions: await rows(sql`
      select subscription_id::text, merchant_id, status, timezone
      from billing_scheduler.subscriptions order by subscription_id`),
    installments: await rows(sql`
      select installment_id::text, subscription_id::text, merchant_id, number, payment_date::text,
             due_on::text, attempt, state, first_attempt_on::text, last_run_id, last_attempt_on::text,
             claimed_at
      from billing_scheduler.installments order by installment_id`),
    runItems: await rows(sql`
      select run_id, installment_id::text, attempt, outcome, requested_at is not null as requested,
             settled_at is not null as settled
      from billing_scheduler.run_items order by installment_id, attempt, run_id`),
    outbox: (await rows(sql`select body from billing_scheduler.outbox`))
      .map((row) => {
        const { id: _id, ...event } = JSON.parse(row.body as string) as EventEnvelope;
        return JSON.stringify(event);
      })
      .sort(),
  };
}

function installmentFailed(subscription: TestSubscription, installmentId: number): EventEnvelope {
  const {
    paidAt: _paidAt,
    method: _m,
    bankReference: _b,
    paidCount: _c,
    paidTotal: _t,
    ...snapshot
  } = installmentPaid(subscription, installmentId).data as Record<string, unknown>;
  return createEvent(
    'installment.failed',
    {
      ...snapshot,
      status: 'failed',
      failedAt: clock.now().toISOString(),
      attempts: 4,
      declineCode: '51',
      category: 'soft',
    } as never,
    clock.now(),
  );
}

/** A payment of a link's charge: its key names no installment. */
function linkPaymentSucceeded(subscription: TestSubscription): EventEnvelope {
  const event = paymentSucceeded(subscription, 1, 1);
  return { ...event, data: { ...event.data, idempotencyKey: `link:${randomUUID()}` } } as EventEnvelope;
}

const second = (subscription: TestSubscription) => subscription.installments[1]?.installmentId as number;
const third = (subscription: TestSubscription) => subscription.installments[2]?.installmentId as number;

describe('a consumer batch applied together leaves what its messages one by one leave', () => {
  it('charge outcomes, then paid and failed installments, mixed with every other kind', async () => {
    const merchantId = randomUUID();
    const s = Array.from({ length: 12 }, () =>
      aSubscription({ merchantId, timezone: 'UTC', dates: ['2026-12-10', '2027-01-10'] }),
    ) as [TestSubscription, ...TestSubscription[]];
    const sub = (index: number) => s[index] as TestSubscription;
    await seed(s);

    const outcomes: EventEnvelope[] = [
      chargeRequested(sub(0), second(sub(0)), 1),
      paymentSucceeded(sub(1), second(sub(1)), 1),
      chargeRequested(sub(2), second(sub(2)), 1),
      paymentFailed(sub(3), second(sub(3)), 1, 'hard'),
      paymentSucceeded(sub(0), second(sub(0)), 1),
      paymentSucceeded(sub(1), second(sub(1)), 1),
      paymentFailed(sub(2), second(sub(2)), 1, 'soft'),
      // After the decline, in the same batch: applied after it, whatever path each goes.
      paymentSucceeded(sub(2), second(sub(2)), 1),
      chargeSkipped(
        sub(4),
        { runId, installmentId: second(sub(4)), attempt: 1 },
        'card-attempt-cap',
        '2026-12-12',
      ),
      paymentSucceeded(sub(5), second(sub(5)), 2),
      paymentSucceeded(sub(6), second(sub(6)), 1),
      paymentFailed(sub(6), second(sub(6)), 1, 'soft'),
      chargeRequested(sub(7), second(sub(7)), 1),
      chargeRequested(sub(8), second(sub(8)), 3),
      linkPaymentSucceeded(sub(9)),
      chargeSkipped(sub(9), { runId, installmentId: second(sub(9)), attempt: 1 }, 'not-pending', null, {
        installmentStatus: 'paid',
        attemptStatus: 'succeeded',
      }),
      chargeRequested(sub(10), second(sub(10)), 1),
      paymentSucceeded(sub(10), second(sub(10)), 1),
      chargeRequested(sub(10), second(sub(10)), 1),
      paymentSucceeded(sub(11), second(sub(11)), 1),
    ];
    const outcomeBatch = sorted(outcomes, (message) => installmentOf(message.body));
    await batched.database.db.transaction((tx) =>
      recordChargeOutcomeBatch(billingStores(tx), clock, outcomeBatch.map(inContext)),
    );
    await single.database.db.transaction(async (tx) => {
      const store = billingStores(tx);
      for (const message of outcomeBatch) await recordChargeOutcome(store, clock, message);
    });
    const afterOutcomes = await contents(single.database);
    expect(await contents(batched.database)).toEqual(afterOutcomes);
    // The batch did what it is meant to: successes paid, a retry and a give-up announced.
    expect(afterOutcomes.installments.filter((row) => row.state === 'paid').length).toBeGreaterThanOrEqual(4);
    const types = afterOutcomes.outbox.map((event) => (JSON.parse(event) as EventEnvelope).type);
    expect(types).toEqual(
      expect.arrayContaining(['installment.retry-scheduled', 'installment.dunning-exhausted']),
    );

    const projection: EventEnvelope[] = [
      installmentPaid(sub(7), second(sub(7))),
      installmentPaid(sub(0), second(sub(0))),
      installmentFailed(sub(3), second(sub(3))),
      installmentsEvent(sub(4), 'installments.updated', [
        { installmentId: second(sub(4)), paymentDate: '2026-12-20' },
      ]),
      installmentPaid(sub(4), third(sub(4))),
      subscriptionStatus(sub(5), 'subscription.cancelled'),
      installmentPaid(sub(5), second(sub(5))),
      installmentPaid(sub(7), second(sub(7))),
      installmentPaid(sub(8), third(sub(8))),
      installmentPaid(sub(11), 900_000_000 + second(sub(11))),
      installmentsEvent(sub(11), 'installments.cancelled', [{ installmentId: third(sub(11)) }]),
      installmentPaid(sub(11), third(sub(11))),
      installmentFailed(sub(2), second(sub(2))),
    ];
    const projectionBatch = sorted(projection, (message) => numberInData(message.body, 'subscriptionId'));
    await batched.database.db.transaction((tx) =>
      projectInstallmentEventBatch(billingStores(tx), projectionBatch.map(inContext)),
    );
    await projectOneByOne(single.database, projectionBatch);
    const afterProjection = await contents(single.database);
    expect(await contents(batched.database)).toEqual(afterProjection);
    expect(afterProjection.installments).not.toEqual(afterOutcomes.installments);
  });
});
