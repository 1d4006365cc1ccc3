import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { payOnPayPage, waitFor } from '@payrail/testing';
import type postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addDays, type DebitApi, debitApi, schedulerCaughtUp } from './debit-support';
import {
  INTERNAL_SECRET,
  sandbox,
  type SystemOnTestInfrastructure,
  startOnTestInfrastructure,
} from './processor-support';
import { type E2eSystem, startSystem } from './support';

// The webhook envelope as a merchant's receiver in the field stores it. That receiver (an Express +
// Sequelize app written for the product whose API this one follows) keeps one row per notification in a
// strict table: `custom_identifier` and `custom_identifier2` NOT NULL, `paid` decided from `statusId === 200`
// alone, `event` ignored, and it answers 200 even when its insert fails (so we call it delivered). Ours below
// is written the same way, on a PostgreSQL table of the test's own database, and registered for every kind.
//
// Every service runs as its own process on real PostgreSQL and RabbitMQ, with simulated time for the
// billing runs. The merchant sells: one-off links with identifiers, without, and with `""` ones (what the
// most-installed plugin sends), paid by card on the pay page; a subscription paid, its second installment
// declined, retried and paid, then completed; a subscription whose second installment is paid by a bank
// transfer and which is then cancelled; a link paid by a bank transfer. Every money movement (the sandbox's
// ledger and the registered transfers) must be stored exactly once as paid, under the webhooks' `txId`,
// which is processor-gateway's id of the movement; nothing else stored as paid; no row refused.

const ADMIN_TOKEN = 'e2e-admin-token-field-receiver-01';
let running: SystemOnTestInfrastructure<E2eSystem>;
let sql: postgres.Sql;
let system: E2eSystem;
let receiver: FieldReceiver;

beforeAll(async () => {
  running = await startOnTestInfrastructure('e2e_field_receiver', (infrastructure) =>
    startSystem((ports) => ({
      ...infrastructure,
      ADMIN_TOKEN,
      INTERNAL_SECRET,
      PUBLIC_BASE_URL: ports.gatewayUrl,
      SIMULATED_TIME: 'true',
      // Only the operator's as-of runs charge here.
      BILLING_RUN_INTERVAL_MS: '0',
      // The receiver is on this machine.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      LOG_LEVEL: 'warn',
    })),
  );
  ({ sql, system } = running);
  receiver = await startFieldReceiver(sql);
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await running?.stop();
}, 60_000);

afterEach(({ task }) => {
  if (task.result?.state !== 'fail' || !system) return;
  console.log(
    `${task.name}: the services' last ${Math.min(system.logs.length, 80)} log lines (warn and up)\n${system.logs.slice(-80).join('\n')}`,
  );
});

interface FieldReceiver {
  url: string;
  /** Notifications received, and those whose insert failed (answered 200 all the same). */
  counts: { received: number; refused: number };
  refusals: string[];
  close(): Promise<void>;
}

/**
 * The receiver as the field wrote it: the body parsed as JSON, one insert per notification, `paid` from
 * `statusId === 200`, `event` never read, 200 whatever the insert did.
 */
async function startFieldReceiver(db: postgres.Sql): Promise<FieldReceiver> {
  await db`create schema field_receiver`;
  await db`
    create table field_receiver.notifications (
      id serial primary key,
      tx_id text,
      pay_request_id integer,
      currency text,
      amount numeric(18, 2),
      paid boolean not null,
      custom_identifier text not null,
      custom_identifier2 text not null,
      label text,
      subscription_id integer,
      subscription_total_periods integer,
      subscription_payed_period integer,
      received_at timestamptz not null default now()
    )`;
  const counts = { received: 0, refused: 0 };
  const refusals: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      counts.received += 1;
      const { data = {} } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        data?: Record<string, unknown>;
      };
      const value = (key: string) => (data[key] ?? null) as string | number | null;
      try {
        await db`
          insert into field_receiver.notifications
            (tx_id, pay_request_id, currency, amount, paid, custom_identifier, custom_identifier2, label,
             subscription_id, subscription_total_periods, subscription_payed_period)
          values (${value('txId')}, ${value('payRequestId')}, ${value('currency')}, ${value('amount')},
                  ${data.statusId === 200}, ${value('customIdentifier')}, ${value('customIdentifier2')},
                  ${value('label')}, ${value('subscriptionId')}, ${value('subscriptionTotalPeriods')},
                  ${value('subscriptionPayedPeriod')})`;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"ok":true}');
      } catch (error) {
        counts.refused += 1;
        refusals.push((error as Error).message);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ ok: false, error: (error as Error).message }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/notifications`,
    counts,
    refusals,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Merchant {
  merchantId: string;
  api: DebitApi;
}

async function newMerchant(): Promise<Merchant> {
  const response = await fetch(`${system.gatewayUrl}/admin/merchants`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({
      name: 'Gym',
      instance: 'NATIONAL',
      processors: ['PARAGUAY.PROCESSOR_A'],
      // Customers pay on the pay page identified by their document number.
      noLoginEnabled: true,
    }),
  });
  const created = (await response.json()) as { id: string; apiToken: string };
  expect(response.status).toBe(201);
  return {
    merchantId: created.id,
    api: debitApi({
      gatewayUrl: system.gatewayUrl,
      apiToken: created.apiToken,
      adminToken: ADMIN_TOKEN,
      merchantId: created.id,
    }),
  };
}

let documents = 2_000_000;

/** A link through the gateway, as the plugin creates it. */
async function createLink(merchant: Merchant, fields: Record<string, unknown>) {
  documents += 1;
  const documentNumber = String(documents);
  const created = await merchant.api.call('POST', '/api/saleitems/add', {
    label: 'Gym membership',
    amount: 200000,
    handleValue: 'ana@example.com',
    handleLabel: 'Ana',
    creditAndDebitCard: true,
    noLoginRequired: true,
    documentNumber,
    ...fields,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const body = created.body as { id: number; slug: string };
  return { linkId: body.id, slug: body.slug, documentNumber };
}

const oneOff = { singlePayment: true, recurrentPayment: false };
const monthly = (totalPeriods: number) => ({
  singlePayment: false,
  recurrentPayment: true,
  installmentAmount: 150000,
  totalPeriods,
  dayOfMonth: 10,
  monthForSecondInstallment: 1,
});

/** Paid by card on the hosted pay page (a new card typed on the sandbox's form). */
async function payByCard(link: { slug: string; documentNumber: string }, option: 'single' | 'subscription') {
  const paid = await payOnPayPage({
    gatewayUrl: system.gatewayUrl,
    sandboxUrl: system.urls['processor-sandbox'],
    slug: link.slug,
    documentNumber: link.documentNumber,
    cardNumber: '4242424242424242',
    option,
  });
  expect(paid.location).toBe(`/pay/${link.slug}/receipt`);
}

async function subscriptionOf(merchant: Merchant, linkId: number) {
  return waitFor(
    async () => {
      const found = await merchant.api.call('GET', `/api/subscriptions?payRequestId=${linkId}`);
      const [first] =
        (found.body as { subscriptions?: Array<{ id: number; status: string }> }).subscriptions ?? [];
      return first?.status === 'active' ? merchant.api.subscription(first.id) : undefined;
    },
    60_000,
    100,
  );
}

/** A transfer made at the bank, notified by the merchant. */
async function notifyTransfer(
  merchant: Merchant,
  target: Record<string, unknown>,
  amount: number,
  reference: string,
) {
  const notified = await merchant.api.call('POST', '/api/bank-notification/add', {
    ...target,
    amount,
    bankName: 'Banco Nacional',
    reference,
    // A day that has come in every time zone.
    transferDate: new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10),
  });
  expect(notified.status, JSON.stringify(notified.body)).toBe(200);
}

/** The day of the month `offset` months after this one (the schedule counts from the creation month). */
function monthDay(offset: number, day: number): string {
  const now = new Date();
  const index = now.getUTCFullYear() * 12 + now.getUTCMonth() + offset;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

async function run(merchant: Merchant, asOf: string) {
  await schedulerCaughtUp(sql);
  return merchant.api.runAsOf(asOf, 60_000);
}

/** Every event about the merchant's payments, links and subscriptions is in the gateway's event log. */
async function webhookLogCaughtUp() {
  await waitFor(
    async () => {
      const [row] = await sql<Array<{ missing: number }>>`
        select count(*)::int as missing
          from (select id, type from links.outbox
                union all select id, type from subscriptions.outbox
                union all select id, type from processor_gateway.outbox) o
         where (o.type like 'link.%' or o.type like 'subscription.%' or o.type like 'installments.%'
                or o.type in ('installment.paid', 'installment.failed', 'payment.failed', 'bank-transfer.registered'))
           and not exists (select 1 from gateway.inbox i
                            where i.consumer = 'gateway.record-webhook-events' and i.message_id = o.id::text)`;
      return row?.missing === 0;
    },
    30_000,
    100,
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('a receiver written like the field ones', () => {
  it('stores every payment exactly once as paid, under its movement’s txId, refuses no row, and stores nothing else as paid', async () => {
    const merchant = await newMerchant();
    const endpoint = await merchant.api.call('POST', '/api/webhook-endpoints', {
      url: receiver.url,
      method: 'PUT',
      auth: { type: 'basic', username: 'gym', password: 'field-receiver-password' },
      events: ['*'],
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);

    // One-off links paid by card: with identifiers, without, and with "" ones.
    const withIds = await createLink(merchant, {
      ...oneOff,
      customIdentifier: '4567890',
      customIdentifier2: 'C-17',
    });
    const withoutIds = await createLink(merchant, oneOff);
    const emptyIds = await createLink(merchant, { ...oneOff, customIdentifier: '', customIdentifier2: '' });
    for (const link of [withIds, withoutIds, emptyIds]) await payByCard(link, 'single');

    // A link paid by a bank transfer.
    const byTransfer = await createLink(merchant, { ...oneOff, customIdentifier: '8800123' });
    await notifyTransfer(
      merchant,
      { payRequestId: byTransfer.linkId },
      200000,
      `TRF-LINK-${byTransfer.linkId}`,
    );

    // A subscription whose second installment is paid by a bank transfer, then cancelled (cancel-all).
    const cancelledLink = await createLink(merchant, { ...monthly(4), customIdentifier: 'member-cancelled' });
    await payByCard(cancelledLink, 'subscription');
    const cancelled = await subscriptionOf(merchant, cancelledLink.linkId);
    const [, secondOfCancelled] = cancelled.installments;
    await notifyTransfer(
      merchant,
      { installmentId: secondOfCancelled?.installmentId },
      150000,
      `TRF-INSTALLMENT-${secondOfCancelled?.installmentId}`,
    );
    const cancelAll = await merchant.api.call('POST', '/api/subscriptions/cancel-all', {
      customIdentifier: 'member-cancelled',
    });
    expect(cancelAll.status, JSON.stringify(cancelAll.body)).toBe(200);

    // A subscription paid, its second installment declined, retried and paid, then completed.
    const completedLink = await createLink(merchant, { ...monthly(3), customIdentifier: 'member-completed' });
    await payByCard(completedLink, 'subscription');
    const completed = await subscriptionOf(merchant, completedLink.linkId);
    const declineNext = await fetch(`${system.urls['processor-sandbox']}/__sandbox/outcomes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ last4: '4242', codes: ['51'], processor: 'A' }),
    });
    expect(declineNext.status).toBeLessThan(300);
    expect(await run(merchant, monthDay(1, 10))).toMatchObject({ due: 1, failed: 1 });
    expect(await run(merchant, addDays(monthDay(1, 10), 1))).toMatchObject({ due: 1, succeeded: 1 });
    expect(await run(merchant, monthDay(2, 10))).toMatchObject({ due: 1, succeeded: 1 });
    await waitFor(
      async () => (await merchant.api.subscription(completed.id)).status === 'completed',
      30_000,
      200,
    );

    // Everything heard of, and every notification answered.
    await webhookLogCaughtUp();
    const deliveries = await waitFor(
      async () => {
        const [row] = await sql<Array<{ total: number; pending: number }>>`
          select count(*)::int as total, count(*) filter (where status <> 'delivered')::int as pending
            from gateway.webhook_deliveries where merchant_id = ${merchant.merchantId}`;
        return row && row.pending === 0 && receiver.counts.received === row.total ? row : undefined;
      },
      30_000,
      100,
    );

    // The money that moved: the charges the sandbox's ledger shows taken, and the registered transfers.
    const charges = await sql<Array<{ id: string; reference: string; status: string }>>`
      select id::text, reference, status from processor_gateway.charges where merchant_id = ${merchant.merchantId}`;
    const { entries } = await sandbox<{
      entries: Array<{ kind: string; reference: string; resultCode: string }>;
    }>(system, 'GET', '/ledger');
    const ours = new Map(charges.map((charge) => [charge.reference, charge]));
    const taken = entries.filter((entry) => entry.kind === 'charge' && ours.has(entry.reference));
    const approved = taken.filter((entry) => entry.resultCode === '00');
    // Five card payments on the pay page (three links, two subscriptions' first payments), two debits.
    expect(approved).toHaveLength(7);
    const chargeTx = approved.map((entry) => ours.get(entry.reference)?.id as string);
    expect(new Set(chargeTx).size).toBe(approved.length);
    expect(chargeTx.every((id) => charges.find((charge) => charge.id === id)?.status === 'succeeded')).toBe(
      true,
    );
    const transfers = await sql<Array<{ tx_id: string }>>`
      select tx_id::text from processor_gateway.bank_transfers
       where merchant_id = ${merchant.merchantId} and status = 'settled'`;
    expect(transfers).toHaveLength(2);
    const movements = [...chargeTx, ...transfers.map((transfer) => transfer.tx_id)];

    const rows = await sql<
      Array<{
        tx_id: string | null;
        pay_request_id: number | null;
        paid: boolean;
        custom_identifier: string;
        custom_identifier2: string;
        subscription_payed_period: number | null;
      }>
    >`select tx_id, pay_request_id, paid, custom_identifier, custom_identifier2, subscription_payed_period
        from field_receiver.notifications order by id`;
    const paid = rows.filter((row) => row.paid);
    console.log(
      `field receiver: ${receiver.counts.received} notifications (${deliveries.total} deliveries), ` +
        `${rows.length} rows, ${receiver.counts.refused} refused, ${paid.length} stored as paid, ` +
        `${movements.length} money movements`,
    );
    // No row refused: the identifiers are strings, "" when none was given.
    expect({ refused: receiver.counts.refused, refusals: receiver.refusals.slice(0, 3) }).toEqual({
      refused: 0,
      refusals: [],
    });
    expect(rows).toHaveLength(receiver.counts.received);
    // Every payment stored once as paid, under the movement's id; nothing else stored as paid.
    expect(paid.map((row) => row.tx_id).sort()).toEqual([...movements].sort());
    // A declined attempt was told (statusId 5: not paid) under the declined charge's id.
    const declined = charges.filter((charge) => charge.status === 'failed').map((charge) => charge.id);
    expect(declined).toHaveLength(1);
    expect(rows.filter((row) => row.tx_id === declined[0]).map((row) => row.paid)).toEqual([false]);
    // One shape of txId: a UUID wherever there is one.
    const txIds = rows.flatMap((row) => (row.tx_id === null ? [] : [row.tx_id]));
    expect(txIds.filter((txId) => !UUID.test(txId))).toEqual([]);
    // Identifiers as given.
    const identifiersOf = (linkId: number) =>
      rows
        .filter((row) => row.pay_request_id === linkId)
        .map((row) => [row.custom_identifier, row.custom_identifier2]);
    expect(identifiersOf(withIds.linkId)).toEqual([['4567890', 'C-17']]);
    expect(identifiersOf(withoutIds.linkId)).toEqual([['', '']]);
    expect(identifiersOf(emptyIds.linkId)).toEqual([['', '']]);
    // The completed subscription's rows: three periods paid in the end, never more than there are.
    const ofCompleted = rows.filter((row) => row.pay_request_id === completedLink.linkId);
    expect(ofCompleted.filter((row) => row.paid).map((row) => row.subscription_payed_period)).toEqual([
      1, 2, 3,
    ]);
    expect(Math.max(...ofCompleted.map((row) => row.subscription_payed_period ?? 0))).toBe(3);
  }, 300_000);
});
