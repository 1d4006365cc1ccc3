import { randomUUID } from 'node:crypto';
import type { EventEnvelope, MerchantContext } from '@payrail/contracts';
import { createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import { createLogger } from '@payrail/observability';
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMERS } from '../../../scripts/processes';
import { payInstallmentOnPaymentSucceeded } from '../src/adapters/messaging/pay-installment-on-payment-succeeded.consumer';
import { subscriptionStores } from '../src/adapters/postgres/stores';
import { recordChargeSucceeded, recordChargesSucceeded } from '../src/application/record-charge-outcome';
import { OPEN_ENDED_HORIZON } from '../src/domain/open-ended';
import { subscriptionsService } from '../src/service';
import {
  aCard,
  chargeDue,
  dunningExhausted,
  eventsAbout,
  paymentFailed,
  paymentSucceeded,
} from './debit-support';
import {
  activeSubscription,
  installmentSets,
  installmentsOfSubscription,
  type InstallmentRow,
  type PaidWithCard,
  publish,
  publishAndWait,
  subscriptionEventData,
  subscriptionOfLink,
  countingStores,
  unitOfWorkOf,
} from './support';

/**
 * Open-ended subscriptions (`totalPeriods: null`: every month until cancelled) on real PostgreSQL and a real
 * RabbitMQ (this file's own exchange and queues): the rolling horizon of 12 installments after the last one
 * settled, topped up by the charge outcome, transfer or cancel that settles one, idempotently; the terms
 * modify-all and modify-dates set; nothing after cancel-all; never completed.
 */
let bus: MessageBus;
let svc: ServiceUnderTest;
const exchange = uniqueName('open_ended_test');
const queuePrefix = `${uniqueName('open_ended_test')}.`;
// Before every date of the plans here: v2 edits of installments made later are not "in the past".
const clock = testClock(new Date('2026-01-20T15:00:00Z'));

beforeAll(async () => {
  bus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix });
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

const OPEN_ENDED = {
  type: 'STATIC' as const,
  installmentAmount: '150000.00',
  totalPeriods: null,
  dayOfMonth: 10,
  monthForSecondInstallment: 1,
};

/** An open-ended subscription created on 2026-01-15 and paid with a card: installment 1 paid, 2..13 pending. */
async function subscribed(merchant: MerchantContext, card: PaidWithCard = aCard()) {
  const customIdentifier = `member-${randomUUID().slice(0, 8)}`;
  const { subscription, installments } = await activeSubscription(
    svc,
    merchant,
    { customIdentifier, recurrence: OPEN_ENDED },
    card,
  );
  return { subscription, installments, card, customIdentifier };
}

const rows = (subscriptionId: number) => installmentsOfSubscription(svc, subscriptionId);

/** Waits until the subscription has `count` installments (or fails), then answers them. */
async function untilCount(subscriptionId: number, count: number): Promise<InstallmentRow[]> {
  return waitFor(
    async () => {
      const current = await rows(subscriptionId);
      return current.length >= count ? current : undefined;
    },
    10_000,
    20,
  );
}

/** Charge-due → charge.requested, as the automatic debit does; the answer is the test's. */
async function charge(merchant: MerchantContext, installment: InstallmentRow) {
  await publishAndWait(svc, chargeDue(merchant, installment));
  const [requested] = await eventsAbout(svc, 'charge.requested', installment.id);
  if (!requested) throw new Error(`installment ${installment.number} was not charged`);
  return requested;
}

/** What the horizon rule says must exist: 12 after the last settled, numbered 1..n, each month once. */
function expectHorizon(installments: InstallmentRow[]) {
  const numbers = installments.map((installment) => installment.number);
  expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, k) => k + 1));
  const settled = installments.filter((i) => ['paid', 'failed', 'cancelled'].includes(i.status));
  expect(numbers.length).toBe(Math.max(...settled.map((i) => i.number)) + OPEN_ENDED_HORIZON);
  const dates = installments.map((installment) => installment.paymentDate);
  expect(new Set(dates).size).toBe(dates.length);
}

/** Every installment announced by `installments.scheduled` (or created), by number: each exactly once. */
async function announcedNumbers(subscriptionId: number): Promise<number[]> {
  const [created] = await subscriptionEventData(svc, 'subscription.created', subscriptionId);
  const scheduled = await installmentSets(svc, 'installments.scheduled', subscriptionId);
  return [
    ...((created?.installments as Array<{ number: number }>) ?? []),
    ...scheduled.flat().map((item) => item as { number: number }),
  ]
    .map((item) => item.number)
    .sort((a, b) => a - b);
}

function monthsLater(date: string, months: number, day: number): string {
  const [year, month] = date.split('-').map(Number) as [number, number];
  const index = year * 12 + month - 1 + months;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

describe('an open-ended subscription', () => {
  it('is created with installment 1 and the 12 months after it; subscription.created says totalPeriods null', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await subscribed(merchant);
    expect(subscription).toMatchObject({ type: 'STATIC', totalPeriods: null, periodsScheduled: 13 });
    expect(installments.map((i) => [i.number, i.paymentDate, i.amount, i.status])).toEqual([
      [1, '2026-01-15', '200000.00', 'paid'],
      ...Array.from({ length: 12 }, (_, k) => [
        k + 2,
        monthsLater('2026-01-15', k + 1, 10),
        '150000.00',
        'pending',
      ]),
    ]);
    const [created] = await subscriptionEventData(svc, 'subscription.created', subscription.id);
    expect(created).toMatchObject({ totalPeriods: null });
    expect(created?.installments).toHaveLength(13);
    const view = await svc.request('GET', `/api/subscriptions/${subscription.id}`, { merchant });
    expect(await view.json()).toMatchObject({ type: 'STATIC', totalPeriods: null, status: 'active' });
  });

  it('adds the next month when a charge pays an installment, once: a redelivery and a repeated report add nothing', async () => {
    const merchant = aMerchant();
    const { subscription, installments, card } = await subscribed(merchant);
    const second = installments[1] as InstallmentRow;
    const requested = await charge(merchant, second);
    const paid = paymentSucceeded(requested, card);
    await publishAndWait(svc, paid);
    const after = await untilCount(subscription.id, 14);
    expect(after.at(-1)).toMatchObject({
      number: 14,
      paymentDate: '2027-02-10',
      amount: '150000.00',
      status: 'pending',
    });
    expectHorizon(after);
    const [scheduled] = await installmentSets(svc, 'installments.scheduled', subscription.id);
    expect(scheduled).toEqual([
      {
        installmentId: after.at(-1)?.id,
        number: 14,
        paymentDate: '2027-02-10',
        amount: '150000.00',
        status: 'pending',
        invoiceNumber: null,
      },
    ]);

    // The same message again (the broker's redelivery), and the same charge reported under a new message id.
    await publish(svc.bus, paid);
    const reported = paymentSucceeded(requested, card);
    await publishAndWait(svc, { ...reported, data: { ...reported.data, chargeId: paid.data.chargeId } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await rows(subscription.id)).toHaveLength(14);
    expect(await announcedNumbers(subscription.id)).toEqual(Array.from({ length: 14 }, (_, k) => k + 1));
    expect((await subscriptionOfLink(svc, subscription.linkId))?.periodsScheduled).toBe(14);
  });

  it('two replicas recording two charges of it while two cancels come through the API add each month once', async () => {
    const merchant = aMerchant();
    const { subscription, installments, card } = await subscribed(merchant);
    const nth = (number: number) => installments[number - 1] as InstallmentRow;
    // The last installments settled are the charged ones (6 and 7): the horizon after them is the charges'.
    const requests = [await charge(merchant, nth(6)), await charge(merchant, nth(7))];
    // Two replicas: each its own consumer unit of work, its own connections, the same database.
    const replicas = [0, 1].map(
      () =>
        payInstallmentOnPaymentSucceeded(unitOfWorkOf(svc), clock, createLogger('test', 'silent')).handler,
    );
    const payments = requests.map((requested) => paymentSucceeded(requested, card)) as [
      EventEnvelope,
      EventEnvelope,
    ];
    const deliver = (index: 0 | 1, event: EventEnvelope) =>
      (replicas[index] as (typeof replicas)[number])({
        id: event.id,
        type: event.type,
        body: JSON.stringify(event),
        headers: {},
        attempt: 1,
      });
    const cancel = (number: number) =>
      svc.request('POST', `/api/subscriptions/installments/${nth(number).id}/cancel`, { merchant });
    const answers = await Promise.all([
      deliver(0, payments[0]),
      deliver(1, payments[1]),
      // The same message to the other replica at once, as after a redelivery while the first is at work.
      deliver(1, payments[0]).catch(() => undefined),
      cancel(3),
      cancel(4),
    ]);
    expect([(answers[3] as Response).status, (answers[4] as Response).status]).toEqual([200, 200]);
    await untilCount(subscription.id, 7 + OPEN_ENDED_HORIZON);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const final = await rows(subscription.id);
    expect(final.map((i) => i.status).slice(0, 8)).toEqual([
      'paid',
      'pending',
      'cancelled',
      'cancelled',
      'pending',
      'paid',
      'paid',
      'pending',
    ]);
    expect(final).toHaveLength(7 + OPEN_ENDED_HORIZON);
    expectHorizon(final);
    expect(await announcedNumbers(subscription.id)).toEqual(final.map((i) => i.number));
    expect((await subscriptionOfLink(svc, subscription.linkId))?.periodsScheduled).toBe(19);
  });

  it('a batch of charges records what the same charges one at a time would, the horizon in one insert', async () => {
    const merchant = aMerchant();
    const copies = [await subscribed(merchant), await subscribed(merchant)];
    // Installments 2 and 3 of each copy charged; their payments then recorded as one batch, or one by one.
    const paymentsOf = async (copy: (typeof copies)[number]) => [
      paymentSucceeded(await charge(merchant, copy.installments[1] as InstallmentRow), copy.card).data,
      paymentSucceeded(await charge(merchant, copy.installments[2] as InstallmentRow), copy.card).data,
    ];
    const [batched, single] = copies as [(typeof copies)[number], (typeof copies)[number]];
    const batchPayments = await paymentsOf(batched);
    const singlePayments = await paymentsOf(single);
    const calls: string[] = [];
    const stores = subscriptionStores(svc.database.db);
    await recordChargesSucceeded(
      { stores: countingStores(stores, calls), clock },
      batchPayments.map((data) => ({ data, within: (work) => work() })),
    );
    for (const data of singlePayments) await recordChargeSucceeded({ stores, clock }, data);

    const shape = async (copy: (typeof copies)[number]) => ({
      installments: (await rows(copy.subscription.id)).map((i) => [
        i.number,
        i.paymentDate,
        i.amount,
        i.status,
      ]),
      periods: (await subscriptionOfLink(svc, copy.subscription.linkId))?.periodsScheduled,
      scheduled: (await installmentSets(svc, 'installments.scheduled', copy.subscription.id)).flatMap((set) =>
        set.map((item) => [item.number, item.paymentDate, item.amount]),
      ),
    });
    const batchedShape = await shape(batched);
    expect(batchedShape).toEqual(await shape(single));
    expect(batchedShape.installments).toHaveLength(15);
    expect(batchedShape.scheduled.map(([number]) => number)).toEqual([14, 15]);
    expect(calls).toEqual([
      'transaction',
      'installments.lockSubscriptionsOfInstallments',
      'attempts.attemptStatuses',
      'installments.insertInstallmentsOfMany',
      'attempts.settleAttempts',
      'installments.saveInstallments',
      'subscriptions.saveSubscriptions',
      'outbox.enqueueEach',
    ]);
  });

  it('adds installments on the terms modify-all and modify-dates set; v1 modify-by-amount, v2 edits and bulk change only theirs', async () => {
    const merchant = aMerchant();
    const { subscription, installments, customIdentifier } = await subscribed(merchant);
    const call = (method: string, path: string, body: unknown) =>
      svc.request(method, path, { merchant, body });

    expect(
      (await call('PUT', '/api/subscriptions/modify-all', { customIdentifier, newAmount: 170000 })).status,
    ).toBe(200);
    expect(
      (await call('PUT', '/api/subscriptions/modify-dates', { customIdentifier, dayOfMonth: 20 })).status,
    ).toBe(200);
    expect(await subscriptionOfLink(svc, subscription.linkId)).toMatchObject({
      installmentAmount: '170000.00',
      dayOfMonth: 20,
    });
    // A cancel settles installment 2: the horizon adds month 14 on the new terms.
    const second = installments[1] as InstallmentRow;
    expect(
      (await call('POST', `/api/subscriptions/installments/${second.id}/cancel`, undefined)).status,
    ).toBe(200);
    let after = await untilCount(subscription.id, 14);
    expect(after.at(-1)).toMatchObject({ number: 14, paymentDate: '2027-02-20', amount: '170000.00' });

    // The installment made later is found by v1, v2 and bulk like the others.
    const fourteenth = after.at(-1) as InstallmentRow;
    const bulk = await call('PATCH', '/api/subscriptions/installments/bulk', {
      operations: [
        { custom_identifier: customIdentifier, updates: [{ payment_date: '2027-02-20', amount: 99000 }] },
      ],
    });
    expect(await bulk.json()).toMatchObject({ summary: { updates_applied: 1, updates_failed: 0 } });
    const byAmount = await call('PUT', '/api/subscriptions/modify-by-amount', {
      customIdentifier,
      amount: 170000,
      newAmount: 180000,
    });
    expect(byAmount.status).toBe(200);
    const moved = await call('PATCH', `/api/subscriptions/installments/${(after[2] as InstallmentRow).id}`, {
      amount: 123000,
    });
    expect(moved.status).toBe(200);
    const listed = await svc.request(
      'GET',
      `/api/subscriptions/installments?custom_identifier=${customIdentifier}`,
      {
        merchant,
      },
    );
    const pending = (await listed.json()) as {
      installments: Array<{ installment_id: number; amount: number }>;
    };
    expect(pending.installments.map((i) => i.installment_id)).toContain(fourteenth.id);

    // Those three changed their installments only: the next one added still follows the plan's terms.
    const third = after[2] as InstallmentRow;
    expect((await call('POST', `/api/subscriptions/installments/${third.id}/cancel`, undefined)).status).toBe(
      200,
    );
    after = await untilCount(subscription.id, 15);
    expect(after.slice(1).map((i) => [i.number, i.amount, i.status])).toEqual([
      [2, '170000.00', 'cancelled'],
      [3, '123000.00', 'cancelled'],
      ...Array.from({ length: 10 }, (_, k) => [k + 4, '180000.00', 'pending']),
      [14, '99000.00', 'pending'],
      [15, '170000.00', 'pending'],
    ]);
    expect(after.at(-1)?.paymentDate).toBe('2027-03-20');
    expectHorizon(after);
  });

  it('goes on after a failed installment (dunning gave up) and a bank transfer, each settling one', async () => {
    const merchant = aMerchant();
    const { subscription, installments, card } = await subscribed(merchant);
    const second = installments[1] as InstallmentRow;
    await publishAndWait(svc, paymentFailed(await charge(merchant, second), card));
    await publishAndWait(svc, dunningExhausted(merchant, second, 4));
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('past_due');
    await untilCount(subscription.id, 14);

    const transfer = await svc.request('POST', '/internal/bank-transfers/settle', {
      merchant,
      body: {
        reference: `TRF-${randomUUID()}`,
        txId: randomUUID(),
        bankName: 'Banco Nacional',
        transferDate: '2026-11-21',
        note: null,
        amount: '150000.00',
        currency: null,
        installmentId: (installments[2] as InstallmentRow).id,
        customIdentifier: null,
        customIdentifier2: null,
        paymentDate: null,
      },
    });
    expect(transfer.status, await transfer.clone().text()).toBe(200);
    const after = await untilCount(subscription.id, 15);
    expect(after.slice(0, 3).map((i) => i.status)).toEqual(['paid', 'failed', 'paid']);
    expectHorizon(after);
  });

  it('is never completed: with every installment it has settled, the next 12 are added', async () => {
    const merchant = aMerchant();
    const { subscription, customIdentifier } = await subscribed(merchant);
    const cancelled = await svc.request('POST', '/api/subscriptions/cancel-by-amount', {
      merchant,
      body: { customIdentifier, amount: 150000 },
    });
    expect(cancelled.status).toBe(200);
    const after = await untilCount(subscription.id, 25);
    expect(after.filter((i) => i.status === 'pending').map((i) => i.number)).toEqual(
      Array.from({ length: 12 }, (_, k) => k + 14),
    );
    expectHorizon(after);
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('active');
    expect(await subscriptionEventData(svc, 'subscription.completed', subscription.id)).toEqual([]);
  });

  it('ends with cancel-all: nothing is added after it, not even when a charge in flight is paid', async () => {
    const merchant = aMerchant();
    const { subscription, installments, card, customIdentifier } = await subscribed(merchant);
    const second = installments[1] as InstallmentRow;
    const inFlight = await charge(merchant, second);
    const cancelled = await svc.request('POST', '/api/subscriptions/cancel-all', {
      merchant,
      body: { customIdentifier },
    });
    expect(cancelled.status).toBe(200);
    await publishAndWait(svc, paymentSucceeded(inFlight, card));
    const after = await rows(subscription.id);
    expect(after).toHaveLength(13);
    expect(after.map((i) => i.status)).toEqual(['paid', 'paid', ...Array(11).fill('cancelled')]);
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('cancelled');
    expect(await installmentSets(svc, 'installments.scheduled', subscription.id)).toEqual([]);
    expect(await subscriptionEventData(svc, 'subscription.completed', subscription.id)).toEqual([]);
    // No charge either: a charge-due for a cancelled installment is skipped.
    const third = installments[2] as InstallmentRow;
    await publishAndWait(svc, chargeDue(merchant, third));
    expect(await eventsAbout(svc, 'charge.requested', third.id)).toEqual([]);
    const skipped = await eventsAbout(svc, 'installment.charge-skipped', third.id);
    expect(skipped.map((event) => event.data.reason)).toEqual(['not-pending']);
  });
});
