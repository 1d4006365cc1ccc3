import { createEvent, type EventInput, type EventType } from '@payrail/contracts';
import { rowsOf } from '@payrail/db';
import type { DeliveredMessage, MessageBus } from '@payrail/messaging';
import type { ServiceUnderTest } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENVELOPE_MONEY } from '../../src/domain/webhooks/envelope';
import {
  call,
  createEndpoint,
  createMerchant,
  freshId,
  publishEveryKind,
  startWebhookGateway,
  webhookEventsConsumer,
} from './support';

// The envelope as receivers in the field store it: one row per notification in a strict table, "paid"
// decided from `statusId` alone, `event` ignored. So: identifiers always strings, `statusId` on payment
// events only, one `PAYMENT_SUCCESS` per money movement with its one `txId`, `subscriptionPayedPeriod` the
// periods paid (never the period an event is about), and amounts where the table of kinds says.

let gateway: ServiceUnderTest;
let merchant: { merchantId: string; token: string };
beforeAll(async () => {
  gateway = await startWebhookGateway({ WEBHOOK_DELIVERY_WORKER: 'false' });
  merchant = await createMerchant(gateway, 'Field receiver');
});
afterAll(async () => {
  await gateway?.stop();
});

interface Envelope {
  id: string;
  event: string;
  data: Record<string, unknown> & {
    txId: string | null;
    customIdentifier: unknown;
    customIdentifier2: unknown;
    subscriptionId: number | null;
    subscriptionPayedPeriod: number | null;
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A bus that keeps what is published, as messages the consumer is handed. */
function keepingBus() {
  const messages: DeliveredMessage[] = [];
  const bus = {
    async publish(message: { id: string; type: string; body: string }) {
      messages.push({ ...message, headers: {}, attempt: 1 });
    },
  } as unknown as MessageBus;
  return { bus, messages };
}

let at = Date.parse('2026-12-01T09:00:00Z');
function message<T extends EventType>(type: T, data: EventInput<T>): DeliveredMessage {
  at += 1000;
  const event = createEvent(type, data, new Date(at));
  return { id: event.id, type, body: JSON.stringify(event), headers: {}, attempt: 1 };
}

const handler = () => webhookEventsConsumer(gateway.database.db).handler;

async function oneByOne(messages: DeliveredMessage[]) {
  const handle = handler();
  for (const each of messages) await handle(each);
}

async function envelopes(): Promise<Envelope[]> {
  const rows = rowsOf<{ body: string }>(
    await gateway.database.db.execute(
      sql`select body from gateway.webhook_events where merchant_id = ${merchant.merchantId} order by seq`,
    ),
  );
  return rows.map((row) => JSON.parse(row.body) as Envelope);
}

/** The kinds with a `statusId`: 200 paid, 5 declined, 9 money given back. */
const STATUS_IDS: Record<string, number> = { PAYMENT_SUCCESS: 200, PAYMENT_FAILED: 5, PAYMENT_REFUNDED: 9 };
const PAYMENTS = Object.keys(STATUS_IDS);
/** What an endpoint registered without `events` takes. */
const DEFAULT_KINDS = ['PAYMENT_SUCCESS', 'PAYMENT_FAILED'];

describe('the webhook envelope, as a strict receiver stores it', () => {
  it('every kind: identifiers strings, statusId on payments only, amount as the kinds table says, one payment per movement', async () => {
    const { bus, messages } = keepingBus();
    const story = await publishEveryKind(bus, merchant.merchantId);
    await oneByOne(messages);
    const all = await envelopes();
    expect(new Set(all.map((envelope) => envelope.event)).size).toBe(14);

    for (const { event, data } of all) {
      expect(typeof data.customIdentifier, event).toBe('string');
      expect(typeof data.customIdentifier2, event).toBe('string');
      const payment = PAYMENTS.includes(event);
      expect('statusId' in data, `${event} statusId`).toBe(payment);
      if (payment) expect(data.statusId).toBe(STATUS_IDS[event]);
      const money = ENVELOPE_MONEY[event as keyof typeof ENVELOPE_MONEY];
      expect('amount' in data, `${event} amount`).toBe(money !== 'none');
      if (money !== 'none') expect(typeof data.amount, `${event} amount`).toBe('number');
      // A payment is a money movement, named by processor-gateway's id of it.
      if (payment) expect(data.txId, event).toMatch(UUID);
    }

    // The receiver's rows marked paid: one per money movement that took money, each its own txId.
    const paid = all.filter(({ data }) => data.statusId === 200);
    const { movements } = story;
    expect(paid.map(({ data }) => data.txId).sort()).toEqual(
      [
        movements.firstPayment,
        movements.installmentTransfer,
        movements.cardPayment,
        movements.linkTransfer,
      ].sort(),
    );
    expect(
      all
        .filter(({ event }) => event === 'PAYMENT_FAILED')
        .map(({ data }) => data.txId)
        .sort(),
    ).toEqual([movements.declinedDebit, movements.declinedCard].sort());

    // A bank transfer: one PAYMENT_SUCCESS (BANK_TRANSFER, its bank reference and details), and a notice
    // with the same txId that reads as no payment.
    for (const [txId, reference] of [
      [movements.installmentTransfer, 'TRX-000123'],
      [movements.linkTransfer, 'TRX-000124'],
    ]) {
      const ofTransfer = all.filter(({ data }) => data.txId === txId);
      expect(ofTransfer.map(({ event }) => event)).toEqual(['PAYMENT_SUCCESS', 'BANK_TRANSFER_REGISTERED']);
      expect(ofTransfer[0]?.data).toMatchObject({
        method: 'BANK_TRANSFER',
        bankReference: reference,
        bankName: expect.any(String),
        transferDate: expect.any(String),
      });
      expect(ofTransfer[1]?.data).toMatchObject({ bankReference: reference });
      expect(ofTransfer[1]?.data).not.toHaveProperty('amount');
    }
    const card = all.find(({ data }) => data.txId === movements.cardPayment);
    expect(card?.data).toMatchObject({
      method: 'CARD',
      processor: 'PARAGUAY.PROCESSOR_B',
      processorReference: '000000000004',
      authorizationCode: 'B-77',
      payRequestId: story.paid,
      customIdentifier: '',
      customIdentifier2: '',
      // A one-off payment: no period of anything.
      subscriptionId: null,
      subscriptionPayedPeriod: null,
      installmentNumber: null,
    });

    // The subscription's envelopes: the periods paid so far, and the period each is about on its own.
    const ofSubscription = all.filter(({ data }) => data.subscriptionId === story.subscriptionId);
    expect(
      ofSubscription.map(({ event, data }) => [
        event,
        data.subscriptionPayedPeriod,
        data.installmentNumber ?? null,
        data.customIdentifier,
        data.customIdentifier2,
      ]),
    ).toEqual([
      ['PAYMENT_SUCCESS', 1, 1, '4567890', ''],
      ['SUBSCRIPTION_ACTIVATED', 1, null, '4567890', ''],
      ['INSTALLMENT_UPDATED', 1, null, '4567890', ''],
      ['INSTALLMENT_CANCELLED', 1, null, '4567890', ''],
      // Installment 2 declined: one period is paid, not two.
      ['PAYMENT_FAILED', 1, 2, '4567890', ''],
      ['INSTALLMENT_FAILED', 1, 2, '4567890', ''],
      ['SUBSCRIPTION_PAST_DUE', 1, null, '4567890', ''],
      ['PAYMENT_SUCCESS', 2, 2, '4567890', ''],
      ['BANK_TRANSFER_REGISTERED', 2, 2, '4567890', ''],
      // A refund changes no count: the installment stays paid. The link's payment was installment 1.
      ['PAYMENT_REFUNDED', 2, 2, '4567890', ''],
      ['REFUND_FAILED', 2, 1, '4567890', ''],
      ['SUBSCRIPTION_COMPLETED', 2, null, '4567890', ''],
      ['SUBSCRIPTION_CANCELLED', 2, null, '4567890', ''],
    ]);
    // Installment changes carry the installments' amount (their sum), never null.
    const byKind = (kind: string) => ofSubscription.find(({ event }) => event === kind)?.data;
    expect(byKind('INSTALLMENT_UPDATED')?.amount).toBe(160000);
    expect(byKind('INSTALLMENT_CANCELLED')?.amount).toBe(150000);
    expect(byKind('INSTALLMENT_FAILED')?.amount).toBe(160000);

    // Refunds: a movement of their own (`txId`), of the payment `paymentTxId`; money given back is 9,
    // never 200; a failed refund is a notice without money.
    const byTxId = (txId: string) => all.find(({ data }) => data.txId === txId);
    expect(byTxId(movements.transferRefund)).toMatchObject({
      event: 'PAYMENT_REFUNDED',
      data: {
        paymentTxId: movements.installmentTransfer,
        amount: 60000,
        refundedAmount: 60000,
        statusId: 9,
        subscriptionId: story.subscriptionId,
        payRequestId: story.linkId,
        installmentId: story.installments[1],
        mode: 'outside',
        method: 'BANK_TRANSFER',
        processor: null,
        reference: 'DEV-000042',
        reason: 'Paid twice',
        refundedAt: '2026-12-07T10:00:00.000Z',
      },
    });
    const failed = byTxId(movements.failedRefund);
    expect(failed).toMatchObject({
      event: 'REFUND_FAILED',
      data: {
        paymentTxId: movements.firstPayment,
        subscriptionId: story.subscriptionId,
        installmentNumber: 1,
        mode: 'rollback',
        method: 'CARD',
        code: 'PROCESSOR_UNAVAILABLE',
        failedAt: '2026-12-07T10:01:00.000Z',
      },
    });
    expect(failed?.data).not.toHaveProperty('amount');
    expect(failed?.data).not.toHaveProperty('refundedAmount');
    expect(byTxId(movements.cardRefund)).toMatchObject({
      event: 'PAYMENT_REFUNDED',
      data: {
        paymentTxId: movements.cardPayment,
        payRequestId: story.paid,
        amount: 50000,
        statusId: 9,
        label: 'T-shirt',
        subscriptionId: null,
        subscriptionPayedPeriod: null,
        installmentNumber: null,
        processor: 'PARAGUAY.PROCESSOR_B',
      },
    });

    // Delivered again, all of it: nothing more in the log, the counts as they were.
    await oneByOne(messages.map((each) => ({ ...each, attempt: 2 })));
    expect(await envelopes()).toEqual(all);
  });

  it('identifiers as given: a value, "" and none are a value, "" and "" on the wire', async () => {
    const ids = [freshId(), freshId(), freshId()];
    const cases: Array<[string | null, string | null]> = [
      ['4567890', 'K-1'],
      ['', ''],
      [null, null],
    ];
    const messages = ids.flatMap((linkId, index) => {
      const [customIdentifier, customIdentifier2] = cases[index] as [string | null, string | null];
      return [
        message('link.created', {
          linkId,
          merchantId: merchant.merchantId,
          slug: `s${linkId}`,
          label: 'Cuota',
          amount: '100000.00',
          currency: 'PYG',
          customIdentifier,
          customIdentifier2,
          paymentMethods: ['PARAGUAY.PROCESSOR_A'],
          timezone: 'America/Asuncion',
          createdAt: '2026-12-01T09:00:00.000Z',
          createdOn: '2026-12-01',
          recurrence: null,
        }),
        message('link.expired', {
          linkId,
          merchantId: merchant.merchantId,
          amount: '100000.00',
          currency: 'PYG',
          expiredAt: '2026-12-02T09:00:00.000Z',
        }),
      ];
    });
    await oneByOne(messages);
    const expired = (await envelopes()).filter(({ data }) => ids.includes(data.payRequestId as number));
    expect(expired.map(({ data }) => [data.customIdentifier, data.customIdentifier2])).toEqual([
      ['4567890', 'K-1'],
      ['', ''],
      ['', ''],
    ]);
    // Expired is not a payment: the link's amount, no statusId.
    for (const { data } of expired) {
      expect(data.amount).toBe(100000);
      expect(data).not.toHaveProperty('statusId');
    }
  });

  it('the paid count survives a payment heard of before its subscription, and never goes down', async () => {
    const linkId = freshId();
    const subscriptionId = freshId();
    const [first, second, third] = [freshId(), freshId(), freshId()];
    const snapshot = {
      subscriptionId,
      merchantId: merchant.merchantId,
      linkId,
      type: 'STATIC' as const,
      customIdentifier: null,
      customIdentifier2: null,
      currency: 'PYG' as const,
      timezone: 'America/Asuncion',
    };
    const paid = (installmentId: number, number: number, paidCount: number) =>
      message('installment.paid', {
        ...snapshot,
        installmentId,
        number,
        paymentDate: '2026-12-05',
        amount: '100000.00',
        status: 'paid',
        invoiceNumber: null,
        paidAt: '2026-12-05T09:00:00.000Z',
        method: 'CARD',
        paidCount,
        paidTotal: `${100000 * paidCount}.00`,
        chargeAttempt: number === 1 ? null : 1,
        txId: `0190f0c6-0000-7000-8000-${String(installmentId).padStart(12, '0')}`,
      });
    // Period 1's payment before the subscription is known; period 3's before period 2's.
    await oneByOne([
      paid(first, 1, 1),
      message('link.created', {
        linkId,
        merchantId: merchant.merchantId,
        slug: `s${linkId}`,
        label: 'Plan',
        amount: '100000.00',
        currency: 'PYG',
        customIdentifier: null,
        customIdentifier2: null,
        paymentMethods: ['PARAGUAY.PROCESSOR_A'],
        timezone: 'America/Asuncion',
        createdAt: '2026-12-01T09:00:00.000Z',
        createdOn: '2026-12-01',
        recurrence: {
          type: 'STATIC',
          installmentAmount: '100000.00',
          totalPeriods: 3,
          dayOfMonth: 5,
          monthForSecondInstallment: 1,
        },
      }),
      message('subscription.created', {
        ...snapshot,
        status: 'pending',
        installments: [first, second, third].map((installmentId, index) => ({
          installmentId,
          number: index + 1,
          paymentDate: '2026-12-05',
          amount: '100000.00',
        })),
      }),
      message('subscription.activated', {
        ...snapshot,
        status: 'active',
        activatedAt: '2026-12-01T09:05:00.000Z',
      }),
      message('installments.updated', {
        ...snapshot,
        status: 'active',
        installments: [second, third].map((installmentId, index) => ({
          installmentId,
          number: index + 2,
          paymentDate: '2026-12-05',
          amount: index === 0 ? '100000.50' : '120000.25',
          status: 'pending' as const,
          invoiceNumber: null,
          changedFields: ['amount' as const],
        })),
      }),
      // Paid 2 then 3 (counts 2 and 3), heard of the other way round.
      paid(third, 3, 3),
      paid(second, 2, 2),
    ]);
    const told = (await envelopes())
      .filter(({ data }) => data.subscriptionId === subscriptionId)
      .map(({ event, data }) => [
        event,
        data.installmentNumber ?? null,
        data.subscriptionPayedPeriod,
        data.amount,
      ]);
    expect(told).toEqual([
      ['PAYMENT_SUCCESS', 1, 1, 100000],
      ['SUBSCRIPTION_ACTIVATED', null, 1, undefined],
      // Two installments listed: their sum.
      ['INSTALLMENT_UPDATED', null, 1, 220000.75],
      ['PAYMENT_SUCCESS', 3, 3, 100000],
      // Period 2's payment came last, when three were known paid: three, never fewer.
      ['PAYMENT_SUCCESS', 2, 3, 100000],
    ]);
  });

  it('a new endpoint takes PAYMENT_SUCCESS and PAYMENT_FAILED only (no refunds); ["*"] takes every kind; the test event reads as no payment', async () => {
    const { merchantId, token } = await createMerchant(gateway, 'Endpoint defaults');
    const payments = await createEndpoint(gateway, token, { url: 'http://127.0.0.1:9/payments' });
    const everything = await createEndpoint(gateway, token, { url: 'http://127.0.0.1:9/all', events: ['*'] });
    const { bus, messages } = keepingBus();
    await publishEveryKind(bus, merchantId);
    await oneByOne(messages);
    const queued = rowsOf<{ endpoint_id: string; kind: string }>(
      await gateway.database.db.execute(
        sql`select endpoint_id, kind from gateway.webhook_deliveries where merchant_id = ${merchantId}`,
      ),
    );
    const kindsOf = (id: string) =>
      new Set(queued.filter((row) => row.endpoint_id === id).map((row) => row.kind));
    expect(kindsOf(payments.id)).toEqual(new Set(DEFAULT_KINDS));
    expect(kindsOf(everything.id).size).toBe(14);

    const test = await call(gateway, 'POST', `/api/webhook-endpoints/${payments.id}/test`, { token });
    expect(test.status).toBe(202);
    const [row] = rowsOf<{ body: string }>(
      await gateway.database.db.execute(
        sql`select body from gateway.webhook_events where id = ${test.body.eventId}`,
      ),
    );
    const data = JSON.parse(row?.body ?? '{}').data;
    expect(data).toMatchObject({ customIdentifier: '', customIdentifier2: '', endpointId: payments.id });
    expect(data).not.toHaveProperty('statusId');
    expect(data).not.toHaveProperty('amount');
  });
});
