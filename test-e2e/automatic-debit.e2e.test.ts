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
import { schedulerCaughtUp } from './debit-support';
import { type E2eSystem, startSystem } from './support';

// Automatic debit end to end, every service its own process on real PostgreSQL and RabbitMQ, with simulated
// time: a merchant (through the gateway) sells subscriptions; the customer subscribes on the hosted pay page
// (identified by document number, the card typed on the sandbox's form, registered and charged there, so
// links announces `link.paid` with the card); then an operator's as-of run per month charges what is due.
// The sandbox's ledger says what was really charged.

const ADMIN_TOKEN = 'e2e-admin-token-debit-0123456789';
let running: SystemOnTestInfrastructure<E2eSystem>;
let sql: postgres.Sql;
let system: E2eSystem;

beforeAll(async () => {
  running = await startOnTestInfrastructure('e2e_debit', (infrastructure) =>
    startSystem((ports) => ({
      ...infrastructure,
      ADMIN_TOKEN,
      INTERNAL_SECRET,
      // The pay page's own origin: the customer comes back to it from the sandbox's form.
      PUBLIC_BASE_URL: ports.gatewayUrl,
      SIMULATED_TIME: 'true',
      // Only the operator's as-of runs charge here.
      BILLING_RUN_INTERVAL_MS: '0',
      // 200 cancels at once against a run, on a shared machine: a cancel waiting its turn for the
      // subscription's row must still be answered 200 or 409, not 504 (what the client was told is the test).
      UPSTREAM_TIMEOUT_MS: '60000',
      LOG_LEVEL: 'warn',
    })),
  );
  ({ sql, system } = running);
}, 120_000);

afterAll(() => running?.stop(), 60_000);

// A failed test shows what the services said last: once, every test here failed at its first step (the
// pay page answered 500) and passed on the next run, and nothing said why.
afterEach(({ task }) => {
  if (task.result?.state !== 'fail' || !system) return;
  console.log(
    `${task.name}: the services' last ${Math.min(system.logs.length, 80)} log lines (warn and up)\n${system.logs.slice(-80).join('\n')}`,
  );
});

interface Merchant {
  context: MerchantContext;
  token: string;
}

async function gateway(
  path: string,
  init: { method?: string; token?: string; admin?: boolean; body?: unknown },
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

async function newMerchant(saasContract = false): Promise<Merchant> {
  const created = await gateway('/admin/merchants', {
    method: 'POST',
    admin: true,
    // DYNAMIC subscriptions are for merchants with a SaaS contract.
    body: {
      name: 'Gym',
      instance: 'NATIONAL',
      processors: ['PARAGUAY.PROCESSOR_A'],
      saasContract,
      // Customers subscribe on the pay page identified by their document number.
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

interface Subscribed {
  linkId: number;
  subscriptionId: number;
  customIdentifier: string;
}

async function subscription(merchant: Merchant, linkId: number) {
  const found = await gateway(`/api/subscriptions?payRequestId=${linkId}`, { token: merchant.token });
  const [first] = (found.body.subscriptions as Array<{ id: number; status: string }> | undefined) ?? [];
  if (!first) return undefined;
  const detail = await gateway(`/api/subscriptions/${first.id}`, { token: merchant.token });
  return detail.body as { id: number; status: string; installments: Installment[] };
}

/**
 * A subscription paid for with a card on the pay page: the link created through the gateway (no login, a
 * document number of the customer's own, so each subscriber is a customer with a card of their own), the
 * first installment paid on the hosted page with a new card, which the vault keeps for the later ones.
 */
async function subscribe(
  merchant: Merchant,
  terms: Record<string, unknown>,
  cardNumber = '4242424242424242',
): Promise<Subscribed> {
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
      noLoginRequired: true,
      documentNumber,
      customIdentifier,
      ...terms,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const linkId = created.body.id as number;
  const paid = await payOnPayPage({
    gatewayUrl: system.gatewayUrl,
    sandboxUrl: system.urls['processor-sandbox'],
    slug: created.body.slug as string,
    documentNumber,
    cardNumber,
  });
  expect(paid.location).toBe(`/pay/${created.body.slug}/receipt`);
  const active = await waitFor(
    async () => {
      const sub = await subscription(merchant, linkId);
      return sub?.status === 'active' ? sub : undefined;
    },
    60_000,
    100,
  );
  return { linkId, subscriptionId: active.id, customIdentifier };
}

/**
 * An operator's as-of run for the merchant, once billing-scheduler has seen the merchant's latest changes
 * (an operator's run right after a change would otherwise race the projection: the minute ticker covers
 * that in production, and it is off here), until every installment it claimed is settled.
 */
async function run(merchant: Merchant, asOf: string) {
  await schedulerCaughtUp(sql);
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

/** The installments of a subscription once none is being charged. */
async function settled(merchant: Merchant, linkId: number): Promise<Installment[]> {
  return waitFor(
    async () => {
      const sub = await subscription(merchant, linkId);
      return sub && !sub.installments.some((i) => i.status === 'processing') ? sub.installments : undefined;
    },
    30_000,
    200,
  );
}

interface LedgerEntry {
  kind: string;
  reference: string;
  amount: string;
  resultCode: string;
}

/** What the sandbox charged for each installment of ours: its ledger entries, by our charge rows' keys. */
async function ledgerByInstallment(installmentIds: number[]): Promise<Map<number, LedgerEntry[]>> {
  const { entries } = await sandbox<{ entries: LedgerEntry[] }>(system, 'GET', '/ledger');
  const rows = await sql<Array<{ idempotency_key: string; reference: string }>>`
    select idempotency_key, reference from processor_gateway.charges where installment_id = any(${installmentIds})`;
  const byReference = new Map(rows.map((row) => [row.reference, row.idempotency_key]));
  const result = new Map<number, LedgerEntry[]>(installmentIds.map((id) => [id, []]));
  for (const entry of entries) {
    const key = byReference.get(entry.reference);
    if (!key || entry.kind !== 'charge') continue;
    const id = Number(/^installment:(\d+):/.exec(key)?.[1]);
    result.get(id)?.push(entry);
  }
  return result;
}

/** The sandbox answers the next charges of a …4242 card with these codes (its test API). */
async function declineNextCharges(codes: string[]) {
  const override = await fetch(`${system.urls['processor-sandbox']}/__sandbox/outcomes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ last4: '4242', codes, processor: 'A' }),
  });
  expect(override.status, await override.text()).toBeLessThan(300);
}

const monthly = (totalPeriods: number) => ({
  installmentAmount: 150000,
  totalPeriods,
  dayOfMonth: 10,
  monthForSecondInstallment: 1,
});

/** The day of the month `offset` months after this one (the schedule counts from the creation month). */
function monthDay(offset: number, day: number): string {
  const now = new Date();
  const index = now.getUTCFullYear() * 12 + now.getUTCMonth() + offset;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

describe('automatic debit through the gateway, services as processes', () => {
  it('a run per month charges each installment once at the sandbox; modify-all, modify-dates, a cancel and a bulk change between runs are respected', async () => {
    const merchant = await newMerchant();
    const sub = await subscribe(merchant, monthly(6));
    let installments = await settled(merchant, sub.linkId);
    expect(installments.map((i) => [i.number, i.paymentDate, i.status])).toEqual([
      [1, expect.any(String), 'paid'],
      [2, monthDay(1, 10), 'pending'],
      [3, monthDay(2, 10), 'pending'],
      [4, monthDay(3, 10), 'pending'],
      [5, monthDay(4, 10), 'pending'],
      [6, monthDay(5, 10), 'pending'],
    ]);
    const ids = installments.map((i) => i.installmentId);

    // The day before, nothing; on the day, charged once.
    expect(await run(merchant, monthDay(1, 9))).toMatchObject({ due: 0 });
    const first = await run(merchant, monthDay(1, 10));
    expect(first).toMatchObject({ due: 1, requested: 1, succeeded: 1, failed: 0, skipped: 0 });

    // Between runs: every pending installment to 170 000.
    const all = await gateway('/api/subscriptions/modify-all', {
      method: 'PUT',
      token: merchant.token,
      body: { customIdentifier: sub.customIdentifier, newAmount: 170000 },
    });
    expect(all.status).toBe(200);
    await run(merchant, monthDay(2, 10));

    // The debit day moves to the 20th; installment 5 is cancelled.
    const dates = await gateway('/api/subscriptions/modify-dates', {
      method: 'PUT',
      token: merchant.token,
      body: { customIdentifier: sub.customIdentifier, dayOfMonth: 20 },
    });
    expect(dates.status).toBe(200);
    const cancelled = await gateway(`/api/subscriptions/installments/${ids[4]}/cancel`, {
      method: 'POST',
      token: merchant.token,
    });
    expect(cancelled.status).toBe(200);
    // Nothing is due on the old day any more.
    const oldDay = await run(merchant, monthDay(3, 10));
    expect(oldDay).toMatchObject({ due: 0, requested: 0 });
    expect(await run(merchant, monthDay(3, 20))).toMatchObject({ due: 1, requested: 1, succeeded: 1 });

    // A bulk change of the last installment's amount.
    const bulk = await gateway('/api/subscriptions/installments/bulk', {
      method: 'PATCH',
      token: merchant.token,
      body: {
        operations: [
          {
            custom_identifier: sub.customIdentifier,
            updates: [{ payment_date: monthDay(5, 20), amount: 99000 }],
          },
        ],
      },
    });
    expect(bulk.status).toBe(200);
    expect(await run(merchant, monthDay(4, 20))).toMatchObject({ due: 0, requested: 0 });
    expect(await run(merchant, monthDay(5, 20))).toMatchObject({ due: 1, requested: 1, succeeded: 1 });

    installments = await settled(merchant, sub.linkId);
    expect(installments.map((i) => [i.number, i.amount, i.status])).toEqual([
      [1, '200000.00', 'paid'],
      [2, '150000.00', 'paid'],
      [3, '170000.00', 'paid'],
      [4, '170000.00', 'paid'],
      [5, '170000.00', 'cancelled'],
      [6, '99000.00', 'paid'],
    ]);
    await waitFor(
      async () => (await subscription(merchant, sub.linkId))?.status === 'completed',
      20_000,
      200,
    );

    const ledger = await ledgerByInstallment(ids.slice(1));
    expect(ids.slice(1).map((id) => (ledger.get(id) ?? []).map((e) => [e.amount, e.resultCode]))).toEqual([
      [['150000.00', '00']],
      [['170000.00', '00']],
      [['170000.00', '00']],
      [],
      [['99000.00', '00']],
    ]);
    // The merchant hears of each charge with its txId, processor-gateway's id of the charge (the gateway
    // takes it from `installment.paid`: it no longer consumes `payment.succeeded`).
    const charges = await sql<Array<{ installment_id: string; tx: string }>>`
      select installment_id, id::text as tx from processor_gateway.charges
       where installment_id = any(${ids.slice(1)}) and status = 'succeeded'`;
    const told = await waitFor(
      async () => {
        const page = await gateway('/api/events?type=PAYMENT_SUCCESS&limit=100', { token: merchant.token });
        const events = page.body.events as Array<{ data: { installmentId?: number; txId: string | null } }>;
        const paid = events.filter((event) => ids.slice(1).includes(event.data.installmentId ?? 0));
        return paid.length === charges.length ? paid : undefined;
      },
      20_000,
      200,
    );
    expect(told.map((event) => [event.data.installmentId, event.data.txId]).sort()).toEqual(
      charges.map((charge) => [Number(charge.installment_id), charge.tx]).sort(),
    );
    expect(charges).toHaveLength(4);
    // Running the last month again charges nothing more.
    expect(await run(merchant, monthDay(5, 20))).toMatchObject({ due: 0 });
  }, 240_000);

  it('a DYNAMIC subscription’s invoices are charged on their own dates', async () => {
    const merchant = await newMerchant(true);
    const sub = await subscribe(merchant, { recurrentPaymentType: 'DYNAMIC' });
    const added = await gateway('/api/subscriptions/installments', {
      method: 'POST',
      token: merchant.token,
      body: {
        custom_identifier: sub.customIdentifier,
        installments: [
          { payment_date: monthDay(1, 15), amount: 87500, invoice_number: 'F-1' },
          { payment_date: monthDay(2, 3), amount: 91200, invoice_number: 'F-2' },
        ],
      },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const invoiceIds = (added.body.installments as Array<{ installment_id: number }>).map(
      (i) => i.installment_id,
    );
    expect(await run(merchant, monthDay(1, 14))).toMatchObject({ due: 0 });
    expect(await run(merchant, monthDay(1, 15))).toMatchObject({ due: 1, succeeded: 1 });
    expect(await run(merchant, monthDay(2, 3))).toMatchObject({ due: 1, succeeded: 1 });
    const installments = await settled(merchant, sub.linkId);
    expect(installments.map((i) => [i.number, i.amount, i.status])).toEqual([
      [1, '200000.00', 'paid'],
      [2, '87500.00', 'paid'],
      [3, '91200.00', 'paid'],
    ]);
    const ledger = await ledgerByInstallment(invoiceIds);
    expect(invoiceIds.map((id) => (ledger.get(id) ?? []).map((e) => [e.amount, e.resultCode]))).toEqual([
      [['87500.00', '00']],
      [['91200.00', '00']],
    ]);
  }, 120_000);

  it('dunning with card …0341: declined, retried on +1/+3/+5, then failed and past_due; every attempt in the audit', async () => {
    const merchant = await newMerchant();
    const sub = await subscribe(merchant, monthly(3), '4000000000000341');
    const [, second] = await settled(merchant, sub.linkId);
    if (!second) throw new Error('schedule');
    const day = (offset: number) => {
      const date = new Date(`${monthDay(1, 10)}T12:00:00Z`);
      date.setUTCDate(date.getUTCDate() + offset);
      return date.toISOString().slice(0, 10);
    };
    expect(await run(merchant, day(0))).toMatchObject({ due: 1, failed: 1 });
    // Nothing before the retry day.
    expect(await run(merchant, day(0))).toMatchObject({ due: 0 });
    expect(await run(merchant, day(1))).toMatchObject({ due: 1, failed: 1 });
    expect(await run(merchant, day(2))).toMatchObject({ due: 0 });
    expect(await run(merchant, day(3))).toMatchObject({ due: 1, failed: 1 });
    expect(await run(merchant, day(5))).toMatchObject({ due: 1, failed: 1 });
    await waitFor(async () => (await subscription(merchant, sub.linkId))?.status === 'past_due', 20_000, 200);
    const installments = await settled(merchant, sub.linkId);
    expect(installments.map((i) => i.status)).toEqual(['paid', 'failed', 'pending']);
    // The next installment is still charged while past due.
    expect(await run(merchant, monthDay(2, 10))).toMatchObject({ due: 1 });

    const audit = await gateway(`/api/subscriptions/installments/${second.installmentId}/attempts`, {
      token: merchant.token,
    });
    expect(audit.status).toBe(200);
    expect(audit.body).toMatchObject({
      installment_id: second.installmentId,
      status: 'failed',
      next_attempt_on: null,
    });
    expect(
      (audit.body.attempts as Array<Record<string, unknown>>).map((a) => [
        a.attempt,
        a.status,
        a.decline_code,
        a.category,
        a.next_attempt_on,
      ]),
    ).toEqual([
      [1, 'failed', '51', 'soft', day(1)],
      [2, 'failed', '51', 'soft', day(3)],
      [3, 'failed', '51', 'soft', day(5)],
      [4, 'failed', '51', 'soft', null],
    ]);
    const ledger = await ledgerByInstallment([second.installmentId]);
    expect((ledger.get(second.installmentId) ?? []).map((e) => e.resultCode)).toEqual([
      '51',
      '51',
      '51',
      '51',
    ]);
    // Dunning is over for it: no fifth attempt, whatever the day.
    await run(merchant, day(9));
    expect((await ledgerByInstallment([second.installmentId])).get(second.installmentId)).toHaveLength(4);
    // Another merchant does not see it.
    const stranger = await newMerchant();
    const hidden = await gateway(`/api/subscriptions/installments/${second.installmentId}/attempts`, {
      token: stranger.token,
    });
    expect(hidden.status).toBe(404);
  }, 180_000);

  it('a hard decline is not retried: failed and past_due after one attempt', async () => {
    const merchant = await newMerchant();
    const sub = await subscribe(merchant, monthly(3));
    const [, second] = await settled(merchant, sub.linkId);
    if (!second) throw new Error('schedule');
    // The card's next charge is declined `14` (invalid card: hard) by the sandbox.
    await declineNextCharges(['14']);
    expect(await run(merchant, monthDay(1, 10))).toMatchObject({ due: 1, failed: 1 });
    await waitFor(async () => (await subscription(merchant, sub.linkId))?.status === 'past_due', 20_000, 200);
    expect(await run(merchant, monthDay(1, 28))).toMatchObject({ due: 0 });
    const audit = await gateway(`/api/subscriptions/installments/${second.installmentId}/attempts`, {
      token: merchant.token,
    });
    expect(
      (audit.body.attempts as Array<Record<string, unknown>>).map((a) => [a.status, a.category]),
    ).toEqual([['failed', 'hard']]);
  }, 120_000);

  it('the merchant’s rule cancels after 2 failed installments in a row: pending ones cancelled, never charged', async () => {
    const merchant = await newMerchant();
    // No retries, and cancel at the second failed installment in a row.
    const policy = await gateway(`/admin/merchants/${merchant.context.merchantId}/dunning-policy`, {
      method: 'PUT',
      admin: true,
      body: { retryOffsetDays: [], cancelAfterFailedInstallments: 2 },
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    const sub = await subscribe(merchant, monthly(4));
    const [, second, third, fourth] = await settled(merchant, sub.linkId);
    if (!second || !third || !fourth) throw new Error('schedule');
    // The card's next two charges are declined `51` (…0341 approves a first payment once per sandbox).
    await declineNextCharges(['51', '51']);

    expect(await run(merchant, monthDay(1, 10))).toMatchObject({ due: 1, failed: 1 });
    await waitFor(async () => (await subscription(merchant, sub.linkId))?.status === 'past_due', 20_000, 200);
    expect(await run(merchant, monthDay(2, 10))).toMatchObject({ due: 1, failed: 1 });
    await waitFor(
      async () => (await subscription(merchant, sub.linkId))?.status === 'cancelled',
      20_000,
      200,
    );
    expect((await settled(merchant, sub.linkId)).map((i) => i.status)).toEqual([
      'paid',
      'failed',
      'failed',
      'cancelled',
    ]);
    const [cancelled] = await sql<Array<{ body: string }>>`
      select body from subscriptions.outbox
      where type = 'subscription.cancelled' and (body::jsonb -> 'data' ->> 'subscriptionId')::int = ${sub.subscriptionId}`;
    expect(JSON.parse(cancelled?.body ?? '{}').data).toMatchObject({
      status: 'cancelled',
      reason: 'dunning',
    });
    // The paid link stays paid; the cancelled installment is never charged.
    const link = await gateway(`/api/payrequests/${sub.linkId}`, { token: merchant.token });
    expect(link.body.statusId).toBe(200);
    expect(await run(merchant, monthDay(3, 10))).toMatchObject({ due: 0 });
    const ledger = await ledgerByInstallment([
      second.installmentId,
      third.installmentId,
      fourth.installmentId,
    ]);
    expect(
      [second, third, fourth].map((i) => (ledger.get(i.installmentId) ?? []).map((e) => e.resultCode)),
    ).toEqual([['51'], ['51'], []]);
  }, 120_000);

  it('the 24-hour cap: a card is charged at most 6 times in 24 hours, the rest waits', async () => {
    const merchant = await newMerchant();
    const sub = await subscribe(merchant, { ...monthly(9), monthForSecondInstallment: 0, dayOfMonth: 1 });
    const installments = await settled(merchant, sub.linkId);
    const later = installments.slice(1);
    expect(later).toHaveLength(8);
    // Eight months at once (an operator's catch-up far ahead).
    const caught = await run(merchant, monthDay(8, 28));
    expect(caught).toMatchObject({ due: 8, requested: 6, succeeded: 6, skipped: 2 });
    // Which six is the order the charge-dues were handled in; six paid, two still pending.
    const after = await settled(merchant, sub.linkId);
    const statuses = after.slice(1).map((i) => i.status);
    expect(statuses.filter((status) => status === 'paid')).toHaveLength(6);
    expect(statuses.filter((status) => status === 'pending')).toHaveLength(2);
    const waiting = after.slice(1).filter((i) => i.status === 'pending');
    for (const installment of waiting) {
      const audit = await gateway(`/api/subscriptions/installments/${installment.installmentId}/attempts`, {
        token: merchant.token,
      });
      expect(audit.body.attempts).toEqual([]);
    }
    // Asked again the same day, the cap still holds: nothing more is charged.
    expect(await run(merchant, monthDay(8, 28))).toMatchObject({ requested: 0 });
    const ledger = await ledgerByInstallment(later.map((i) => i.installmentId));
    const charged = [...ledger.values()].filter((entries) => entries.length > 0);
    expect(charged).toHaveLength(6);
    expect(charged.every((entries) => entries.length === 1)).toBe(true);
  }, 120_000);

  it('race: 200 cancels through the gateway against a run that charges the same installments: never charged after a 200 to the cancel', async () => {
    const merchant = await newMerchant();
    // 40 subscriptions of 5 due installments each: one card each, under its 6-per-24-hours cap.
    const subs: Subscribed[] = [];
    for (let batch = 0; batch < 5; batch += 1) {
      subs.push(...(await Promise.all(Array.from({ length: 8 }, () => subscribe(merchant, monthly(6))))));
    }
    const targets: Installment[] = [];
    for (const sub of subs) targets.push(...(await settled(merchant, sub.linkId)).slice(1));
    expect(targets).toHaveLength(200);
    await schedulerCaughtUp(sql);

    const started = gateway('/admin/billing/runs', {
      method: 'POST',
      admin: true,
      body: { asOf: monthDay(5, 10), merchantId: merchant.context.merchantId },
    });
    const cancels = await Promise.all(
      targets.map(async (installment) => {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 2_000));
        const answer = await gateway(`/api/subscriptions/installments/${installment.installmentId}/cancel`, {
          method: 'POST',
          token: merchant.token,
        });
        return { id: installment.installmentId, status: answer.status, code: answer.body.code };
      }),
    );
    const runId = (await started).body.id as string;
    await waitFor(
      async () =>
        (await gateway(`/admin/billing/runs/${runId}`, { admin: true })).body.status === 'completed',
      180_000,
      250,
    );
    const final = new Map<number, string>();
    for (const sub of subs)
      for (const i of await settled(merchant, sub.linkId)) final.set(i.installmentId, i.status);
    const ledger = await ledgerByInstallment(targets.map((i) => i.installmentId));
    let won = 0;
    for (const cancel of cancels) {
      const charged = ledger.get(cancel.id) ?? [];
      if (cancel.status === 200) {
        won += 1;
        expect({ id: cancel.id, status: final.get(cancel.id), charged }).toEqual({
          id: cancel.id,
          status: 'cancelled',
          charged: [],
        });
      } else {
        expect({ status: cancel.status, code: cancel.code }).toEqual({
          status: 409,
          code: 'INSTALLMENT_NOT_PENDING',
        });
        expect(final.get(cancel.id)).toBe('paid');
        expect(charged.map((entry) => entry.resultCode)).toEqual(['00']);
      }
    }
    const [charges] = await sql<Array<{ n: number }>>`
      select count(*)::int as n from processor_gateway.charges
      where installment_id = any(${cancels.filter((c) => c.status === 200).map((c) => c.id)})`;
    expect(charges?.n).toBe(0);
    // Both sides won some: it was a race.
    expect(won).toBeGreaterThan(0);
    expect(won).toBeLessThan(200);
  }, 420_000);
});
