import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { payOnPayPage, waitFor } from '@payrail/testing';
import type postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { schedulerCaughtUp } from './debit-support';
import {
  INTERNAL_SECRET,
  type SystemOnTestInfrastructure,
  startOnTestInfrastructure,
} from './processor-support';
import { type E2eSystem, startSystem } from './support';

// The payments ledger (issue 27) end to end, every service its own process on real PostgreSQL and RabbitMQ,
// with simulated time: a merchant's subscription paid on the pay page by card, its installment 2 declined by
// the sandbox and paid by dunning's retry the next day, a one-off link paid by a bank transfer the merchant
// notifies, and a refund of the first payment. GET /api/payments lists every one of those movements exactly
// once, and each `txId` the merchant's webhooks told is a movement of the ledger. Then the export of
// EXPORT_ROWS rows through the gateway (LEDGER_EXPORT_ROWS, default 100,000: the export 28 s, the test 47 s on the
// shared 2-core machine): every row once.

const ADMIN_TOKEN = 'e2e-admin-token-ledger-0123456789';
const EXPORT_ROWS = Number(process.env.LEDGER_EXPORT_ROWS ?? 100_000);
let running: SystemOnTestInfrastructure<E2eSystem>;
let sql: postgres.Sql;
let system: E2eSystem;
let receiver: { url: string; bodies: string[]; close(): Promise<void> };

beforeAll(async () => {
  running = await startOnTestInfrastructure('e2e_ledger', (infrastructure) =>
    startSystem((ports) => ({
      ...infrastructure,
      ADMIN_TOKEN,
      INTERNAL_SECRET,
      PUBLIC_BASE_URL: ports.gatewayUrl,
      SIMULATED_TIME: 'true',
      BILLING_RUN_INTERVAL_MS: '0',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      UPSTREAM_TIMEOUT_MS: '60000',
      LOG_LEVEL: 'warn',
    })),
  );
  ({ sql, system } = running);
  receiver = await startReceiver();
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await running?.stop();
}, 60_000);

afterEach(({ task }) => {
  if (task.result?.state !== 'fail' || !system) return;
  console.log(`the services' last log lines (warn and up)\n${system.logs.slice(-60).join('\n')}`);
});

async function startReceiver() {
  const bodies: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function gateway(
  path: string,
  init: { method?: string; token?: string; admin?: boolean; body?: unknown; key?: string } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token) headers['api-token'] = init.token;
  if (init.admin) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  if (init.key) headers['idempotency-key'] = init.key;
  const response = await fetch(`${system.gatewayUrl}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The day of the month `offset` months after this one (the schedule counts from the creation month). */
function monthDay(offset: number, day: number): string {
  const now = new Date();
  const index = now.getUTCFullYear() * 12 + now.getUTCMonth() + offset;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

async function run(merchantId: string, asOf: string) {
  await schedulerCaughtUp(sql);
  const started = await gateway('/admin/billing/runs', {
    method: 'POST',
    admin: true,
    body: { asOf, merchantId },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return waitFor(
    async () => {
      const current = await gateway(`/admin/billing/runs/${started.body.id}`, { admin: true });
      return current.body.status === 'completed' ? current.body : undefined;
    },
    60_000,
    200,
  );
}

interface Movement {
  id: string;
  kind: string;
  status: string;
  method: string;
  amount: string;
  payRequestId: number | null;
  subscriptionId: number | null;
  installmentNumber: number | null;
  paymentId: string | null;
  refundedAmount: string;
  cardLast4: string | null;
  createdAt: string;
}

async function everyMovement(token: string, query = ''): Promise<Movement[]> {
  const rows: Movement[] = [];
  let cursor: string | null = null;
  do {
    const separator = query ? '&' : '';
    const page = await gateway(
      `/api/payments?${query}${separator}limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      {
        token,
      },
    );
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    rows.push(...(page.body.payments as Movement[]));
    cursor = page.body.nextCursor as string | null;
  } while (cursor);
  return rows;
}

describe('the payments ledger through the gateway', () => {
  let merchant: { id: string; token: string };

  it('lists every movement of the scenario once, with the txIds of the webhooks', async () => {
    const created = await gateway('/admin/merchants', {
      method: 'POST',
      admin: true,
      body: { name: 'Gym', instance: 'NATIONAL', processors: ['PARAGUAY.PROCESSOR_A'], noLoginEnabled: true },
    });
    expect(created.status).toBe(201);
    merchant = { id: created.body.id as string, token: created.body.apiToken as string };
    const endpoint = await gateway('/api/webhook-endpoints', {
      method: 'POST',
      token: merchant.token,
      body: { url: receiver.url, events: ['*'] },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);

    // A subscription paid on the pay page by card.
    const documentNumber = String(1_000_000 + Math.floor(Math.random() * 8_000_000));
    const link = await gateway('/api/saleitems/add', {
      method: 'POST',
      token: merchant.token,
      body: {
        label: 'Gym membership',
        amount: 200000,
        handleValue: 'ana@example.com',
        handleLabel: 'Ana Gómez',
        singlePayment: false,
        creditAndDebitCard: true,
        recurrentPayment: true,
        noLoginRequired: true,
        documentNumber,
        customIdentifier: `member-${randomUUID().slice(0, 8)}`,
        installmentAmount: 150000,
        totalPeriods: 3,
        dayOfMonth: 10,
        monthForSecondInstallment: 1,
      },
    });
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    const linkId = link.body.id as number;
    await payOnPayPage({
      gatewayUrl: system.gatewayUrl,
      sandboxUrl: system.urls['processor-sandbox'],
      slug: link.body.slug as string,
      documentNumber,
      cardNumber: '4242424242424242',
    });
    const subscriptionId = await waitFor(async () => {
      const found = await gateway(`/api/subscriptions?payRequestId=${linkId}`, { token: merchant.token });
      const [first] = (found.body.subscriptions as Array<{ id: number; status: string }> | undefined) ?? [];
      return first?.status === 'active' ? first.id : undefined;
    }, 60_000);

    // Installment 2: declined by the sandbox on its day, paid by dunning's retry the next day.
    const override = await fetch(`${system.urls['processor-sandbox']}/__sandbox/outcomes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ last4: '4242', codes: ['51'], processor: 'A' }),
    });
    expect(override.status, await override.text()).toBeLessThan(300);
    expect(await run(merchant.id, monthDay(1, 10))).toMatchObject({ failed: 1 });
    expect(await run(merchant.id, monthDay(1, 11))).toMatchObject({ succeeded: 1 });

    // A one-off link paid by a bank transfer the merchant notifies.
    const oneOff = await gateway('/api/saleitems/add', {
      method: 'POST',
      token: merchant.token,
      body: {
        label: 'Towel',
        amount: 30000,
        handleValue: 'bea@example.com',
        handleLabel: 'Bea',
        singlePayment: true,
        creditAndDebitCard: true,
      },
    });
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Asuncion' }).format(new Date());
    const notified = await gateway('/api/bank-notification/add', {
      method: 'POST',
      token: merchant.token,
      body: {
        payRequestId: oneOff.body.id,
        amount: 30000,
        bankName: 'Banco Nacional',
        reference: `TRF-${randomUUID()}`,
        transferDate: today,
      },
    });
    expect(notified.status, JSON.stringify(notified.body)).toBe(200);

    // The first payment is given back in part, outside the service.
    const linkPayment = await waitFor(async () => {
      const rows = await everyMovement(merchant.token, 'kind=LINK_PAYMENT');
      return rows[0];
    }, 30_000);
    const refund = await gateway(`/api/payments/${linkPayment.id}/refunds`, {
      method: 'POST',
      token: merchant.token,
      key: randomUUID(),
      body: { amount: 50000, method: 'BANK_TRANSFER', reference: 'DEV-1' },
    });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);

    const movements = await waitFor(async () => {
      const rows = await everyMovement(merchant.token);
      return rows.length >= 5 && rows.some((row) => row.kind === 'REFUND') ? rows : undefined;
    }, 30_000);
    // Once more after a pause: nothing written twice, nothing more.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const again = await everyMovement(merchant.token);
    expect(again.map((row) => row.id)).toEqual(movements.map((row) => row.id));
    expect(new Set(movements.map((row) => row.id)).size).toBe(movements.length);
    expect(movements.map((row) => [row.kind, row.status, row.amount, row.installmentNumber]).sort()).toEqual(
      [
        ['LINK_PAYMENT', 'succeeded', '200000.00', null],
        ['INSTALLMENT_CHARGE', 'declined', '150000.00', 2],
        ['INSTALLMENT_CHARGE', 'succeeded', '150000.00', 2],
        ['BANK_TRANSFER', 'succeeded', '30000.00', null],
        ['REFUND', 'succeeded', '50000.00', null],
      ].sort(),
    );
    const byKind = (kind: string, status = 'succeeded') =>
      movements.find((row) => row.kind === kind && row.status === status) as Movement;
    expect(byKind('LINK_PAYMENT')).toMatchObject({
      payRequestId: linkId,
      subscriptionId,
      refundedAmount: '50000.00',
      cardLast4: '4242',
    });
    expect(byKind('INSTALLMENT_CHARGE', 'declined')).toMatchObject({ subscriptionId, payRequestId: linkId });
    expect(byKind('REFUND')).toMatchObject({ paymentId: linkPayment.id, id: refund.body.id });
    expect(byKind('LINK_PAYMENT').createdAt).toMatch(/[+-]\d\d:\d\d$/);

    // Every txId the webhooks told is a movement of the ledger, and every money movement was told.
    const ids = new Set(movements.map((row) => row.id));
    const toldTxIds = await waitFor(async () => {
      const told = new Set(
        receiver.bodies
          .map((text) => JSON.parse(text) as { data?: { txId?: string | null } })
          .map((body) => body.data?.txId)
          .filter((txId): txId is string => typeof txId === 'string'),
      );
      const moved = movements.filter((row) => row.status === 'succeeded').map((row) => row.id);
      return moved.every((id) => told.has(id)) ? told : undefined;
    }, 30_000);
    for (const txId of toldTxIds) expect(ids.has(txId), `webhook txId ${txId} is in the ledger`).toBe(true);

    // The retrieval, and another merchant's 404.
    const one = await gateway(`/api/payments/${linkPayment.id}`, { token: merchant.token });
    expect(one.status).toBe(200);
    expect((one.body.refunds as Movement[]).map((row) => row.id)).toEqual([refund.body.id]);
    const other = await gateway('/admin/merchants', {
      method: 'POST',
      admin: true,
      body: { name: 'Another shop', instance: 'NATIONAL' },
    });
    const foreign = await gateway(`/api/payments/${linkPayment.id}`, {
      token: other.body.apiToken as string,
    });
    expect(foreign.status).toBe(404);

    // The paid link's retrieval names its payment: the ledger's movement, its card, who paid.
    const paidLink = await gateway(`/api/payrequests/${linkId}`, { token: merchant.token });
    expect(paidLink.body).toMatchObject({
      paid: true,
      paymentId: linkPayment.id,
      method: 'CARD',
      processor: 'PARAGUAY.PROCESSOR_A',
      cardLast4: '4242',
      refundedAmount: '50000.00',
      paidBy: { documentNumber },
    });
    const transferLink = await gateway(`/api/payrequests/${oneOff.body.id}`, { token: merchant.token });
    expect(transferLink.body).toMatchObject({
      method: 'BANK_TRANSFER',
      paymentId: byKind('BANK_TRANSFER').id,
      cardLast4: null,
    });

    // The report of the same money through the gateway: a range that holds every movement of the scenario.
    const until = new Date(Date.parse(`${today}T12:00:00Z`) + 120 * 86_400_000).toISOString().slice(0, 10);
    const report = await gateway(`/api/reports/summary?from=${today}&to=${until}&groupBy=month`, {
      token: merchant.token,
    });
    expect(report.status, JSON.stringify(report.body)).toBe(200);
    expect(report.body.currencies).toEqual([
      expect.objectContaining({
        currency: 'PYG',
        collected: '380000.00',
        refunded: '50000.00',
        net: '330000.00',
        declinedAttempts: 1,
        recoveredInstallments: 1,
      }),
    ]);
    expect(report.body.subscriptions).toMatchObject({ active: 1, cancelled: 0 });
  }, 240_000);

  it(`exports ${EXPORT_ROWS} rows as CSV through the gateway, every row once`, async () => {
    const exporter = await gateway('/admin/merchants', {
      method: 'POST',
      admin: true,
      body: { name: 'Exporter', instance: 'NATIONAL' },
    });
    const merchantId = exporter.body.id as string;
    await sql`
      insert into processor_gateway.ledger
        (id, merchant_id, kind, status, method, amount, currency, label, created_at, settled_at)
      select gen_random_uuid(), ${merchantId}::uuid, 'BANK_TRANSFER', 'succeeded', 'BANK_TRANSFER',
             (g % 1000 + 1)::numeric, 'PYG', 'Plan "' || g || '", monthly',
             now() - g * interval '1 second', now() - g * interval '1 second'
      from generate_series(1, ${EXPORT_ROWS}::int) g`;
    const started = Date.now();
    const response = await fetch(`${system.gatewayUrl}/api/payments?format=csv`, {
      headers: { 'api-token': exporter.body.apiToken as string },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    const seen = new Map<string, number>();
    let header = '';
    let rest = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      rest += decoder.decode(chunk, { stream: true });
      const lines = rest.split('\r\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (!header) {
          header = line;
          continue;
        }
        const id = line.slice(0, 36);
        seen.set(id, (seen.get(id) ?? 0) + 1);
      }
    }
    expect(rest).toBe('');
    expect(header.startsWith('id,kind,status,method')).toBe(true);
    expect(seen.size).toBe(EXPORT_ROWS);
    expect([...seen.values()].every((count) => count === 1)).toBe(true);
    console.log(`export of ${EXPORT_ROWS} rows through the gateway: ${Date.now() - started} ms`);
  }, 180_000);
});
