import { randomUUID } from 'node:crypto';
import type { EventData, EventEnvelope, MerchantContext } from '@payrail/contracts';
import { createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import { context, contextFromHeaders, startTelemetry } from '@payrail/observability';
import {
  aMerchant,
  deleteBrokerTopology,
  type ServiceUnderTest,
  startService,
  testAmqpUrl,
  testClock,
  uniqueName,
} from '@payrail/testing';
import type { SimulatedClock } from '@payrail/time';
import { asc, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargeAttempts, installments, outbox, subscriptions } from '../src/adapters/postgres/schema';
import { subscriptionStores } from '../src/adapters/postgres/stores';
import {
  type ChargeOutcomeResult,
  type OfBatch,
  recordChargeSucceeded,
  recordChargesSucceeded,
} from '../src/application/record-charge-outcome';
import { installmentChargeKey } from '@payrail/contracts';
import { subscriptionsService } from '../src/service';
import { aCard, chargeDue, eventsAbout, paymentSucceeded } from './debit-support';
import { activeSubscription, countingStores, type PaidWithCard, publishAndWait } from './support';
import { CONSUMERS } from '../../../scripts/processes';

/**
 * `recordChargesSucceeded` (the batch of `payment.succeeded`) against `recordChargeSucceeded` called one
 * payment after the other: the same mixed batch on two copies of the same data, the same rows and events.
 */
let bus: MessageBus;
let svc: ServiceUnderTest;
let clock: SimulatedClock;
const exchange = uniqueName('paid_batch_test');
const queuePrefix = `${uniqueName('paid_batch_test')}.`;

beforeAll(async () => {
  bus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix });
  clock = testClock(new Date('2026-02-10T15:00:00Z'));
  svc = await startService(subscriptionsService, { bus, clock });
});
afterAll(async () => {
  await svc?.stop();
  await bus?.close();
  const consumers = CONSUMERS.filter((consumer) => consumer.startsWith('subscriptions.'));
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    consumers.map((consumer) => `${queuePrefix}${consumer}`),
  );
});

type InstallmentRow = typeof installments.$inferSelect;

/** One copy of the data: a merchant's five subscriptions, each on its own card. */
interface Copy {
  merchant: MerchantContext;
  cards: PaidWithCard[];
  subscriptionIds: number[];
  linkIds: number[];
  installments: InstallmentRow[][];
}

const OTHER_MERCHANT = randomUUID();

async function subscribed(merchant: MerchantContext, card: PaidWithCard, k: number, totalPeriods: number) {
  return activeSubscription(
    svc,
    merchant,
    {
      customIdentifier: `CI-${k}`,
      recurrence: {
        type: 'STATIC',
        installmentAmount: '150000.00',
        totalPeriods,
        dayOfMonth: 10,
        monthForSecondInstallment: 1,
      },
    },
    card,
  );
}

async function charge(merchant: MerchantContext, row: InstallmentRow) {
  await publishAndWait(svc, chargeDue(merchant, row));
  const [requested] = await eventsAbout(svc, 'charge.requested', row.id);
  if (!requested) throw new Error(`installment ${row.id} not charged`);
  return requested;
}

/**
 * S0: STATIC of 4, installments 2 and 3 charged. S1: STATIC of 2, its last installment charged. S2: STATIC
 * of 3 past due (installment 2 charged, then failed), installment 3 charged. S3: STATIC of 4, installment 2
 * charged, then the subscription cancelled. S4: STATIC of 3, installment 2 paid already, with a second
 * attempt in flight (a double charge).
 */
async function scenario(): Promise<Copy> {
  const merchant = aMerchant();
  const cards = [0, 1, 2, 3, 4].map(() => aCard());
  const made: Array<Awaited<ReturnType<typeof subscribed>>> = [];
  for (const [k, periods] of [4, 2, 3, 4, 3].entries()) {
    made.push(await subscribed(merchant, cards[k] as PaidWithCard, k, periods));
  }
  const row = (k: number, number: number) => made[k]?.installments[number - 1] as InstallmentRow;
  await charge(merchant, row(0, 2));
  await charge(merchant, row(0, 3));
  await charge(merchant, row(1, 2));
  await charge(merchant, row(2, 2));
  await charge(merchant, row(2, 3));
  const db = svc.database.db;
  // Failed with a retry day still on it: the payment that comes late clears it.
  await db
    .update(installments)
    .set({ status: 'failed', nextAttemptOn: '2026-03-01' })
    .where(eq(installments.id, row(2, 2).id));
  const pastDue = made[2]?.subscription.id as number;
  await db.update(subscriptions).set({ status: 'past_due' }).where(eq(subscriptions.id, pastDue));
  await charge(merchant, row(3, 2));
  const cancelled = await svc.request('POST', '/api/subscriptions/cancel-all', {
    merchant,
    body: { customIdentifier: 'CI-3' },
  });
  expect(cancelled.status).toBe(200);
  const paidBefore = paymentSucceeded(await charge(merchant, row(4, 2)), cards[4] as PaidWithCard);
  paidBefore.data.chargeId = CHARGE_PAID_BEFORE;
  await publishAndWait(svc, paidBefore);
  const [first] = await db
    .select()
    .from(chargeAttempts)
    .where(eq(chargeAttempts.installmentId, row(4, 2).id));
  if (!first) throw new Error('no attempt');
  const { id: _id, ...attempt } = first;
  await db.insert(chargeAttempts).values({
    ...attempt,
    attempt: 2,
    idempotencyKey: installmentChargeKey(first.installmentId, 2),
    status: 'requested',
    settledAt: null,
    chargeId: null,
  });
  const subscriptionIds = made.map((m) => m.subscription.id);
  return {
    merchant,
    cards,
    subscriptionIds,
    linkIds: made.map((m) => m.linkId),
    installments: await Promise.all(
      subscriptionIds.map((id) =>
        db
          .select()
          .from(installments)
          .where(eq(installments.subscriptionId, id))
          .orderBy(asc(installments.number)),
      ),
    ),
  };
}

const CHARGE_PAID_BEFORE = randomUUID();

/** The batch, in delivery order: which subscription and installment, which attempt, whose. */
const BATCH: Array<{ k: number; number: number; attempt: number; as?: 'other-merchant' | 'link' }> = [
  { k: 0, number: 2, attempt: 1 },
  { k: 2, number: 2, attempt: 1 }, // the past-due subscription's failed installment: active again
  { k: 0, number: 3, attempt: 1 }, // a second installment of S0: paid count 3
  { k: 1, number: 2, attempt: 1 }, // the last one: S1 completed
  { k: 0, number: 2, attempt: 1 }, // the first payment again: duplicate
  { k: 3, number: 2, attempt: 1 }, // cancelled subscription: paid, still cancelled
  { k: 4, number: 2, attempt: 2 }, // paid already: paid-twice
  { k: 4, number: 2, attempt: 1 }, // the payment that paid it, again: duplicate
  { k: 0, number: 1, attempt: 1, as: 'link' }, // a link's charge: not ours
  { k: 0, number: 4, attempt: 1, as: 'other-merchant' }, // not ours
  { k: 2, number: 3, attempt: 1 }, // S2, active again, completed by its last one
];
const CHARGE_IDS = BATCH.map(() => randomUUID());

function payments(copy: Copy): Array<EventData<'payment.succeeded'>> {
  return BATCH.map(({ k, number, attempt, as }, index) => {
    const row = copy.installments[k]?.[number - 1] as InstallmentRow;
    const card = copy.cards[k] as PaidWithCard;
    return {
      idempotencyKey:
        as === 'link' ? `link:${copy.linkIds[k]}:payment:1` : installmentChargeKey(row.id, attempt),
      chargeId: CHARGE_IDS[index] as string,
      merchantId: as === 'other-merchant' ? OTHER_MERCHANT : copy.merchant.merchantId,
      processor: card.processor,
      amount: row.amount,
      currency: 'PYG',
      installmentId: as === 'link' ? null : row.id,
      attempt: as === 'link' ? null : attempt,
      linkId: as === 'link' ? (copy.linkIds[k] as number) : null,
      paymentMethodId: card.paymentMethodId,
      // Each its own time: a mix-up of two payments shows.
      paidAt: new Date(Date.UTC(2026, 1, 10, 15, 0, index)).toISOString(),
      authorizationCode: '123456',
      processorReference: `REF-${index}`,
      cardBrand: null,
      cardLast4: null,
    };
  });
}

/** Ids, merchant, cards and customers of a copy as names, so the two copies compare. */
function namer(copy: Copy) {
  const names = new Map<string, string>();
  for (const [k, id] of copy.subscriptionIds.entries()) names.set(`s${id}`, `S${k}`);
  for (const [k, id] of copy.linkIds.entries()) names.set(`l${id}`, `L${k}`);
  for (const [k, rows] of copy.installments.entries()) {
    for (const row of rows) names.set(`i${row.id}`, `S${k}#${row.number}`);
  }
  for (const [k, card] of copy.cards.entries()) {
    names.set(card.paymentMethodId, `card${k}`);
    names.set(`c${card.customerId}`, `customer${k}`);
  }
  names.set(copy.merchant.merchantId, 'merchant');
  // `id` is only a subscription's here (the results' subscriptions): rows are given with named id keys.
  const byKey: Record<string, string> = {
    id: 's',
    subscriptionId: 's',
    installmentId: 'i',
    linkId: 'l',
    customerId: 'c',
  };
  const name = (value: unknown, key: string | undefined): unknown => {
    if (value instanceof Date) return value.toISOString();
    if (Array.isArray(value)) return value.map((item) => name(item, undefined));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, name(v, k)]));
    }
    if (typeof value === 'number' && key && byKey[key]) return names.get(`${byKey[key]}${value}`) ?? value;
    if (typeof value === 'string') {
      const known = names.get(value);
      if (known) return known;
      const charged = /^installment:(\d+):attempt:(\d+)$/.exec(value);
      if (charged) return `${names.get(`i${charged[1]}`)}:${charged[2]}`;
    }
    return value;
  };
  return (value: unknown) => name(value, undefined);
}

/** The copy's rows and its outbox events written after `before` (ids), with names for ids. */
async function state(copy: Copy, outboxBefore: Set<string>) {
  const db = svc.database.db;
  const name = namer(copy);
  const subs = await db
    .select()
    .from(subscriptions)
    .where(inArray(subscriptions.id, copy.subscriptionIds))
    .orderBy(asc(subscriptions.id));
  const rows = await db
    .select()
    .from(installments)
    .where(inArray(installments.subscriptionId, copy.subscriptionIds))
    .orderBy(asc(installments.id));
  const attempts = await db
    .select()
    .from(chargeAttempts)
    .where(inArray(chargeAttempts.subscriptionId, copy.subscriptionIds))
    .orderBy(asc(chargeAttempts.id));
  const events = (
    await db
      .select()
      .from(outbox)
      .where(sql`(${outbox.body}::json -> 'data' ->> 'merchantId') = ${copy.merchant.merchantId}`)
  ).filter((row) => !outboxBefore.has(row.id));
  return {
    subscriptions: subs.map(({ id, updatedAt: _updated, ...row }) => name({ subscriptionId: id, ...row })),
    installments: rows.map(({ id, subscriptionId, ...row }) =>
      name({ installmentId: id, subscriptionId, ...row }),
    ),
    attempts: attempts.map(({ id: _id, runId: _run, ...row }) => name(row)),
    events: events
      .map((row) => {
        const { id: _id, ...event } = JSON.parse(row.body) as EventEnvelope;
        return name(event);
      })
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    outboxRows: events,
  };
}

async function outboxIdsOf(copy: Copy) {
  const rows = await svc.database.db
    .select({ id: outbox.id })
    .from(outbox)
    .where(sql`(${outbox.body}::json -> 'data' ->> 'merchantId') = ${copy.merchant.merchantId}`);
  return new Set(rows.map((row) => row.id));
}

const traceIdOf = (index: number) => `${(index + 1).toString(16).padStart(2, '0')}${'d'.repeat(30)}`;

describe('payment.succeeded, batch path', () => {
  it('a mixed batch has the outcomes, rows and events of its payments recorded one after the other, in a fixed number of store calls, each event in its payment’s trace', async () => {
    const telemetry = startTelemetry({ serviceName: 'subscriptions-paid-batch-test' });
    try {
      const batched = await scenario();
      const single = await scenario();
      const outboxBatched = await outboxIdsOf(batched);
      const outboxSingle = await outboxIdsOf(single);

      const calls: string[] = [];
      const items: Array<OfBatch<EventData<'payment.succeeded'>>> = payments(batched).map((data, index) => {
        const traced = contextFromHeaders({ traceparent: `00-${traceIdOf(index)}-${'1'.repeat(16)}-01` });
        return { data, within: (work) => context.with(traced, work) };
      });
      const batchResults = await svc.database.db.transaction((tx) =>
        recordChargesSucceeded({ stores: countingStores(subscriptionStores(tx), calls), clock }, items),
      );
      const singleResults: ChargeOutcomeResult[] = [];
      for (const data of payments(single)) {
        singleResults.push(
          await recordChargeSucceeded({ stores: subscriptionStores(svc.database.db), clock }, data),
        );
      }

      expect(singleResults.map((result) => result.kind)).toEqual([
        'paid',
        'paid',
        'paid',
        'paid',
        'duplicate',
        'paid',
        'paid-twice',
        'duplicate',
        'not-ours',
        'not-ours',
        'paid',
      ]);
      expect(namer(batched)(batchResults)).toEqual(namer(single)(singleResults));
      const after = await state(batched, outboxBatched);
      const expected = await state(single, outboxSingle);
      expect(after.subscriptions).toEqual(expected.subscriptions);
      expect(after.installments).toEqual(expected.installments);
      expect(after.attempts).toEqual(expected.attempts);
      expect(after.events).toEqual(expected.events);
      // What the single path did, as a reminder of what the comparison covers.
      expect((expected.subscriptions as Array<{ status: string }>).map((row) => row.status)).toEqual([
        'active',
        'completed',
        'completed',
        'cancelled',
        'active',
      ]);
      expect(expected.events.map((event) => (event as { type: string }).type).sort()).toEqual([
        'installment.paid',
        'installment.paid',
        'installment.paid',
        'installment.paid',
        'installment.paid',
        'installment.paid',
        'subscription.activated',
        'subscription.completed',
        'subscription.completed',
      ]);

      // A few statements for the whole batch, none per payment.
      expect(calls).toEqual([
        'transaction',
        'installments.lockSubscriptionsOfInstallments',
        'attempts.attemptStatuses',
        'attempts.settleAttempts',
        'installments.saveInstallments',
        'subscriptions.saveSubscriptions',
        'outbox.enqueueEach',
      ]);

      // Each event in the trace of the payment it answers.
      const paidIndexes = BATCH.flatMap((_, index) => (singleResults[index]?.kind === 'paid' ? [index] : []));
      const installmentIds = payments(batched).map((data) => data.installmentId);
      for (const index of paidIndexes) {
        const written = after.outboxRows.find((row) => {
          const event = JSON.parse(row.body) as EventEnvelope;
          return (
            event.type === 'installment.paid' &&
            (event.data as { installmentId: number }).installmentId === installmentIds[index]
          );
        });
        expect(written?.headers.traceparent?.split('-')[1]).toBe(traceIdOf(index));
      }
    } finally {
      await telemetry.shutdown();
    }
  });
});
