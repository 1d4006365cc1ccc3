import { randomUUID } from 'node:crypto';
import {
  createTestDatabase,
  deleteBrokerTopology,
  type TestDatabase,
  testAmqpUrl,
  uniqueName,
  waitFor,
} from '@payrail/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMERS, DEMO_TOKEN, type E2eSystem, startSystem } from './support';

// `POST /api/bank-notification/add` with every service as its own process, on real PostgreSQL and
// RabbitMQ: gateway → processor-gateway → links or subscriptions over internal HTTP; the link's payment
// reaches subscriptions as `link.paid` over the broker.

let testDb: TestDatabase;
let sql: postgres.Sql;
let system: E2eSystem;
const exchange = uniqueName('e2e_bank_events');
const queuePrefix = `${uniqueName('e2e_bank')}.`;

beforeAll(async () => {
  testDb = await createTestDatabase('e2e_bank');
  sql = postgres(testDb.url, { max: 2, onnotice: () => {} });
  system = await startSystem({
    DATABASE_URL: testDb.url,
    AMQP_URL: testAmqpUrl(),
    EVENTS_EXCHANGE: exchange,
    QUEUE_PREFIX: queuePrefix,
    DEMO_API_TOKEN: DEMO_TOKEN,
    INTERNAL_SECRET: 'e2e-internal-secret-0123456789',
    PUBLIC_BASE_URL: 'https://pay.example.test',
    LOG_LEVEL: 'warn',
  });
});

afterAll(async () => {
  await system?.stop();
  await sql?.end();
  await testDb?.drop();
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    CONSUMERS.map((consumer) => `${queuePrefix}${consumer}`),
  ).catch(() => {});
});

function call(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${system.gatewayUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'api-token': DEMO_TOKEN },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const recurrentLink = (customIdentifier: string) => ({
  label: 'Gym membership',
  amount: 150000,
  handleValue: 'ana@example.com',
  handleLabel: 'Ana',
  customIdentifier,
  singlePayment: false,
  creditAndDebitCard: true,
  recurrentPayment: true,
  installmentAmount: 120000,
  totalPeriods: 4,
  dayOfMonth: 5,
  monthForSecondInstallment: 1,
});

const notification = (target: Record<string, unknown>, amount: number) => ({
  ...target,
  amount,
  bankName: 'Banco Nacional',
  reference: `TRF-${randomUUID()}`,
  transferDate: '2026-01-02',
});

async function subscriptionOf(linkId: number) {
  const [row] = await sql`select id, status from subscriptions.subscriptions where link_id = ${linkId}`;
  return row;
}

async function installmentsOf(subscriptionId: unknown) {
  return sql`select id::int as id, number, status, payment_date::text as payment_date
             from subscriptions.installments where subscription_id = ${subscriptionId as number} order by number`;
}

async function everything() {
  return {
    transfers: await sql`select * from processor_gateway.bank_transfers order by id`,
    links: await sql`select id, status_id, paid_at from links.payment_links order by id`,
    installments: await sql`select id, status, paid_at from subscriptions.installments order by id`,
    outboxes: [
      (await sql`select count(*)::int as n from links.outbox`)[0]?.n,
      (await sql`select count(*)::int as n from subscriptions.outbox`)[0]?.n,
      (await sql`select count(*)::int as n from processor_gateway.outbox`)[0]?.n,
    ],
  };
}

describe('bank notification, one process per service', () => {
  let linkId: number;
  let subscriptionId: unknown;

  it('settles a recurrent link: paid (statusId 200), and link.paid over RabbitMQ activates its subscription', async () => {
    const created = await call('POST', '/api/saleitems/add', recurrentLink('bank-member-1'));
    expect(created.status).toBe(200);
    linkId = ((await created.json()) as { id: number }).id;
    await waitFor(() => subscriptionOf(linkId), 20_000);

    const response = await call(
      'POST',
      '/api/bank-notification/add',
      notification({ payRequestId: linkId }, 150000),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'SETTLED',
      amount: '150000.00',
      currency: 'PYG',
      target: { type: 'PAY_REQUEST', payRequestId: linkId, statusId: 200 },
    });
    const link = await call('GET', `/api/payrequests/${linkId}`);
    expect(await link.json()).toMatchObject({ id: linkId, statusId: 200, paid: true });

    const active = await waitFor(async () => {
      const row = await subscriptionOf(linkId);
      return row?.status === 'active' ? row : undefined;
    }, 20_000);
    subscriptionId = active.id;
    expect((await installmentsOf(subscriptionId)).map((i) => i.status)).toEqual([
      'paid',
      'pending',
      'pending',
      'pending',
    ]);
    const [paidEvent] = await sql`
      select body from links.outbox where type = 'link.paid' and body::jsonb -> 'data' ->> 'linkId' = ${String(linkId)}`;
    expect(JSON.parse(paidEvent?.body as string).data).toMatchObject({
      method: 'BANK_TRANSFER',
      recurrent: true,
    });
  });

  it('settles an installment by identifiers and date; it leaves the pending list', async () => {
    const installments = await installmentsOf(subscriptionId);
    const second = installments[1];
    const response = await call(
      'POST',
      '/api/bank-notification/add',
      notification({ customIdentifier: 'bank-member-1', paymentDate: second?.payment_date }, 120000),
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { target: unknown }).target).toMatchObject({
      type: 'INSTALLMENT',
      installmentId: second?.id,
      status: 'paid',
    });
    const pending = await call('GET', '/api/subscriptions/installments?custom_identifier=bank-member-1');
    const listed = ((await pending.json()) as { installments: Array<{ installment_id: number }> })
      .installments;
    expect(listed.map((i) => i.installment_id)).toEqual([installments[2]?.id, installments[3]?.id]);
  });

  it('concurrent duplicates of one notification pay once and all answer the one result', async () => {
    const third = (await installmentsOf(subscriptionId))[2];
    const body = notification({ installmentId: third?.id }, 120000);
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => call('POST', '/api/bank-notification/add', body)),
    );
    const answers = await Promise.all(responses.map((response) => response.text()));
    expect(responses.map((response) => response.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers).size).toBe(1);
    const rows =
      await sql`select status from processor_gateway.bank_transfers where reference = ${body.reference}`;
    expect(rows).toEqual([{ status: 'settled' }]);
    const paid = await sql`
      select id from subscriptions.outbox
      where type = 'installment.paid' and body::jsonb -> 'data' ->> 'installmentId' = ${String(third?.id)}`;
    expect(paid).toHaveLength(1);
  });

  it('refusals (409 paid, 422 amount, 400 shape) register nothing and change nothing', async () => {
    const before = await everything();
    const paid = await call(
      'POST',
      '/api/bank-notification/add',
      notification({ payRequestId: linkId }, 150000),
    );
    expect(paid.status).toBe(409);
    expect(((await paid.json()) as { code: string }).code).toBe('PAYMENT_LINK_ALREADY_PAID');
    const fourth = (await installmentsOf(subscriptionId))[3];
    const wrongAmount = await call(
      'POST',
      '/api/bank-notification/add',
      notification({ installmentId: fourth?.id }, 100000),
    );
    expect(wrongAmount.status).toBe(422);
    const shape = await call('POST', '/api/bank-notification/add', { ...notification({}, 1), reference: '' });
    expect(shape.status).toBe(400);
    const paths = ((await shape.json()) as { errors: Array<{ path: string }> }).errors.map((e) => e.path);
    expect(paths.sort()).toEqual(['payRequestId', 'reference']);
    expect(await everything()).toEqual(before);
  });
});
