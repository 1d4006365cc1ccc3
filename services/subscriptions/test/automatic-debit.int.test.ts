import { randomUUID } from 'node:crypto';
import type { EventEnvelope, MerchantContext } from '@payrail/contracts';
import { createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import {
  aMerchant,
  deleteBrokerTopology,
  type ServiceUnderTest,
  startService,
  testAmqpUrl,
  testClock,
  uniqueName,
  waitFor,
} from '@payrail/testing';
import type { SimulatedClock } from '@payrail/time';
import { createLogger, startTelemetry } from '@payrail/observability';
import { inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payInstallmentOnPaymentSucceeded } from '../src/adapters/messaging/pay-installment-on-payment-succeeded.consumer';
import { requestChargeOnChargeDue } from '../src/adapters/messaging/request-charge-on-charge-due.consumer';
import { inbox, outbox } from '../src/adapters/postgres/schema';
import { subscriptionsService } from '../src/service';
import {
  aCard,
  attemptRows,
  cardEvent,
  chargeDue,
  dunningExhausted,
  eventsAbout,
  paymentFailed,
  paymentSucceeded,
  retryScheduled,
} from './debit-support';
import {
  activeSubscription,
  createSubscription,
  eventsOfType,
  installmentSets,
  installmentsOfSubscription,
  type PaidWithCard,
  publishAndWait,
  subscriptionEventData,
  subscriptionOfLink,
  unitOfWorkOf,
} from './support';
import { CONSUMERS } from '../../../scripts/processes';

/**
 * subscriptions' side of the automatic debit, on real PostgreSQL and a real RabbitMQ (exchange and queues
 * of this file's own): charge-due → chargeable? → processing + attempt + charge.requested, or skipped with
 * its reason; payment results; dunning; the card and its 24-hour cap; the cancel/charge race.
 */
let bus: MessageBus;
let svc: ServiceUnderTest;
let clock: SimulatedClock;
const exchange = uniqueName('debit_test');
const queuePrefix = `${uniqueName('debit_test')}.`;

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

async function subscribedWithCard(merchant: MerchantContext, card: PaidWithCard, totalPeriods = 4) {
  return activeSubscription(
    svc,
    merchant,
    {
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

async function requested(installmentId: number): Promise<Array<EventEnvelope<'charge.requested'>>> {
  return eventsAbout(svc, 'charge.requested', installmentId);
}

async function skipReasons(installmentId: number) {
  return (await eventsAbout(svc, 'installment.charge-skipped', installmentId)).map((e) => [
    e.data.reason,
    e.data.retryOn,
  ]);
}

const eventsFor = (type: string, subscriptionId: number) => subscriptionEventData(svc, type, subscriptionId);

async function installment(subscriptionId: number, number: number) {
  const rows = await installmentsOfSubscription(svc, subscriptionId);
  return rows.find((row) => row.number === number) as (typeof rows)[number];
}

describe('the subscription card', () => {
  it('is the card of the first payment (link.paid), also when the payment came before link.created', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { subscription } = await subscribedWithCard(merchant, card);
    expect(subscription).toMatchObject({
      status: 'active',
      paymentMethodId: card.paymentMethodId,
      processor: card.processor,
      customerId: card.customerId,
    });
  });

  it('is forgotten when the vault removes it (charges skipped: no-payment-method), replaced by the customer’s next saved card', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { subscription, installments } = await subscribedWithCard(merchant, card);
    await publishAndWait(svc, cardEvent('payment-method.removed', merchant, card));
    expect((await subscriptionOfLink(svc, subscription.linkId))?.paymentMethodId).toBeNull();

    const second = installments[1] as (typeof installments)[number];
    await publishAndWait(svc, chargeDue(merchant, second));
    expect(await skipReasons(second.id)).toEqual([['no-payment-method', null]]);
    expect(await requested(second.id)).toEqual([]);

    // Another customer's new card is not theirs; the same customer's is.
    await publishAndWait(svc, cardEvent('payment-method.saved', merchant, aCard()));
    expect((await subscriptionOfLink(svc, subscription.linkId))?.paymentMethodId).toBeNull();
    const replacement = aCard(card.customerId);
    await publishAndWait(svc, cardEvent('payment-method.saved', merchant, replacement));
    expect((await subscriptionOfLink(svc, subscription.linkId))?.paymentMethodId).toBe(
      replacement.paymentMethodId,
    );
    await publishAndWait(svc, chargeDue(merchant, second, 2));
    expect((await requested(second.id)).map((e) => e.data.paymentMethodId)).toEqual([
      replacement.paymentMethodId,
    ]);
  });

  it('a link paid without a card reported leaves the subscription without one: skipped no-payment-method', async () => {
    const merchant = aMerchant();
    const { installments } = await activeSubscription(svc, merchant);
    const second = installments[1] as (typeof installments)[number];
    await publishAndWait(svc, chargeDue(merchant, second));
    expect(await skipReasons(second.id)).toEqual([['no-payment-method', null]]);
  });
});

describe('installment.charge-due', () => {
  it('charges the installment as it is now: processing, the attempt recorded, charge.requested with the current amount and key', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { installments } = await subscribedWithCard(merchant, card);
    const second = installments[1] as (typeof installments)[number];
    const patched = await svc.request('PATCH', `/api/subscriptions/installments/${second.id}`, {
      merchant,
      body: { amount: 99500 },
    });
    expect(patched.status).toBe(200);

    const due = chargeDue(merchant, second, 1, '2026-02-10');
    await publishAndWait(svc, due);
    expect((await installment(second.subscriptionId, 2)).status).toBe('processing');
    const [charge, ...more] = await requested(second.id);
    expect(more).toEqual([]);
    expect(charge?.data).toEqual({
      idempotencyKey: `installment:${second.id}:attempt:1`,
      merchantId: merchant.merchantId,
      subscriptionId: second.subscriptionId,
      installmentId: second.id,
      attempt: 1,
      paymentMethodId: card.paymentMethodId,
      amount: '99500.00',
      currency: 'PYG',
    });
    const [attempt] = await attemptRows(svc, second.id);
    expect(attempt).toMatchObject({
      attempt: 1,
      status: 'requested',
      amount: '99500.00',
      paymentMethodId: card.paymentMethodId,
      processor: card.processor,
      runId: due.data.runId,
      requestedAt: clock.now(),
    });

    // The same attempt asked again (a new run's message): nothing charged twice.
    await publishAndWait(svc, chargeDue(merchant, second, 1, '2026-02-10'));
    expect(await requested(second.id)).toHaveLength(1);
    expect(await skipReasons(second.id)).toEqual([['attempt-already-requested', null]]);
  });

  it('skips what is no longer chargeable, saying why: not-pending, subscription-not-active, not-due', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { installments } = await subscribedWithCard(merchant, card);
    const [, second, third, fourth] = installments as Array<(typeof installments)[number]>;
    if (!second || !third || !fourth) throw new Error('schedule');

    expect(
      (await svc.request('POST', `/api/subscriptions/installments/${second.id}/cancel`, { merchant })).status,
    ).toBe(200);
    await publishAndWait(svc, chargeDue(merchant, second));
    expect(await skipReasons(second.id)).toEqual([['not-pending', null]]);

    // Moved to a later day after the run claimed it: charged on the new day, not on the old one.
    expect(
      (
        await svc.request('PATCH', `/api/subscriptions/installments/${third.id}`, {
          merchant,
          body: { payment_date: '2026-03-25' },
        })
      ).status,
    ).toBe(200);
    await publishAndWait(svc, chargeDue(merchant, third, 1, '2026-03-10'));
    expect(await skipReasons(third.id)).toEqual([['not-due', '2026-03-25']]);
    await publishAndWait(svc, chargeDue(merchant, third, 1, '2026-03-25'));
    expect(await requested(third.id)).toHaveLength(1);

    expect(
      (
        await svc.request('POST', '/api/subscriptions/cancel-all', {
          merchant,
          body: { customIdentifier: 'CI-1' },
        })
      ).status,
    ).toBe(200);
    await publishAndWait(svc, chargeDue(merchant, fourth));
    expect(await skipReasons(fourth.id)).toEqual([['not-pending', null]]);

    // A subscription not yet paid for: nothing charged.
    const pending = await createSubscription(svc, aMerchant(), {});
    const pendingSecond = pending.installments[1] as (typeof pending.installments)[number];
    await publishAndWait(
      svc,
      chargeDue({ ...merchant, merchantId: pending.subscription.merchantId }, pendingSecond),
    );
    expect(await skipReasons(pendingSecond.id)).toEqual([['subscription-not-active', null]]);
    expect(await requested(pendingSecond.id)).toEqual([]);
  });

  it('a charge-due asked again (billing-scheduler’s reclaim after a lost answer) says how the installment and the attempt stand', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { installments } = await subscribedWithCard(merchant, card);
    const [, second, third, fourth] = installments as Array<(typeof installments)[number]>;
    if (!second || !third || !fourth) throw new Error('schedule');
    const lastSkip = async (installmentId: number) => {
      const last = (await eventsAbout(svc, 'installment.charge-skipped', installmentId)).at(-1)?.data;
      return last && [last.reason, last.installmentStatus, last.attemptStatus, last.declineCategory];
    };

    await publishAndWait(svc, chargeDue(merchant, second));
    await publishAndWait(svc, chargeDue(merchant, second));
    expect(await lastSkip(second.id)).toEqual(['attempt-already-requested', 'processing', 'requested', null]);
    const [charged] = await requested(second.id);
    await publishAndWait(svc, paymentSucceeded(charged as EventEnvelope<'charge.requested'>, card));
    await publishAndWait(svc, chargeDue(merchant, second));
    expect(await lastSkip(second.id)).toEqual(['attempt-already-requested', 'paid', 'succeeded', null]);

    await publishAndWait(svc, chargeDue(merchant, third));
    const [declined] = await requested(third.id);
    await publishAndWait(
      svc,
      paymentFailed(declined as EventEnvelope<'charge.requested'>, card, '51', 'soft'),
    );
    await publishAndWait(svc, chargeDue(merchant, third));
    expect(await lastSkip(third.id)).toEqual(['attempt-already-requested', 'pending', 'failed', 'soft']);

    expect(
      (await svc.request('POST', `/api/subscriptions/installments/${fourth.id}/cancel`, { merchant })).status,
    ).toBe(200);
    await publishAndWait(svc, chargeDue(merchant, fourth));
    expect(await lastSkip(fourth.id)).toEqual(['not-pending', 'cancelled', null, null]);
    // Nothing charged twice.
    expect([(await requested(second.id)).length, (await requested(third.id)).length]).toEqual([1, 1]);
  });

  it('another merchant’s charge-due for an installment charges nothing', async () => {
    const merchant = aMerchant();
    const { installments } = await subscribedWithCard(merchant, aCard());
    const second = installments[1] as (typeof installments)[number];
    await publishAndWait(svc, chargeDue(aMerchant(), second));
    expect(await requested(second.id)).toEqual([]);
    expect((await installment(second.subscriptionId, 2)).status).toBe('pending');
  });

  it('never more than 6 attempts on one card in 24 hours, across subscriptions; a run as of a future day (simulated time) counts from that day', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const first = await subscribedWithCard(merchant, card, 5);
    const second = await activeSubscription(
      svc,
      merchant,
      {
        customIdentifier: 'CI-2',
        recurrence: {
          type: 'STATIC',
          installmentAmount: '150000.00',
          totalPeriods: 5,
          dayOfMonth: 10,
          monthForSecondInstallment: 1,
        },
      },
      card,
    );
    const due = [...first.installments.slice(1), ...second.installments.slice(1)];
    expect(due).toHaveLength(8);
    // All eight as of one day months ahead of the clock (an operator's catch-up, or simulated time).
    const asOf = '2026-06-30';
    // Concurrently: the card's lock makes the count exact.
    await Promise.all(due.map((row) => publishAndWait(svc, chargeDue(merchant, row, 1, asOf))));
    const charged = (await Promise.all(due.map((row) => requested(row.id)))).flat();
    expect(charged).toHaveLength(6);
    const skipped = (await Promise.all(due.map((row) => skipReasons(row.id)))).flat();
    // A slot frees 24 hours after the start of the as-of day (00:00 in Asunción): on 1 July.
    expect(skipped).toEqual([
      ['card-attempt-cap', '2026-07-01'],
      ['card-attempt-cap', '2026-07-01'],
    ]);
    const [attempt] = await attemptRows(svc, charged[0]?.data.installmentId as number);
    expect(attempt?.requestedAt).toEqual(new Date('2026-06-30T03:00:00Z'));

    const waiting = due.filter((row) => !charged.some((c) => c.data.installmentId === row.id));
    const [next, last] = waiting as [(typeof due)[number], (typeof due)[number]];
    // 24 hours later by the real clock, still as of the same day: still capped.
    const start = clock.now();
    clock.set(new Date(start.getTime() + 24 * 60 * 60 * 1000 + 1));
    await publishAndWait(svc, chargeDue(merchant, next, 2, asOf));
    expect(await requested(next.id)).toEqual([]);
    // As of the next day a slot is free again.
    await publishAndWait(svc, chargeDue(merchant, next, 3, '2026-07-01'));
    expect(await requested(next.id)).toHaveLength(1);
    clock.set(start);
    expect(await requested(last.id)).toEqual([]);
  });
});

describe('installment.charge-due, batch path', () => {
  it('decides a batch in one transaction as if one message after the other: card cap, a repeated charge-due, another merchant’s; each charge.requested in its message’s trace', async () => {
    const telemetry = startTelemetry({ serviceName: 'subscriptions-batch-test' });
    try {
      const merchant = aMerchant();
      const card = aCard();
      const first = await subscribedWithCard(merchant, card, 5);
      const second = await activeSubscription(
        svc,
        merchant,
        {
          customIdentifier: 'CI-batch',
          recurrence: {
            type: 'STATIC',
            installmentAmount: '150000.00',
            totalPeriods: 5,
            dayOfMonth: 10,
            monthForSecondInstallment: 1,
          },
        },
        card,
      );
      const due = [...first.installments.slice(1), ...second.installments.slice(1)];
      expect(due).toHaveLength(8);
      // A retry day on each of the first subscription's (as after a decline): gone once charged.
      await svc.database.db.execute(sql`update subscriptions.installments set next_attempt_on = '2026-06-01'
        where subscription_id = ${first.subscription.id} and number > 1`);
      const asOf = '2026-06-30';
      const events = [
        ...due.map((row) => chargeDue(merchant, row, 1, asOf)),
        // The first one again (the same attempt, another message), and one asked by another merchant.
        chargeDue(merchant, due[0] as (typeof due)[number], 1, asOf),
        chargeDue(aMerchant(), due[1] as (typeof due)[number], 1, asOf),
      ];
      const traceIdOf = (index: number) => `${(index + 1).toString(16).padStart(2, '0')}${'c'.repeat(30)}`;
      const { handler } = requestChargeOnChargeDue(unitOfWorkOf(svc), clock, createLogger('test', 'silent'));
      // Delivered together, as a bus with a prefetch of a batch or more hands them over.
      await Promise.all(
        events.map((event, index) =>
          handler({
            id: event.id,
            type: event.type,
            body: JSON.stringify(event),
            headers: { traceparent: `00-${traceIdOf(index)}-${'1'.repeat(16)}-01` },
            attempt: 1,
          }),
        ),
      );
      // One transaction: every inbox row stamped with its one start time.
      const stamps = await svc.database.db
        .selectDistinct({ at: inbox.processedAt })
        .from(inbox)
        .where(
          inArray(
            inbox.messageId,
            events.map((event) => event.id),
          ),
        );
      expect(stamps).toHaveLength(1);

      // In delivery order: the first six charged, the card capped for the last two.
      const charged = (await Promise.all(due.map((row) => requested(row.id)))).flat();
      expect(charged.map((event) => event.data.installmentId)).toEqual(due.slice(0, 6).map((row) => row.id));
      expect(await skipReasons((due[6] as (typeof due)[number]).id)).toEqual([
        ['card-attempt-cap', '2026-07-01'],
      ]);
      expect(await skipReasons((due[0] as (typeof due)[number]).id)).toEqual([
        ['attempt-already-requested', null],
      ]);
      // Another merchant's charge-due charged nothing and was skipped as not found.
      expect(await skipReasons((due[1] as (typeof due)[number]).id)).toEqual([['not-pending', null]]);
      expect(await attemptRows(svc, (due[0] as (typeof due)[number]).id)).toHaveLength(1);
      const rows = await installmentsOfSubscription(svc, first.subscription.id);
      expect(rows.filter((row) => row.number > 1).map((row) => [row.status, row.nextAttemptOn])).toEqual([
        ['processing', null],
        ['processing', null],
        ['processing', null],
        ['processing', null],
      ]);

      // Each charge.requested carries the trace of the charge-due it answers.
      const outboxRows = await svc.database.db
        .select({ body: outbox.body, headers: outbox.headers })
        .from(outbox)
        .where(sql`${outbox.type} = 'charge.requested'`);
      for (const [index, row] of due.slice(0, 6).entries()) {
        const written = outboxRows.find(
          (candidate) => JSON.parse(candidate.body).data.installmentId === row.id,
        );
        expect(written?.headers.traceparent?.split('-')[1]).toBe(traceIdOf(index));
      }
    } finally {
      await telemetry.shutdown();
    }
  });
});

describe('payment results', () => {
  it('payment.succeeded: paid, installment.paid (CARD, paid count and total, the charge attempt and its transaction), the last one completes the subscription', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { subscription, installments } = await subscribedWithCard(merchant, card, 3);
    const chargeIds: string[] = [];
    for (const row of installments.slice(1)) {
      await publishAndWait(svc, chargeDue(merchant, row));
      const [charge] = await requested(row.id);
      const succeeded = paymentSucceeded(charge as EventEnvelope<'charge.requested'>, card);
      chargeIds.push(succeeded.data.chargeId);
      await publishAndWait(svc, succeeded);
      expect((await installment(subscription.id, row.number)).status).toBe('paid');
    }
    const paid = (await eventsOfType(svc, 'installment.paid'))
      .map(
        (e) =>
          e.data as {
            subscriptionId: number;
            number: number;
            method: string;
            paidCount: number;
            paidTotal: string;
            chargeAttempt: number | null;
            txId: string | null;
            processorReference: string | null;
            authorizationCode: string | null;
          },
      )
      .filter((data) => data.subscriptionId === subscription.id)
      .map((data) => [
        data.number,
        data.method,
        data.paidCount,
        data.paidTotal,
        data.chargeAttempt,
        data.txId,
        data.processorReference,
        data.authorizationCode,
      ]);
    // Installment 1 by the link payment (its money movement), the others by attempt 1 of their automatic
    // charge: the charge's id is the txId (what the merchant's webhook shows), the processor's references
    // beside it.
    const [, second, third] = installments;
    expect(paid).toEqual([
      [1, 'CARD', 1, '200000.00', null, 'tx-1', 'REF-1', 'AUTH-1'],
      [2, 'CARD', 2, '350000.00', 1, chargeIds[0], `REF-${second?.id}`, '123456'],
      [3, 'CARD', 3, '500000.00', 1, chargeIds[1], `REF-${third?.id}`, '123456'],
    ]);
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('completed');
    const [attempt] = await attemptRows(svc, installments[2]?.id as number);
    expect(attempt).toMatchObject({ status: 'succeeded', declineCode: null });
    expect(attempt?.chargeId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('batch path: payment.succeeded of two installments of one subscription in one batch, one after the other: paid counts 2 and 3, completed', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { subscription, installments } = await subscribedWithCard(merchant, card, 3);
    const charges: Array<EventEnvelope<'charge.requested'>> = [];
    for (const row of installments.slice(1)) {
      await publishAndWait(svc, chargeDue(merchant, row));
      charges.push(...(await requested(row.id)));
    }
    const { handler } = payInstallmentOnPaymentSucceeded(
      unitOfWorkOf(svc),
      clock,
      createLogger('test', 'silent'),
    );
    // The second without an authorization code: its txId is its charge's all the same.
    const results = charges.map((charge, index) => {
      const event = paymentSucceeded(charge, card);
      return index === 1 ? { ...event, data: { ...event.data, authorizationCode: null } } : event;
    });
    await Promise.all(
      results.map((event) =>
        handler({ id: event.id, type: event.type, body: JSON.stringify(event), headers: {}, attempt: 1 }),
      ),
    );
    const stamps = await svc.database.db
      .selectDistinct({ at: inbox.processedAt })
      .from(inbox)
      .where(
        inArray(
          inbox.messageId,
          results.map((event) => event.id),
        ),
      );
    expect(stamps).toHaveLength(1);
    const paid = (await eventsOfType(svc, 'installment.paid'))
      .map(
        (e) =>
          e.data as {
            subscriptionId: number;
            number: number;
            paidCount: number;
            paidTotal: string;
            txId: string | null;
          },
      )
      .filter((data) => data.subscriptionId === subscription.id)
      .map((data) => [data.number, data.paidCount, data.paidTotal, data.txId])
      // Written in one transaction, the rows share their created_at: by number.
      .sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(paid).toEqual([
      [1, 1, '200000.00', 'tx-1'],
      [2, 2, '350000.00', results[0]?.data.chargeId],
      [3, 3, '500000.00', results[1]?.data.chargeId],
    ]);
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('completed');
  });

  it('dunning: a soft decline back to pending with its code; retries recorded; exhausted → failed + past_due; paid later by transfer → active', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { subscription, installments } = await subscribedWithCard(merchant, card, 4);
    const second = installments[1] as (typeof installments)[number];
    const retryDays = ['2026-02-11', '2026-02-13', '2026-02-15'];
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      await publishAndWait(svc, chargeDue(merchant, second, attempt));
      const charge = (await requested(second.id))[attempt - 1] as EventEnvelope<'charge.requested'>;
      expect(charge.data.idempotencyKey).toBe(`installment:${second.id}:attempt:${attempt}`);
      await publishAndWait(svc, paymentFailed(charge, card, '51', 'soft'));
      expect((await installment(subscription.id, 2)).status).toBe('pending');
      const next = retryDays[attempt - 1];
      if (next) {
        await publishAndWait(svc, retryScheduled(merchant, second, attempt, next));
        expect((await installment(subscription.id, 2)).nextAttemptOn).toBe(next);
      }
    }
    await publishAndWait(svc, dunningExhausted(merchant, second, 4));
    expect((await installment(subscription.id, 2)).status).toBe('failed');
    expect((await installment(subscription.id, 2)).nextAttemptOn).toBeNull();
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('past_due');
    expect(
      (await attemptRows(svc, second.id)).map((a) => [
        a.attempt,
        a.status,
        a.declineCode,
        a.category,
        a.nextAttemptOn,
      ]),
    ).toEqual([
      [1, 'failed', '51', 'soft', '2026-02-11'],
      [2, 'failed', '51', 'soft', '2026-02-13'],
      [3, 'failed', '51', 'soft', '2026-02-15'],
      [4, 'failed', '51', 'soft', null],
    ]);
    const [failed] = await eventsAbout(svc, 'installment.failed', second.id);
    expect(failed?.data).toMatchObject({
      status: 'failed',
      attempts: 4,
      declineCode: '51',
      category: 'soft',
    });
    const pastDue = (await eventsOfType(svc, 'subscription.past-due')).filter(
      (e) => (e.data as { subscriptionId: number }).subscriptionId === subscription.id,
    );
    expect(pastDue.map((e) => e.data)).toEqual([
      expect.objectContaining({ status: 'past_due', installmentId: second.id }),
    ]);

    // The other installments are still charged while past due.
    const third = installments[2] as (typeof installments)[number];
    await publishAndWait(svc, chargeDue(merchant, third));
    expect(await requested(third.id)).toHaveLength(1);

    // The failed installment paid by a bank transfer: active again.
    const settled = await svc.request('POST', '/internal/bank-transfers/settle', {
      merchant,
      body: {
        reference: `TRF-${second.id}`,
        txId: randomUUID(),
        amount: '150000.00',
        currency: null,
        bankName: 'Banco Nacional',
        transferDate: '2026-02-20',
        note: null,
        installmentId: second.id,
        customIdentifier: null,
        customIdentifier2: null,
        paymentDate: null,
      },
    });
    expect(settled.status).toBe(200);
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('active');
    const activated = (await eventsOfType(svc, 'subscription.activated')).filter(
      (e) => (e.data as { subscriptionId: number }).subscriptionId === subscription.id,
    );
    expect(activated).toHaveLength(2);
  });

  it('a hard decline exhausted at once: failed and past_due after one attempt; a late success of it makes it paid and active', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { subscription, installments } = await subscribedWithCard(merchant, card, 4);
    const second = installments[1] as (typeof installments)[number];
    await publishAndWait(svc, chargeDue(merchant, second));
    const [charge] = (await requested(second.id)) as Array<EventEnvelope<'charge.requested'>>;
    if (!charge) throw new Error('no charge');
    await publishAndWait(svc, paymentFailed(charge, card, '14', 'hard'));
    await publishAndWait(svc, dunningExhausted(merchant, second, 1, 'hard-decline'));
    expect((await installment(subscription.id, 2)).status).toBe('failed');
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('past_due');
    // A charge-due for it now (a stale run) charges nothing.
    await publishAndWait(svc, chargeDue(merchant, second, 2));
    expect(await requested(second.id)).toHaveLength(1);
    expect(await skipReasons(second.id)).toEqual([['not-pending', null]]);
  });

  it('the merchant’s rule cancels after N failed installments in a row (N from dunning-exhausted): a paid one between resets the count', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { subscription, installments } = await subscribedWithCard(merchant, card, 6);
    const row = (number: number) => installments[number - 1] as (typeof installments)[number];
    const declinedHard = async (number: number) => {
      await publishAndWait(svc, chargeDue(merchant, row(number)));
      const [charge] = await requested(row(number).id);
      if (!charge) throw new Error(`installment ${number} not charged`);
      await publishAndWait(svc, paymentFailed(charge, card, '14', 'hard'));
      await publishAndWait(svc, dunningExhausted(merchant, row(number), 1, 'hard-decline', 2));
    };
    const status = async () => (await subscriptionOfLink(svc, subscription.linkId))?.status;

    await declinedHard(2);
    expect(await status()).toBe('past_due');
    await publishAndWait(svc, chargeDue(merchant, row(3)));
    const [third] = await requested(row(3).id);
    await publishAndWait(svc, paymentSucceeded(third as EventEnvelope<'charge.requested'>, card));
    // Installment 2 failed, 3 paid, 4 failed: one in a row, not two.
    await declinedHard(4);
    expect(await status()).toBe('past_due');
    expect(await eventsFor('subscription.cancelled', subscription.id)).toEqual([]);

    await declinedHard(5);
    expect(await status()).toBe('cancelled');
    expect((await installmentsOfSubscription(svc, subscription.id)).map((i) => i.status)).toEqual([
      'paid',
      'failed',
      'paid',
      'failed',
      'failed',
      'cancelled',
    ]);
    const [failed] = await eventsAbout(svc, 'installment.failed', row(5).id);
    expect(failed?.data).toMatchObject({ status: 'failed', declineCode: '14', category: 'hard' });
    expect(await eventsFor('subscription.cancelled', subscription.id)).toEqual([
      expect.objectContaining({ status: 'cancelled', reason: 'dunning' }),
    ]);
    expect(
      (await eventsFor('installments.cancelled', subscription.id)).map((data) =>
        (data.installments as Array<{ number: number }>).map((i) => i.number),
      ),
    ).toEqual([[6]]);
    // Past due once (installment 2); the cancellation is no second past-due.
    expect(await eventsFor('subscription.past-due', subscription.id)).toHaveLength(1);
  });

  it('without the rule (null) any number of failed installments leaves the subscription past due', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { subscription, installments } = await subscribedWithCard(merchant, card, 4);
    for (const number of [2, 3]) {
      const item = installments[number - 1] as (typeof installments)[number];
      await publishAndWait(svc, chargeDue(merchant, item));
      const [charge] = await requested(item.id);
      await publishAndWait(
        svc,
        paymentFailed(charge as EventEnvelope<'charge.requested'>, card, '14', 'hard'),
      );
      await publishAndWait(svc, dunningExhausted(merchant, item, 1, 'hard-decline', null));
    }
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('past_due');
    expect((await installment(subscription.id, 4)).status).toBe('pending');
  });

  it('a repeated payment.failed of an older attempt does not reopen the installment that a newer attempt charges', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { subscription, installments } = await subscribedWithCard(merchant, card, 3);
    const second = installments[1] as (typeof installments)[number];
    await publishAndWait(svc, chargeDue(merchant, second, 1));
    const [first] = (await requested(second.id)) as Array<EventEnvelope<'charge.requested'>>;
    if (!first) throw new Error('no charge');
    await publishAndWait(svc, paymentFailed(first, card));
    await publishAndWait(svc, chargeDue(merchant, second, 2));
    await publishAndWait(svc, paymentFailed(first, card));
    expect((await installment(subscription.id, 2)).status).toBe('processing');
  });
});

describe('cancel against charge', () => {
  it('a processing installment cannot be cancelled: 409 INSTALLMENT_NOT_PENDING, and nothing changes', async () => {
    const merchant = aMerchant();
    const { installments } = await subscribedWithCard(merchant, aCard());
    const second = installments[1] as (typeof installments)[number];
    await publishAndWait(svc, chargeDue(merchant, second));
    const response = await svc.request('POST', `/api/subscriptions/installments/${second.id}/cancel`, {
      merchant,
    });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { code: string }).code).toBe('INSTALLMENT_NOT_PENDING');
    expect((await installment(second.subscriptionId, 2)).status).toBe('processing');
  });

  it('200 cancels racing 200 charge-dues: each installment is either cancelled (200) and never charged, or charged and the cancel refused', async () => {
    // One subscription (and card) per installment: the card's 24-hour cap is not what this is about.
    const merchant = aMerchant();
    const targets: Array<Awaited<ReturnType<typeof installment>>> = [];
    for (let batch = 0; batch < 10; batch += 1) {
      const made = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          activeSubscription(
            svc,
            merchant,
            {
              customIdentifier: `RACE-${batch}-${index}`,
              recurrence: {
                type: 'STATIC',
                installmentAmount: '150000.00',
                totalPeriods: 2,
                dayOfMonth: 10,
                monthForSecondInstallment: 1,
              },
            },
            aCard(),
          ),
        ),
      );
      for (const one of made) targets.push(one.installments[1] as (typeof targets)[number]);
    }
    expect(targets).toHaveLength(200);
    // Every charge-due and every cancel at once, each after its own random pause, so that cancels land
    // before, during and after their installment's charge-due (a batch of charge-dues is decided in a few
    // milliseconds, so charge-dues sent all at first would be decided before any cancel arrived).
    const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 400));
    const [cancels] = await Promise.all([
      Promise.all(
        targets.map(async (row) => {
          await pause();
          const response = await svc.request('POST', `/api/subscriptions/installments/${row.id}/cancel`, {
            merchant,
          });
          return { id: row.id, status: response.status };
        }),
      ),
      Promise.all(
        targets.map(async (row) => {
          await pause();
          const due = chargeDue(merchant, row);
          await bus.publish({ id: due.id, type: due.type, body: JSON.stringify(due) });
        }),
      ),
    ]);
    // Every charge-due handled.
    await waitFor(
      async () => {
        const seen = await eventsOfType(svc, 'charge.requested');
        const skipped = await eventsOfType(svc, 'installment.charge-skipped');
        const ids = new Set(
          [...seen, ...skipped]
            .map((e) => (e.data as { installmentId: number }).installmentId)
            .filter((id) => targets.some((row) => row.id === id)),
        );
        return ids.size === 200;
      },
      60_000,
      100,
    );
    const rows = new Map<number, { status: string }>();
    for (const row of targets) rows.set(row.id, await installment(row.subscriptionId, 2));
    const charges = new Set(
      (await eventsOfType(svc, 'charge.requested')).map(
        (e) => (e.data as { installmentId: number }).installmentId,
      ),
    );
    let cancelledCount = 0;
    for (const cancel of cancels) {
      expect([200, 409]).toContain(cancel.status);
      if (cancel.status === 200) {
        cancelledCount += 1;
        expect(charges.has(cancel.id)).toBe(false);
        expect(rows.get(cancel.id)?.status).toBe('cancelled');
      } else {
        expect(charges.has(cancel.id)).toBe(true);
        expect(rows.get(cancel.id)?.status).toBe('processing');
      }
    }
    // Both outcomes happened: the race was a race.
    expect(cancelledCount).toBeGreaterThan(0);
    expect(cancelledCount).toBeLessThan(200);
  }, 120_000);
});

describe.each(['merchant', 'dunning'] as const)(
  'a subscription cancelled (%s) while an installment’s charge is in flight',
  (how) => {
    /**
     * A subscription of 5 with one installment `processing` (its charge.requested is with processor-gateway)
     * when it is cancelled: by cancel-all while installment 2 is charged, or by the dunning rule (N = 1) when
     * installment 2, declined hard, is given up while installment 3 is charged. The charge cannot be recalled.
     */
    async function cancelledWhileCharging() {
      const merchant = aMerchant();
      const card = aCard();
      const { subscription, installments } = await subscribedWithCard(merchant, card, 5);
      const row = (number: number) => installments[number - 1] as (typeof installments)[number];
      const charged = async (number: number) => {
        await publishAndWait(svc, chargeDue(merchant, row(number)));
        const [charge] = await requested(row(number).id);
        if (!charge) throw new Error(`installment ${number} not charged`);
        return charge;
      };
      let inFlight: (typeof installments)[number];
      let charge: EventEnvelope<'charge.requested'>;
      if (how === 'merchant') {
        inFlight = row(2);
        charge = await charged(2);
        const response = await svc.request('POST', '/api/subscriptions/cancel-all', {
          merchant,
          body: { customIdentifier: 'CI-1' },
        });
        expect(response.status).toBe(200);
      } else {
        await publishAndWait(svc, paymentFailed(await charged(2), card, '14', 'hard'));
        inFlight = row(3);
        charge = await charged(3);
        await publishAndWait(svc, dunningExhausted(merchant, row(2), 1, 'hard-decline', 1));
      }
      expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('cancelled');
      expect((await installment(subscription.id, inFlight.number)).status).toBe('processing');
      return { merchant, card, subscription, inFlight, charge };
    }

    const statusOf = async (row: { subscriptionId: number; number: number }) =>
      (await installment(row.subscriptionId, row.number)).status;

    it('payment.succeeded after the cancel: the installment paid (installment.paid goes out), charged once, the subscription still cancelled', async () => {
      const { merchant, card, subscription, inFlight, charge } = await cancelledWhileCharging();
      await publishAndWait(svc, paymentSucceeded(charge, card));

      expect(await statusOf(inFlight)).toBe('paid');
      expect((await attemptRows(svc, inFlight.id)).map((a) => [a.attempt, a.status])).toEqual([
        [1, 'succeeded'],
      ]);
      const paid = await eventsAbout(svc, 'installment.paid', inFlight.id);
      expect(paid.map((event) => event.data)).toEqual([
        expect.objectContaining({ status: 'paid', method: 'CARD', paidCount: 2, paidTotal: '350000.00' }),
      ]);
      expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('cancelled');
      expect(await eventsFor('subscription.cancelled', subscription.id)).toEqual([
        expect.objectContaining({ status: 'cancelled', reason: how }),
      ]);
      // Activated once (the first payment), neither active again nor completed by the late payment.
      expect(await eventsFor('subscription.activated', subscription.id)).toHaveLength(1);
      expect(await eventsFor('subscription.completed', subscription.id)).toEqual([]);
      // A stale run's charge-due for it charges nothing more.
      await publishAndWait(svc, chargeDue(merchant, inFlight, 2));
      expect(await requested(inFlight.id)).toHaveLength(1);
    });

    it('payment.failed after the cancel: the installment cancelled (not processing, not pending again), its decline kept, never retried', async () => {
      const { merchant, card, subscription, inFlight, charge } = await cancelledWhileCharging();
      await publishAndWait(svc, paymentFailed(charge, card, '51', 'soft'));

      expect(await statusOf(inFlight)).toBe('cancelled');
      expect(
        (await attemptRows(svc, inFlight.id)).map((a) => [a.attempt, a.status, a.declineCode, a.category]),
      ).toEqual([[1, 'failed', '51', 'soft']]);
      // Announced as the cancel's other installments were: installments.cancelled, with it alone.
      const sets = await installmentSets(svc, 'installments.cancelled', subscription.id);
      expect(sets.at(-1)).toEqual([
        expect.objectContaining({ installmentId: inFlight.id, status: 'cancelled' }),
      ]);

      // billing-scheduler's dunning answers the soft decline with a retry: moot, nothing is charged again.
      await publishAndWait(svc, retryScheduled(merchant, inFlight, 1, '2026-02-11'));
      expect((await installment(subscription.id, inFlight.number)).nextAttemptOn).toBeNull();
      await publishAndWait(svc, chargeDue(merchant, inFlight, 2));
      expect(await requested(inFlight.id)).toHaveLength(1);
      expect(await skipReasons(inFlight.id)).toEqual([['not-pending', null]]);
      await publishAndWait(svc, dunningExhausted(merchant, inFlight, 2, 'attempts-exhausted', 1));
      expect(await statusOf(inFlight)).toBe('cancelled');
      expect(await eventsAbout(svc, 'installment.failed', inFlight.id)).toEqual([]);
      expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('cancelled');
      expect(await eventsFor('subscription.cancelled', subscription.id)).toHaveLength(1);
    });

    it('a retry scheduled before the decline reaches subscriptions: moot, the installment cancelled all the same', async () => {
      const soft = await cancelledWhileCharging();
      await publishAndWait(svc, retryScheduled(soft.merchant, soft.inFlight, 1, '2026-02-11'));
      await publishAndWait(svc, paymentFailed(soft.charge, soft.card, '51', 'soft'));
      expect(await statusOf(soft.inFlight)).toBe('cancelled');
      expect((await installment(soft.subscription.id, soft.inFlight.number)).nextAttemptOn).toBeNull();
      expect((await attemptRows(svc, soft.inFlight.id)).map((a) => [a.status, a.nextAttemptOn])).toEqual([
        ['failed', null],
      ]);
    });

    it('dunning given up (a hard decline) before the decline reaches subscriptions: cancelled, not failed', async () => {
      const hard = await cancelledWhileCharging();
      await publishAndWait(svc, dunningExhausted(hard.merchant, hard.inFlight, 1, 'hard-decline', 1));
      expect(await statusOf(hard.inFlight)).toBe('cancelled');
      expect(await eventsAbout(svc, 'installment.failed', hard.inFlight.id)).toEqual([]);
      await publishAndWait(svc, paymentFailed(hard.charge, hard.card, '14', 'hard'));
      expect(await statusOf(hard.inFlight)).toBe('cancelled');
      expect((await attemptRows(svc, hard.inFlight.id)).map((a) => [a.status, a.declineCode])).toEqual([
        ['failed', '14'],
      ]);
    });
  },
);

describe('the audit: GET /api/subscriptions/installments/{id}/attempts and the v2 list', () => {
  it('shows every attempt (time, amount, processor, outcome, code, category, next retry); the list shows the last one and the next day', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { installments } = await subscribedWithCard(merchant, card, 3);
    const second = installments[1] as (typeof installments)[number];

    const empty = await svc.request('GET', `/api/subscriptions/installments/${second.id}/attempts`, {
      merchant,
    });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual({
      installment_id: second.id,
      status: 'pending',
      next_attempt_on: null,
      attempts: [],
    });

    await publishAndWait(svc, chargeDue(merchant, second, 1));
    const [first] = (await requested(second.id)) as Array<EventEnvelope<'charge.requested'>>;
    if (!first) throw new Error('no charge');
    await publishAndWait(svc, paymentFailed(first, card, '51', 'soft'));
    await publishAndWait(svc, retryScheduled(merchant, second, 1, '2026-02-11'));

    const declinedAttempt = {
      attempt: 1,
      requested_at: '2026-02-10T12:00:00-03:00',
      amount: 150000,
      currency: 'PYG',
      processor: card.processor,
      status: 'failed',
      settled_at: '2026-02-10T12:00:00-03:00',
      decline_code: '51',
      category: 'soft',
      next_attempt_on: '2026-02-11',
    };
    const listed = await svc.request('GET', '/api/subscriptions/installments?custom_identifier=CI-1', {
      merchant,
    });
    const listText = await listed.text();
    expect(listText).toContain('"amount":150000.00');
    const list = JSON.parse(listText) as { installments: Array<Record<string, unknown>> };
    expect(list.installments[0]).toMatchObject({
      installment_id: second.id,
      status: 'pending',
      last_attempt: declinedAttempt,
      next_attempt_on: '2026-02-11',
    });
    expect(list.installments[1]).toMatchObject({ last_attempt: null, next_attempt_on: null });

    await publishAndWait(svc, chargeDue(merchant, second, 2));
    const [, retry] = (await requested(second.id)) as Array<EventEnvelope<'charge.requested'>>;
    if (!retry) throw new Error('no retry');
    await publishAndWait(svc, paymentSucceeded(retry, card, '2026-02-11T13:00:00.000Z'));

    const audit = await svc.request('GET', `/api/subscriptions/installments/${second.id}/attempts`, {
      merchant,
    });
    expect(audit.status).toBe(200);
    const body = (await audit.json()) as Record<string, unknown>;
    expect(body).toEqual({
      installment_id: second.id,
      status: 'paid',
      next_attempt_on: null,
      attempts: [
        declinedAttempt,
        {
          ...declinedAttempt,
          attempt: 2,
          status: 'succeeded',
          settled_at: '2026-02-11T10:00:00-03:00',
          decline_code: null,
          category: null,
          next_attempt_on: null,
        },
      ],
    });
  });

  it('another merchant’s installment is 404 INSTALLMENT_NOT_FOUND; a non-numeric id is 400', async () => {
    const merchant = aMerchant();
    const { installments } = await subscribedWithCard(merchant, aCard());
    const second = installments[1] as (typeof installments)[number];
    const other = await svc.request('GET', `/api/subscriptions/installments/${second.id}/attempts`, {
      merchant: aMerchant(),
    });
    expect(other.status).toBe(404);
    expect(((await other.json()) as { code: string }).code).toBe('INSTALLMENT_NOT_FOUND');
    const bad = await svc.request('GET', '/api/subscriptions/installments/abc/attempts', { merchant });
    expect(bad.status).toBe(400);
  });
});
