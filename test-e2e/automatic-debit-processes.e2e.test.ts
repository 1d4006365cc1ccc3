import { createEvent } from '@payrail/contracts';
import { DEMO_MERCHANT } from '@payrail/gateway';
import { createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import {
  aDynamicLink,
  aStaticLink,
  createTestDatabase,
  type TestDatabase,
  testAmqpUrl,
  uniqueName,
  waitFor,
} from '@payrail/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, byNumber, type DebitApi, debitApi } from './debit-support';
import { INTERNAL_SECRET, internal, registerCard, sandbox } from './processor-support';
import { DEMO_TOKEN, type E2eSystem, startSystem, tearDown } from './support';

// Automatic debit end to end: every service its own process on real PostgreSQL and RabbitMQ, the real
// processor sandbox, everything asked through the gateway. The card is saved through the sandbox's own form
// (`/__sandbox/complete`), the first payment is charged to it as the pay page charges a saved card, and
// announced as links announces it (`link.paid` with the vault's card and the charge); from there only as-of runs (`POST /admin/billing/runs`, with
// SIMULATED_TIME so that a run as of next month is how the months pass) and the merchant API act. The
// sandbox's ledger, not our tables, says what was charged.

const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
const MERCHANT_ID = DEMO_MERCHANT.merchantId;
let testDb: TestDatabase;
let sql: postgres.Sql;
let system: E2eSystem;
let bus: MessageBus;
let api: DebitApi;
const exchange = uniqueName('e2e_debit_events');
const queuePrefix = `${uniqueName('e2e_debit')}.`;
const EXTRA_CONSUMERS = [
  'links.cancel-link-on-subscription-cancelled',
  'processor-gateway.charge-on-charge-requested',
  'subscriptions.request-charge-on-charge-due',
  'subscriptions.pay-installment-on-payment-succeeded',
  'subscriptions.record-decline-on-payment-failed',
  'subscriptions.record-retry-on-retry-scheduled',
  'subscriptions.fail-installment-on-dunning-exhausted',
  'subscriptions.forget-card-on-payment-method-removed',
  'subscriptions.replace-card-on-payment-method-saved',
];

beforeAll(async () => {
  testDb = await createTestDatabase('e2e_debit');
  sql = postgres(testDb.url, { max: 2, onnotice: () => {} });
  system = await startSystem({
    DATABASE_URL: testDb.url,
    AMQP_URL: testAmqpUrl(),
    EVENTS_EXCHANGE: exchange,
    QUEUE_PREFIX: queuePrefix,
    DEMO_API_TOKEN: DEMO_TOKEN,
    ADMIN_TOKEN,
    INTERNAL_SECRET,
    PUBLIC_BASE_URL: 'https://pay.example.test',
    SIMULATED_TIME: 'true',
    BILLING_RUN_INTERVAL_MS: '0',
  });
  api = debitApi({
    gatewayUrl: system.gatewayUrl,
    apiToken: DEMO_TOKEN,
    adminToken: ADMIN_TOKEN,
    merchantId: MERCHANT_ID,
  });
  bus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix });
  await bus.start();
}, 120_000);

afterAll(async () => {
  await tearDown({ bus, system, sql, testDb }, { exchange, queuePrefix, extraConsumers: EXTRA_CONSUMERS });
}, 60_000);

/** A STATIC link through the gateway, its subscription, a card saved on the sandbox's form, the first payment. */
async function subscribe(customIdentifier: string, cardNumber: string, totalPeriods: number | 'DYNAMIC') {
  const created = await api.call(
    'POST',
    '/api/saleitems/add',
    totalPeriods === 'DYNAMIC'
      ? aDynamicLink({ customIdentifier, amount: 120000 })
      : aStaticLink({
          customIdentifier,
          totalPeriods,
          amount: 120000,
          installmentAmount: 120000,
          dayOfMonth: 10,
        }),
  );
  expect(created.status).toBe(200);
  const linkId = (created.body as { id: number }).id;
  const found = await waitFor(async () => {
    const listed = await api.call('GET', `/api/subscriptions?payRequestId=${linkId}`);
    return (listed.body as { subscriptions: Array<{ id: number }> }).subscriptions[0];
  }, 20_000);
  const customerId = 700_000 + Math.floor(Math.random() * 100_000);
  const { saved } = await registerCard(
    system.urls['processor-gateway'],
    system,
    DEMO_MERCHANT,
    customerId,
    'PARAGUAY.PROCESSOR_A',
    cardNumber,
  );
  const card = saved[0];
  expect(card).toBeDefined();
  // The first payment, as the pay page makes it with a saved card: a real approved charge at the sandbox.
  const first = await internal(
    system.urls['processor-gateway'],
    DEMO_MERCHANT,
    'POST',
    '/payments/saved-card',
    {
      linkId,
      paymentNumber: 1,
      customerId,
      paymentMethodId: card?.paymentMethodId,
      amount: 120000,
      currency: 'PYG',
    },
  );
  expect(first.status).toBe(201);
  const charge = await waitFor(async () => {
    const response = await internal(
      system.urls['processor-gateway'],
      DEMO_MERCHANT,
      'GET',
      `/links/${linkId}/payments/1`,
    );
    const view = (await response.json()) as { chargeId: string; status: string };
    return view.status === 'succeeded' && view;
  }, 20_000);
  const paid = createEvent(
    'link.paid',
    {
      linkId,
      merchantId: MERCHANT_ID,
      amount: '120000.00',
      currency: 'PYG',
      paidAt: new Date().toISOString(),
      txId: `tx-${linkId}`,
      recurrent: true,
      method: 'CARD',
      processor: 'PARAGUAY.PROCESSOR_A',
      paymentMethodId: card?.paymentMethodId ?? null,
      chargeId: charge.chargeId,
      customerId,
    },
    new Date(),
  );
  await bus.publish({ id: paid.id, type: paid.type, body: JSON.stringify(paid) });
  return waitFor(async () => {
    const view = await api.subscription(found.id);
    return view.status === 'active' && view;
  }, 20_000);
}

/** What the sandbox charged for one installment (all attempts), by the references processor-gateway sent. */
async function ledgerOf(installmentId: number) {
  const charges = await sql<Array<{ reference: string }>>`
    select reference from processor_gateway.charges where idempotency_key like ${`installment:${installmentId}:attempt:%`}`;
  const references = new Set(charges.map((charge) => charge.reference));
  const { entries } = await sandbox<{
    entries: Array<{ kind: string; reference: string; resultCode: string; amount: string }>;
  }>(system, 'GET', '/ledger');
  return entries.filter((entry) => entry.kind === 'charge' && references.has(entry.reference));
}

/** subscriptions marks it paid on the same payment.succeeded the run counts: it may be a moment later. */
async function paidInSubscriptions(subscriptionId: number, number: number) {
  await waitFor(async () => byNumber(await api.subscription(subscriptionId), number).status === 'paid');
}

describe('automatic debit through the gateway, services as processes', () => {
  it('charges each installment once on its day; modify-all, a cancelled installment and modify-dates are respected', async () => {
    const start = await subscribe('debit-monthly', '4242424242424242', 5);
    const [second, third, fourth, fifth] = [2, 3, 4, 5].map((n) => byNumber(start, n));
    if (!second || !third || !fourth || !fifth) throw new Error('schedule incomplete');

    // Month of installment 2: the day before, nothing; on the day, charged once.
    expect((await api.runAsOf(addDays(second.paymentDate, -1))).due).toBe(0);
    expect(await api.runAsOf(second.paymentDate)).toMatchObject({ due: 1, requested: 1, succeeded: 1 });
    await paidInSubscriptions(start.id, 2);
    expect((await ledgerOf(second.installmentId)).map((entry) => [entry.resultCode, entry.amount])).toEqual([
      ['00', '120000.00'],
    ]);

    // The merchant raises the amount: installment 3 is charged at the new amount.
    expect(
      (
        await api.call('PUT', '/api/subscriptions/modify-all', {
          customIdentifier: 'debit-monthly',
          newAmount: 130000,
        })
      ).status,
    ).toBe(200);
    expect(await api.runAsOf(third.paymentDate)).toMatchObject({ due: 1, succeeded: 1 });
    expect((await ledgerOf(third.installmentId)).map((entry) => [entry.resultCode, entry.amount])).toEqual([
      ['00', '130000.00'],
    ]);

    // Installment 4 cancelled: never charged (a run that claimed it before the cancellation reached the
    // scheduler is told so by subscriptions, and skips it).
    expect(
      (await api.call('POST', `/api/subscriptions/installments/${fourth.installmentId}/cancel`)).status,
    ).toBe(200);
    expect((await api.runAsOf(fourth.paymentDate)).succeeded).toBe(0);
    expect(await ledgerOf(fourth.installmentId)).toEqual([]);

    // Installment 5 moved from the 10th to the 20th: not on the 10th, on the 20th.
    expect(
      (
        await api.call('PUT', '/api/subscriptions/modify-dates', {
          customIdentifier: 'debit-monthly',
          dayOfMonth: 20,
        })
      ).status,
    ).toBe(200);
    const moved = byNumber(await api.subscription(start.id), 5);
    expect(moved.paymentDate).toBe(`${fifth.paymentDate.slice(0, 8)}20`);
    await waitFor(async () => {
      const [row] =
        await sql`select due_on::text as due_on from billing_scheduler.installments where installment_id = ${fifth.installmentId}`;
      return row?.due_on === moved.paymentDate;
    });
    expect((await api.runAsOf(fifth.paymentDate)).due).toBe(0);
    expect(await api.runAsOf(moved.paymentDate)).toMatchObject({ due: 1, succeeded: 1 });

    // subscriptions marks it paid on the same payment.succeeded the run counted: wait for it.
    const end = await waitFor(async () => {
      const view = await api.subscription(start.id);
      return view.installments.every((installment) => installment.status !== 'processing') && view;
    });
    expect(end.installments.map((installment) => installment.status)).toEqual([
      'paid',
      'paid',
      'paid',
      'cancelled',
      'paid',
    ]);
    for (const installment of [second, third, fifth]) {
      expect(await ledgerOf(installment.installmentId), `installment ${installment.number}`).toHaveLength(1);
    }
    // Runs after the end charge nothing more.
    expect((await api.runAsOf(addDays(moved.paymentDate, 40))).due).toBe(0);
  });

  it('a card that declines every later charge (…0341): retried +1/+3/+5 days, then failed and past_due', async () => {
    const start = await subscribe('debit-declines', '4000000000000341', 3);
    const second = byNumber(start, 2);
    const days = [0, 1, 3, 5].map((offset) => addDays(second.paymentDate, offset));
    for (const [index, day] of days.entries()) {
      // Between the retries nothing is due.
      if (index > 0) expect((await api.runAsOf(addDays(day, -1))).due, `before ${day}`).toBe(0);
      expect(await api.runAsOf(day), `as of ${day}`).toMatchObject({ due: 1, requested: 1, failed: 1 });
    }
    const end = await waitFor(async () => {
      const view = await api.subscription(start.id);
      return view.status === 'past_due' && view;
    }, 20_000);
    expect(byNumber(end, 2).status).toBe('failed');
    const ledger = await ledgerOf(second.installmentId);
    expect(ledger).toHaveLength(4);
    expect(ledger.every((entry) => entry.resultCode === '51')).toBe(true);
    // Dunning is over for it: no fifth attempt, whatever the day.
    await api.runAsOf(addDays(second.paymentDate, 9));
    expect(await ledgerOf(second.installmentId)).toHaveLength(4);
  });
});

describe('a DYNAMIC subscription', () => {
  it('charges the invoices the merchant adds, each on its own day and at its own amount', async () => {
    const start = await subscribe('debit-dynamic', '4242424242424242', 'DYNAMIC');
    const added = await api.call('POST', '/api/subscriptions/installments', {
      custom_identifier: 'debit-dynamic',
      installments: [
        { payment_date: '2026-12-15', amount: 90000, invoice_number: 'INV-1' },
        { payment_date: '2027-01-15', amount: 95000, invoice_number: 'INV-2' },
      ],
    });
    expect(added.status).toBe(201);
    const view = await waitFor(async () => {
      const current = await api.subscription(start.id);
      return current.installments.length === 3 && current;
    });
    const [first, second] = [byNumber(view, 2), byNumber(view, 3)];
    // The scheduler learns of them through installments.scheduled: wait until it has both.
    await waitFor(async () => {
      const rows =
        await sql`select 1 from billing_scheduler.installments where installment_id in (${first.installmentId}, ${second.installmentId})`;
      return rows.length === 2;
    });
    expect((await api.runAsOf('2026-12-14')).due).toBe(0);
    // The runs are the merchant's: they also claim what the other tests left due (the past-due
    // subscription's next installment), so only this subscription's charges are counted, at the sandbox.
    await api.runAsOf('2026-12-15');
    expect((await ledgerOf(second.installmentId)).length).toBe(0);
    await api.runAsOf('2027-01-15');
    expect((await ledgerOf(first.installmentId)).map((entry) => [entry.resultCode, entry.amount])).toEqual([
      ['00', '90000.00'],
    ]);
    expect((await ledgerOf(second.installmentId)).map((entry) => [entry.resultCode, entry.amount])).toEqual([
      ['00', '95000.00'],
    ]);
    await paidInSubscriptions(start.id, 3);
  });
});
