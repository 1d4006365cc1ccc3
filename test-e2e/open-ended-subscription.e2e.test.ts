import { randomUUID } from 'node:crypto';
import type { MerchantContext } from '@payrail/contracts';
import { aMerchant, payOnPayPage, waitFor } from '@payrail/testing';
import type postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  INTERNAL_SECRET,
  type SystemOnTestInfrastructure,
  sandbox,
  startOnTestInfrastructure,
} from './processor-support';
import { type E2eSystem, startSystem } from './support';

// An open-ended subscription (`totalPeriods: null`: every month until cancelled) end to end, every service its
// own process on real PostgreSQL and RabbitMQ, with simulated time (as automatic-debit.e2e.test.ts): the
// customer subscribes on the hosted pay page, then an operator's as-of run per month for 14 months charges one
// installment each; the horizon rolls (installments exist beyond the 12 it was created with), modify-all and
// a bulk change by date reach months made later, and cancel-all stops it. The sandbox's ledger says what was
// really charged.

const ADMIN_TOKEN = 'e2e-admin-token-open-ended-012345';
let running: SystemOnTestInfrastructure<E2eSystem>;
let sql: postgres.Sql;
let system: E2eSystem;

beforeAll(async () => {
  running = await startOnTestInfrastructure('e2e_open_ended', (infrastructure) =>
    startSystem((ports) => ({
      ...infrastructure,
      ADMIN_TOKEN,
      INTERNAL_SECRET,
      PUBLIC_BASE_URL: ports.gatewayUrl,
      SIMULATED_TIME: 'true',
      // Only the operator's as-of runs charge here.
      BILLING_RUN_INTERVAL_MS: '0',
      LOG_LEVEL: 'warn',
    })),
  );
  ({ sql, system } = running);
}, 120_000);

afterAll(() => running?.stop(), 60_000);

afterEach(({ task }) => {
  if (task.result?.state !== 'fail' || !system) return;
  console.log(
    `${task.name}: the services' last log lines (warn and up)\n${system.logs.slice(-80).join('\n')}`,
  );
});

interface Merchant {
  context: MerchantContext;
  token: string;
}

async function gateway(
  path: string,
  init: { method?: string; token?: string; admin?: boolean; body?: unknown } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token) headers['api-token'] = init.token;
  if (init.admin) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  const response = await fetch(`${system.gatewayUrl}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function newMerchant(): Promise<Merchant> {
  const created = await gateway('/admin/merchants', {
    method: 'POST',
    admin: true,
    body: {
      name: 'Gym',
      instance: 'NATIONAL',
      processors: ['PARAGUAY.PROCESSOR_A'],
      noLoginEnabled: true,
    },
  });
  expect(created.status).toBe(201);
  return {
    context: aMerchant({ merchantId: created.body.id as string, processors: ['PARAGUAY.PROCESSOR_A'] }),
    token: created.body.apiToken as string,
  };
}

interface Installment {
  installmentId: number;
  number: number;
  paymentDate: string;
  amount: string;
  status: string;
}

async function subscription(merchant: Merchant, linkId: number) {
  const found = await gateway(`/api/subscriptions?payRequestId=${linkId}`, { token: merchant.token });
  const [first] = (found.body.subscriptions as Array<{ id: number }> | undefined) ?? [];
  if (!first) return undefined;
  const detail = await gateway(`/api/subscriptions/${first.id}`, { token: merchant.token });
  return detail.body as {
    id: number;
    status: string;
    totalPeriods: number | null;
    installmentAmount: string;
    installments: Installment[];
  };
}

/** The installments once none is being charged and the horizon has caught up with the last one paid. */
async function settled(merchant: Merchant, linkId: number, count: number): Promise<Installment[]> {
  return waitFor(
    async () => {
      const sub = await subscription(merchant, linkId);
      if (!sub || sub.installments.some((i) => i.status === 'processing')) return undefined;
      return sub.installments.length === count ? sub.installments : undefined;
    },
    30_000,
    200,
  );
}

/** Every event subscriptions published about installments is in billing-scheduler's projection. */
async function projectionCaughtUp() {
  await waitFor(
    async () => {
      const [row] = await sql<Array<{ missing: number }>>`
        select count(*)::int as missing from subscriptions.outbox o
        where (o.type like 'subscription.%' or o.type like 'installment%')
          and o.type <> 'installment.charge-skipped'
          and not (o.type = 'installment.paid' and o.body::jsonb -> 'data' ->> 'chargeAttempt' is not null)
          and not exists (
            select 1 from billing_scheduler.inbox i
            where i.consumer = 'billing-scheduler.project-installments' and i.message_id = o.id::text)`;
      return row?.missing === 0;
    },
    20_000,
    50,
  );
}

/** An operator's as-of run for the merchant, until every installment it claimed is settled. */
async function run(merchant: Merchant, asOf: string) {
  await projectionCaughtUp();
  const started = await gateway('/admin/billing/runs', {
    method: 'POST',
    admin: true,
    body: { asOf, merchantId: merchant.context.merchantId },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const id = started.body.id as string;
  return waitFor(
    async () => {
      const current = await gateway(`/admin/billing/runs/${id}`, { admin: true });
      return current.body.status === 'completed' ? current.body : undefined;
    },
    60_000,
    200,
  );
}

interface LedgerEntry {
  kind: string;
  reference: string;
  amount: string;
  resultCode: string;
}

/** The sandbox's charges for this subscription, oldest first, each with what our charge row says it was for. */
async function chargesAtSandbox(linkId: number, installmentIds: number[]) {
  const { entries } = await sandbox<{ entries: LedgerEntry[] }>(system, 'GET', '/ledger');
  const rows = await sql<Array<{ idempotency_key: string; reference: string }>>`
    select idempotency_key, reference from processor_gateway.charges
     where installment_id = any(${installmentIds}) or link_id = ${linkId}`;
  const keyOf = new Map(rows.map((row) => [row.reference, row.idempotency_key]));
  return entries
    .filter((entry) => entry.kind === 'charge' && keyOf.has(entry.reference))
    .map((entry) => ({
      key: keyOf.get(entry.reference) as string,
      amount: entry.amount,
      code: entry.resultCode,
    }));
}

/** Day `day` of the month `offset` months after this one (the plan counts months from the creation month). */
function monthDay(offset: number, day: number): string {
  const now = new Date();
  const index = now.getUTCFullYear() * 12 + now.getUTCMonth() + offset;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

describe('an open-ended subscription through the gateway, services as processes', () => {
  it('14 monthly runs charge 14 installments, one a run, as the horizon rolls; modify-all and bulk reach months made later; cancel-all stops it', async () => {
    const merchant = await newMerchant();
    const customIdentifier = `member-${randomUUID().slice(0, 8)}`;
    const documentNumber = String(1_000_000 + Math.floor(Math.random() * 8_000_000));
    const created = await gateway('/api/saleitems/add', {
      method: 'POST',
      token: merchant.token,
      body: {
        label: 'Gym membership',
        amount: 200000,
        handleValue: 'ana@example.com',
        handleLabel: 'Ana',
        singlePayment: false,
        creditAndDebitCard: true,
        recurrentPayment: true,
        recurrentPaymentType: 'STATIC',
        installmentAmount: 150000,
        totalPeriods: null,
        dayOfMonth: 10,
        monthForSecondInstallment: 1,
        noLoginRequired: true,
        documentNumber,
        customIdentifier,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const linkId = created.body.id as number;
    const paid = await payOnPayPage({
      gatewayUrl: system.gatewayUrl,
      sandboxUrl: system.urls['processor-sandbox'],
      slug: created.body.slug as string,
      documentNumber,
      cardNumber: '4242424242424242',
    });
    expect(paid.location).toBe(`/pay/${created.body.slug}/receipt`);
    await waitFor(async () => (await subscription(merchant, linkId))?.status === 'active', 60_000, 100);

    // Installment 1 (the link, paid) and the 12 months after it.
    let installments = await settled(merchant, linkId, 13);
    expect(installments.map((i) => [i.number, i.paymentDate, i.amount, i.status])).toEqual([
      [1, expect.any(String), '200000.00', 'paid'],
      ...Array.from({ length: 12 }, (_, k) => [k + 2, monthDay(k + 1, 10), '150000.00', 'pending']),
    ]);
    expect(await subscription(merchant, linkId)).toMatchObject({ totalPeriods: null });

    for (let month = 1; month <= 14; month += 1) {
      if (month === 13) {
        // Installment 14 (made after the first run) and 15 (after the second): months created later.
        const all = await gateway('/api/subscriptions/modify-all', {
          method: 'PUT',
          token: merchant.token,
          body: { customIdentifier, newAmount: 170000 },
        });
        expect(all.status, JSON.stringify(all.body)).toBe(200);
        const bulk = await gateway('/api/subscriptions/installments/bulk', {
          method: 'PATCH',
          token: merchant.token,
          body: {
            operations: [
              {
                custom_identifier: customIdentifier,
                updates: [{ payment_date: monthDay(14, 10), amount: 99000 }],
              },
            ],
          },
        });
        expect(bulk.body, JSON.stringify(bulk.body)).toMatchObject({
          summary: { updates_applied: 1, updates_failed: 0 },
        });
      }
      // The day before, nothing; on the day, the month's installment, charged once.
      if (month === 1 || month === 13)
        expect(await run(merchant, monthDay(month, 9))).toMatchObject({ due: 0 });
      const result = await run(merchant, monthDay(month, 10));
      expect(result, `month ${month}`).toMatchObject({
        due: 1,
        requested: 1,
        succeeded: 1,
        failed: 0,
        skipped: 0,
      });
      installments = await settled(merchant, linkId, month + 1 + 12);
      if (month === 1) {
        // The horizon rolled: the month after the 12 it was created with exists now.
        expect(installments.at(-1)).toMatchObject({
          number: 14,
          paymentDate: monthDay(13, 10),
          amount: '150000.00',
          status: 'pending',
        });
      }
    }

    expect(installments).toHaveLength(27);
    expect(installments.slice(0, 15).map((i) => i.status)).toEqual(Array(15).fill('paid'));
    expect(installments.slice(15).map((i) => i.status)).toEqual(Array(12).fill('pending'));
    expect(installments.map((i) => i.paymentDate).slice(1)).toEqual(
      Array.from({ length: 26 }, (_, k) => monthDay(k + 1, 10)),
    );
    // Made after modify-all: on its amount (the subscription's terms now).
    expect(installments.slice(15).map((i) => i.amount)).toEqual(Array(12).fill('170000.00'));
    const ids = installments.map((i) => i.installmentId);

    const charges = await chargesAtSandbox(linkId, ids.slice(1));
    expect(charges.map((charge) => [charge.key.split(':')[0], charge.amount, charge.code])).toEqual([
      ['link', '200000.00', '00'],
      ...Array.from({ length: 12 }, () => ['installment', '150000.00', '00']),
      ['installment', '170000.00', '00'],
      ['installment', '99000.00', '00'],
    ]);
    // One charge per installment, 2 to 15, in order.
    expect(charges.slice(1).map((charge) => Number(charge.key.split(':')[1]))).toEqual(ids.slice(1, 15));

    // The merchant's webhooks: no total (open-ended), never completed.
    const events = await waitFor(
      async () => {
        const page = await gateway(`/api/events?limit=100`, { token: merchant.token });
        const all = page.body.events as Array<{ event: string; data: Record<string, unknown> }>;
        const payments = all.filter(
          (event) => event.event === 'PAYMENT_SUCCESS' && event.data.payRequestId === linkId,
        );
        return payments.length === 15 ? all.filter((event) => event.data.payRequestId === linkId) : undefined;
      },
      20_000,
      200,
    );
    for (const event of events) expect(event.data.subscriptionTotalPeriods, event.event).toBeNull();
    expect(events.map((event) => event.event)).not.toContain('SUBSCRIPTION_COMPLETED');

    // cancel-all ends it: every pending installment cancelled, nothing made after, the next run charges nothing.
    const cancelled = await gateway('/api/subscriptions/cancel-all', {
      method: 'POST',
      token: merchant.token,
      body: { customIdentifier },
    });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(await run(merchant, monthDay(15, 10))).toMatchObject({ requested: 0, succeeded: 0 });
    const after = await subscription(merchant, linkId);
    expect(after?.status).toBe('cancelled');
    expect(after?.installments).toHaveLength(27);
    expect(after?.installments.slice(15).map((i) => i.status)).toEqual(Array(12).fill('cancelled'));
    expect(await chargesAtSandbox(linkId, ids.slice(1))).toHaveLength(15);
  }, 300_000);
});
