import {
  customerSubscriptionCancelPath,
  customerSubscriptionCardPath,
  customerSubscriptionsPath,
  type EventEnvelope,
  type MerchantContext,
} from '@payrail/contracts';
import { createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import {
  aMerchant,
  deleteBrokerTopology,
  type ServiceUnderTest,
  startService,
  testAmqpUrl,
  testClock,
  uniqueName,
} from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMERS } from '../../../scripts/processes';
import { subscriptionsService } from '../src/service';
import {
  aCard,
  attemptRows,
  chargeDue,
  dunningExhausted,
  eventsAbout,
  paymentFailed,
  paymentSucceeded,
  retryScheduled,
} from './debit-support';
import {
  activeSubscription,
  installmentsOfSubscription,
  type PaidWithCard,
  publishAndWait,
  subscriptionEventData,
  subscriptionOfLink,
} from './support';

/**
 * The customer's own page asks subscriptions (issue 29): their subscriptions, the card of one of them (a
 * declined installment charged to the new card at once, exactly once however many requests come at
 * once), cancel by the customer; another customer's or merchant's subscription is not found. Real
 * PostgreSQL and RabbitMQ, as the automatic debit's tests.
 */
let bus: MessageBus;
let svc: ServiceUnderTest;
const exchange = uniqueName('customer_subs');
const queuePrefix = `${uniqueName('customer_subs')}.`;

beforeAll(async () => {
  bus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix });
  svc = await startService(subscriptionsService, { bus, clock: testClock(new Date('2026-02-10T15:00:00Z')) });
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

async function subscribed(merchant: MerchantContext, card: PaidWithCard) {
  return activeSubscription(
    svc,
    merchant,
    {
      recurrence: {
        type: 'STATIC',
        installmentAmount: '150000.00',
        totalPeriods: 4,
        dayOfMonth: 10,
        monthForSecondInstallment: 1,
      },
    },
    card,
  );
}

/** An internal call as links makes it, its answer read. */
async function ask(method: string, path: string, merchant: MerchantContext, body?: unknown) {
  const response = await svc.request(method, path, { merchant, body });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

const requested = (installmentId: number) => eventsAbout(svc, 'charge.requested', installmentId);

async function changeCard(
  merchant: MerchantContext,
  customerId: number,
  subscriptionId: number,
  card: PaidWithCard,
) {
  return ask('POST', customerSubscriptionCardPath(customerId, subscriptionId), merchant, {
    paymentMethodId: card.paymentMethodId,
    processor: card.processor,
  });
}

async function statusOf(subscriptionId: number, number: number) {
  return (await installmentsOfSubscription(svc, subscriptionId)).find((row) => row.number === number)?.status;
}

describe('the card of a subscription, changed by its customer', () => {
  it('a failed installment (past due) is charged once to the new card, from ten requests at once; declined it is failed again; paid it is active', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { subscription, installments } = await subscribed(merchant, card);
    const second = installments[1] as (typeof installments)[number];
    await publishAndWait(svc, chargeDue(merchant, second));
    const [first] = await requested(second.id);
    await publishAndWait(svc, paymentFailed(first as EventEnvelope<'charge.requested'>, card, '51', 'soft'));
    await publishAndWait(svc, dunningExhausted(merchant, second, 1));
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('past_due');

    const newCard = { ...aCard(card.customerId), processor: 'PARAGUAY.PROCESSOR_B' as const };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => changeCard(merchant, card.customerId, subscription.id, newCard)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    const charged = answers.flatMap((answer) => (answer.body as { charged: number[] }).charged);
    expect(charged).toEqual([second.id]);
    const charges = (await requested(second.id)) as Array<EventEnvelope<'charge.requested'>>;
    expect(charges.map((event) => [event.data.idempotencyKey, event.data.paymentMethodId])).toEqual([
      [`installment:${second.id}:attempt:1`, card.paymentMethodId],
      [`installment:${second.id}:attempt:2`, newCard.paymentMethodId],
    ]);
    expect(await statusOf(subscription.id, 2)).toBe('processing');
    expect((await subscriptionOfLink(svc, subscription.linkId))?.paymentMethodId).toBe(
      newCard.paymentMethodId,
    );

    // Declined by the new card: failed again (dunning had given up), still past due.
    await publishAndWait(
      svc,
      paymentFailed(charges[1] as EventEnvelope<'charge.requested'>, newCard, '05', 'hard'),
    );
    expect(await statusOf(subscription.id, 2)).toBe('failed');
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('past_due');

    // Another card: charged again (attempt 3), approved: paid, active again.
    const third = aCard(card.customerId);
    const answer = await changeCard(merchant, card.customerId, subscription.id, third);
    expect((answer.body as { charged: number[] }).charged).toEqual([second.id]);
    const latest = (await requested(second.id))[2] as EventEnvelope<'charge.requested'>;
    expect(latest.data.idempotencyKey).toBe(`installment:${second.id}:attempt:3`);
    await publishAndWait(svc, paymentSucceeded(latest, third));
    expect(await statusOf(subscription.id, 2)).toBe('paid');
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('active');
    // Nothing declined any more: a change now only changes the card.
    const after = await changeCard(merchant, card.customerId, subscription.id, card);
    expect((after.body as { charged: number[] }).charged).toEqual([]);
    expect(await requested(second.id)).toHaveLength(3);
    expect((await attemptRows(svc, second.id)).map((row) => [row.attempt, row.status])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'succeeded'],
    ]);
  });

  it('an installment waiting for its retry is charged at once; the retry billing-scheduler had planned finds it paid', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { subscription, installments } = await subscribed(merchant, card);
    const second = installments[1] as (typeof installments)[number];
    await publishAndWait(svc, chargeDue(merchant, second));
    const [first] = await requested(second.id);
    await publishAndWait(svc, paymentFailed(first as EventEnvelope<'charge.requested'>, card, '51', 'soft'));
    await publishAndWait(svc, retryScheduled(merchant, second, 1, '2026-03-12'));
    expect(await statusOf(subscription.id, 2)).toBe('pending');

    const newCard = aCard(card.customerId);
    const answer = await changeCard(merchant, card.customerId, subscription.id, newCard);
    expect((answer.body as { charged: number[] }).charged).toEqual([second.id]);
    const charge = (await requested(second.id))[1] as EventEnvelope<'charge.requested'>;
    await publishAndWait(svc, paymentSucceeded(charge, newCard));
    expect(await statusOf(subscription.id, 2)).toBe('paid');
    // billing-scheduler's retry (attempt 2, already requested) charges nothing.
    await publishAndWait(svc, chargeDue(merchant, second, 2));
    expect(await requested(second.id)).toHaveLength(2);
  });

  it('lists the customer’s own subscriptions only; another customer’s or merchant’s is not found (404)', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { subscription } = await subscribed(merchant, card);
    const other = aCard();
    await subscribed(merchant, other);

    const listed = await ask('GET', customerSubscriptionsPath(card.customerId), merchant);
    expect(listed.status).toBe(200);
    const views = (listed.body as { subscriptions: Array<Record<string, unknown>> }).subscriptions;
    expect(views.map((view) => [view.subscriptionId, view.status, view.paymentMethodId])).toEqual([
      [subscription.id, 'active', card.paymentMethodId],
    ]);
    expect((await ask('GET', customerSubscriptionsPath(card.customerId), aMerchant())).body).toEqual({
      subscriptions: [],
    });

    const byOther = await changeCard(merchant, other.customerId, subscription.id, other);
    expect(byOther.status).toBe(404);
    const atOtherMerchant = await changeCard(aMerchant(), card.customerId, subscription.id, card);
    expect(atOtherMerchant.status).toBe(404);
    const cancelByOther = await ask(
      'POST',
      customerSubscriptionCancelPath(other.customerId, subscription.id),
      merchant,
    );
    expect(cancelByOther.status).toBe(404);
    expect((await subscriptionOfLink(svc, subscription.linkId))?.paymentMethodId).toBe(card.paymentMethodId);
  });

  it('cancelled by its customer: pending installments cancelled, subscription.cancelled with reason customer', async () => {
    const merchant = aMerchant();
    const card = aCard();
    const { subscription } = await subscribed(merchant, card);
    const cancelled = await ask(
      'POST',
      customerSubscriptionCancelPath(card.customerId, subscription.id),
      merchant,
    );
    expect(cancelled.status).toBe(200);
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('cancelled');
    expect(await subscriptionEventData(svc, 'subscription.cancelled', subscription.id)).toEqual([
      expect.objectContaining({ reason: 'customer', status: 'cancelled' }),
    ]);
    const rows = await installmentsOfSubscription(svc, subscription.id);
    expect(rows.filter((row) => row.number > 1).every((row) => row.status === 'cancelled')).toBe(true);
    // A cancelled subscription takes no new card.
    expect(
      (await changeCard(merchant, card.customerId, subscription.id, aCard(card.customerId))).status,
    ).toBe(409);
  });
});
