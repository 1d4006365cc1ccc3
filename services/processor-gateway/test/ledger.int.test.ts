import { randomUUID } from 'node:crypto';
import { createEvent, type EventEnvelope, type MerchantContext } from '@payrail/contracts';
import { rowsOf } from '@payrail/db';
import { aMerchant, type ServiceUnderTest, startService, waitFor } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { v7 as timeOrderedUuid } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_CONSUMER } from '../src/adapters/messaging/record-movements-on-money-events.consumer';
import { FakeCardProcessor } from './fake-card-processor';
import { publish, serviceWithFakes, TEST_ENV } from './support';

/**
 * The payments ledger (issue 27) on the real PostgreSQL: the service's own consumer writes it from events
 * published on its bus, and its API reads it back.
 */
let svc: ServiceUnderTest;
const merchant = aMerchant({ timezone: 'America/Asuncion' });
const other = aMerchant();
const at = (iso: string) => new Date(iso);

type Row = Record<string, unknown> & { id: string };
interface Page {
  payments: Row[];
  nextCursor: string | null;
}

async function list(query: string, who: MerchantContext = merchant): Promise<Page> {
  const response = await svc.request('GET', `/api/payments${query}`, { merchant: who });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Page;
}

async function ledgerCount(merchantId: string): Promise<number> {
  const rows = rowsOf<{ n: string }>(
    await svc.database.db.execute(
      sql`select count(*)::text as n from processor_gateway.ledger where merchant_id = ${merchantId}`,
    ),
  );
  return Number(rows[0]?.n);
}

/** Publishes each event and waits until the consumer's inbox holds it. */
async function deliver(...events: EventEnvelope[]) {
  for (const event of events) await publish(svc.bus, event);
  await waitFor(async () => {
    const rows = rowsOf<{ n: string }>(
      await svc.database.db.execute(
        sql`select count(*)::text as n from processor_gateway.inbox where consumer = ${LEDGER_CONSUMER}`,
      ),
    );
    return Number(rows[0]?.n) >= inboxSeen + events.length;
  });
  inboxSeen += events.length;
}
let inboxSeen = 0;

function purpose(o: {
  chargeId: string;
  linkId?: number | null;
  installmentId?: number | null;
  attempt?: number | null;
  amount: string;
  processor?: 'PARAGUAY.PROCESSOR_A' | 'PARAGUAY.PROCESSOR_B';
}) {
  return {
    idempotencyKey: o.installmentId
      ? `installment:${o.installmentId}:attempt:${o.attempt ?? 1}`
      : `link:${o.linkId}:payment:1`,
    chargeId: o.chargeId,
    merchantId: merchant.merchantId,
    processor: o.processor ?? 'PARAGUAY.PROCESSOR_A',
    amount: o.amount,
    currency: 'PYG' as const,
    installmentId: o.installmentId ?? null,
    attempt: o.installmentId ? (o.attempt ?? 1) : null,
    linkId: o.linkId ?? null,
    paymentMethodId: null,
    processorReference: String(100000000000 + Math.floor(Math.random() * 1e9)),
  };
}

const LINK = 900_001;
const SUBSCRIPTION = 700_001;
const INSTALLMENT_2 = 800_002;
const ids = {
  linkPayment: timeOrderedUuid(),
  declined: timeOrderedUuid(),
  retried: timeOrderedUuid(),
  transfer: timeOrderedUuid(),
  refund: timeOrderedUuid(),
};

beforeAll(async () => {
  const { definition } = serviceWithFakes({ a: new FakeCardProcessor() });
  svc = await startService(definition, { env: TEST_ENV });
  // The story: a link (its customer, a label that needs quoting in CSV), its subscription, the link paid
  // by card, installment 2 declined then paid by a retry, a bank transfer for the link, a refund.
  await deliver(
    createEvent(
      'link.created',
      {
        linkId: LINK,
        merchantId: merchant.merchantId,
        slug: 'abc',
        label: 'Plan "Gold", monthly',
        amount: '200000.00',
        currency: 'PYG',
        customIdentifier: 'CUST-1',
        customIdentifier2: 'line1\nline2',
        handleValue: 'ana@example.com',
        handleLabel: 'Ana Gómez',
        paymentMethods: ['PARAGUAY.PROCESSOR_A'],
        timezone: merchant.timezone,
        createdAt: '2026-11-20T12:00:00.000Z',
        createdOn: '2026-11-20',
        recurrence: null,
      },
      at('2026-11-20T12:00:00Z'),
    ),
    createEvent(
      'subscription.created',
      {
        subscriptionId: SUBSCRIPTION,
        merchantId: merchant.merchantId,
        linkId: LINK,
        type: 'STATIC',
        status: 'pending',
        customIdentifier: 'CUST-1',
        customIdentifier2: null,
        currency: 'PYG',
        timezone: merchant.timezone,
        totalPeriods: 2,
        installments: [
          { installmentId: 800_001, number: 1, paymentDate: '2026-11-20', amount: '200000.00' },
          { installmentId: INSTALLMENT_2, number: 2, paymentDate: '2026-12-20', amount: '150000.00' },
        ],
      },
      at('2026-11-20T12:00:01Z'),
    ),
    createEvent(
      'payment.succeeded',
      {
        ...purpose({ chargeId: ids.linkPayment, linkId: LINK, amount: '200000.00' }),
        paidAt: '2026-11-21T02:59:59.000Z',
        authorizationCode: '123456',
      },
      at('2026-11-21T02:59:59Z'),
    ),
    createEvent(
      'payment.failed',
      {
        ...purpose({ chargeId: ids.declined, installmentId: INSTALLMENT_2, attempt: 1, amount: '150000.00' }),
        failedAt: '2026-12-20T13:00:00.000Z',
        retryable: true,
        declineCode: 'INSUFFICIENT_FUNDS',
        category: 'soft',
      },
      at('2026-12-20T13:00:00Z'),
    ),
    createEvent(
      'payment.succeeded',
      {
        ...purpose({ chargeId: ids.retried, installmentId: INSTALLMENT_2, attempt: 2, amount: '150000.00' }),
        paidAt: '2026-12-21T13:00:00.000Z',
        authorizationCode: '654321',
      },
      at('2026-12-21T13:00:00Z'),
    ),
    createEvent(
      'bank-transfer.registered',
      {
        bankTransferId: 1,
        txId: ids.transfer,
        merchantId: merchant.merchantId,
        reference: 'TRF-1',
        bankName: 'Banco',
        amount: '50000.00',
        currency: 'PYG',
        transferDate: '2026-12-22',
        note: null,
        target: { type: 'PAY_REQUEST', linkId: LINK },
        registeredAt: '2026-12-22T13:00:00.000Z',
      },
      at('2026-12-22T13:00:00Z'),
    ),
    createEvent(
      'refund.succeeded',
      {
        refundId: ids.refund,
        paymentId: ids.linkPayment,
        merchantId: merchant.merchantId,
        amount: '20000.00',
        currency: 'PYG',
        refundedTotal: '20000.00',
        mode: 'outside',
        method: 'BANK_TRANSFER',
        processor: null,
        reference: 'DEV-1',
        reason: null,
        linkId: LINK,
        subscriptionId: null,
        installmentId: null,
        requestedAt: '2026-12-23T13:00:00.000Z',
        succeededAt: '2026-12-23T13:00:00.000Z',
      },
      at('2026-12-23T13:00:00Z'),
    ),
  );
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

describe('the ledger of a story', () => {
  it('lists every movement once, newest first, with its context', async () => {
    const page = await list('');
    expect(page.payments.map((row) => row.id)).toEqual([
      ids.refund,
      ids.transfer,
      ids.retried,
      ids.declined,
      ids.linkPayment,
    ]);
    const [refund, transfer, retried, declined, linkPayment] = page.payments;
    expect(linkPayment).toMatchObject({
      kind: 'LINK_PAYMENT',
      status: 'succeeded',
      method: 'CARD',
      amount: '200000.00',
      refundedAmount: '20000.00',
      payRequestId: LINK,
      subscriptionId: SUBSCRIPTION,
      label: 'Plan "Gold", monthly',
      handleValue: 'ana@example.com',
      handleLabel: 'Ana Gómez',
      customIdentifier: 'CUST-1',
      // 23:59:59 in Asunción is still that day there.
      createdAt: '2026-11-20T23:59:59-03:00',
    });
    expect(declined).toMatchObject({
      kind: 'INSTALLMENT_CHARGE',
      status: 'declined',
      installmentId: INSTALLMENT_2,
      installmentNumber: 2,
      subscriptionId: SUBSCRIPTION,
      payRequestId: LINK,
      declineCode: 'INSUFFICIENT_FUNDS',
      declineCategory: 'soft',
      handleValue: 'ana@example.com',
    });
    expect(retried).toMatchObject({ kind: 'INSTALLMENT_CHARGE', status: 'succeeded', installmentNumber: 2 });
    expect(transfer).toMatchObject({ kind: 'BANK_TRANSFER', method: 'BANK_TRANSFER', reference: 'TRF-1' });
    expect(refund).toMatchObject({ kind: 'REFUND', paymentId: ids.linkPayment, amount: '20000.00' });
  });

  it('filters by each of its fields', async () => {
    const idsOf = async (query: string) => (await list(query)).payments.map((row) => row.id);
    expect(await idsOf('?status=declined')).toEqual([ids.declined]);
    expect(await idsOf('?kind=BANK_TRANSFER')).toEqual([ids.transfer]);
    expect(await idsOf('?method=CARD')).toEqual([ids.retried, ids.declined, ids.linkPayment]);
    expect(await idsOf('?processor=PARAGUAY.PROCESSOR_A')).toEqual([
      ids.retried,
      ids.declined,
      ids.linkPayment,
    ]);
    expect(await idsOf(`?payRequestId=${LINK}&kind=LINK_PAYMENT`)).toEqual([ids.linkPayment]);
    expect(await idsOf(`?subscriptionId=${SUBSCRIPTION}&status=succeeded&kind=INSTALLMENT_CHARGE`)).toEqual([
      ids.retried,
    ]);
    expect(await idsOf('?customIdentifier=CUST-1')).toHaveLength(5);
    expect(await idsOf('?customIdentifier=CUST-2')).toEqual([]);
    expect(await idsOf('?q=AN')).toHaveLength(5);
    expect(await idsOf(`?q=${encodeURIComponent('ana g')}`)).toHaveLength(5);
    expect(await idsOf('?q=na')).toEqual([]);
    expect(await idsOf('?q=%25')).toEqual([]);
    expect(await idsOf('?createdFrom=2026-11-20&createdTo=2026-11-20')).toEqual([ids.linkPayment]);
    expect(await idsOf('?createdFrom=2026-11-21&createdTo=2026-12-20')).toEqual([ids.declined]);
    expect(await idsOf('?amountMin=50000&amountMax=150000')).toEqual([
      ids.transfer,
      ids.retried,
      ids.declined,
    ]);
    expect(await idsOf('?amountMax=20000.00')).toEqual([ids.refund]);
  });

  it('pages with a cursor, and refuses one it did not give', async () => {
    const first = await list('?limit=2');
    expect(first.payments.map((row) => row.id)).toEqual([ids.refund, ids.transfer]);
    expect(first.nextCursor).not.toBeNull();
    const second = await list(`?limit=2&cursor=${first.nextCursor}`);
    expect(second.payments.map((row) => row.id)).toEqual([ids.retried, ids.declined]);
    const third = await list(`?limit=2&cursor=${second.nextCursor}`);
    expect(third.payments.map((row) => row.id)).toEqual([ids.linkPayment]);
    expect(third.nextCursor).toBeNull();
    const bad = await svc.request('GET', '/api/payments?cursor=bm90LWEtY3Vyc29y', { merchant });
    expect(bad.status).toBe(400);
    expect((await svc.request('GET', '/api/payments?limit=201', { merchant })).status).toBe(400);
  });

  it('reads one movement with its refunds and what it paid; another merchant gets 404', async () => {
    const response = await svc.request('GET', `/api/payments/${ids.linkPayment}`, { merchant });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Row & { refunds: Row[]; paid: unknown };
    expect(body.refunds.map((row) => row.id)).toEqual([ids.refund]);
    expect(body.paid).toEqual({ type: 'PAY_REQUEST', payRequestId: LINK });
    const installment = (await (
      await svc.request('GET', `/api/payments/${ids.retried}`, { merchant })
    ).json()) as { paid: unknown };
    expect(installment.paid).toEqual({
      type: 'INSTALLMENT',
      subscriptionId: SUBSCRIPTION,
      installmentId: INSTALLMENT_2,
      number: 2,
    });
    const foreign = await svc.request('GET', `/api/payments/${ids.linkPayment}`, { merchant: other });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { code: string }).code).toBe('PAYMENT_NOT_FOUND');
    expect((await list('', other)).payments).toEqual([]);
  });

  it('changes nothing when an event is delivered again', async () => {
    const before = await list('');
    const again = createEvent(
      'refund.succeeded',
      {
        refundId: ids.refund,
        paymentId: ids.linkPayment,
        merchantId: merchant.merchantId,
        amount: '20000.00',
        currency: 'PYG',
        refundedTotal: '20000.00',
        mode: 'outside',
        method: 'BANK_TRANSFER',
        processor: null,
        reference: 'DEV-1',
        reason: null,
        linkId: LINK,
        subscriptionId: null,
        installmentId: null,
        requestedAt: '2026-12-23T13:00:00.000Z',
        succeededAt: '2026-12-23T13:00:00.000Z',
      },
      at('2026-12-23T13:00:00Z'),
    );
    // The refund again under a message id of its own (the upsert), then that message once more (the inbox).
    await deliver(again);
    await publish(svc.bus, again);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await ledgerCount(merchant.merchantId)).toBe(5);
    expect(await list('')).toEqual(before);
  });

  it('exports every matching row as RFC 4180 CSV', async () => {
    const response = await svc.request('GET', '/api/payments?payRequestId=900001', {
      merchant,
      headers: { accept: 'text/csv' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    const text = await response.text();
    const records = parseCsv(text);
    expect(records[0]?.slice(0, 3)).toEqual(['id', 'kind', 'status']);
    expect(records).toHaveLength(6);
    const header = records[0] as string[];
    const linkRow = records.find((record) => record[0] === ids.linkPayment) as string[];
    const field = (name: string) => linkRow[header.indexOf(name)];
    expect(field('label')).toBe('Plan "Gold", monthly');
    expect(field('customIdentifier2')).toBe('line1\nline2');
    expect(field('amount')).toBe('200000.00');
    expect(field('createdAt')).toBe('2026-11-20T23:59:59-03:00');
    expect(text).toContain('"Plan ""Gold"", monthly"');
    const byFormat = await svc.request('GET', '/api/payments?format=csv&status=declined', { merchant });
    expect(parseCsv(await byFormat.text())).toHaveLength(2);
  });
});

/** A strict RFC 4180 reader: quoted fields with doubled quotes, CRLF between records. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let index = 0;
  let quoted = false;
  while (index < text.length) {
    const char = text[index] as string;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index += 2;
        continue;
      }
      if (char === '"') {
        quoted = false;
        index += 1;
        continue;
      }
      field += char;
      index += 1;
      continue;
    }
    if (char === '"') {
      quoted = true;
    } else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      index += 1;
    } else {
      field += char;
    }
    index += 1;
  }
  if (field !== '' || record.length > 0) throw new Error('the CSV does not end with CRLF');
  return records;
}

describe('a cursor while rows are written', () => {
  it('reads 10,000 rows once each while a writer adds rows among them', async () => {
    const reader = aMerchant();
    const db = svc.database.db;
    // 10,000 rows over ten days, some on the same instant (the id breaks the tie).
    await db.execute(sql`
      insert into processor_gateway.ledger (id, merchant_id, kind, status, method, amount, currency, created_at)
      select gen_random_uuid(), ${reader.merchantId}::uuid, 'BANK_TRANSFER', 'succeeded', 'BANK_TRANSFER',
             (g % 1000 + 1)::numeric, 'PYG',
             timestamptz '2026-11-01T00:00:00Z' + ((g / 3) * interval '250 milliseconds')
      from generate_series(1, 10000) g`);
    const original = new Set(
      rowsOf<{ id: string }>(
        await db.execute(
          sql`select id::text from processor_gateway.ledger where merchant_id = ${reader.merchantId}::uuid`,
        ),
      ).map((row) => row.id),
    );
    expect(original.size).toBe(10_000);
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        // New rows everywhere in the order: before the reader's position, after it, on its instants.
        await db.execute(sql`
          insert into processor_gateway.ledger (id, merchant_id, kind, status, method, amount, currency, created_at)
          select ${randomUUID()}::uuid, ${reader.merchantId}::uuid, 'BANK_TRANSFER', 'succeeded', 'BANK_TRANSFER',
                 1, 'PYG', timestamptz '2026-11-01T00:00:00Z' + (floor(random() * 3334) * interval '250 milliseconds')`);
        written += 1;
      }
    })();
    const seen = new Map<string, number>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page = await list(`?limit=200${cursor ? `&cursor=${cursor}` : ''}`, reader);
      for (const row of page.payments) seen.set(row.id, (seen.get(row.id) ?? 0) + 1);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    writing = false;
    await writer;
    expect(written).toBeGreaterThan(10);
    expect(pages).toBeGreaterThanOrEqual(50);
    const repeated = [...seen].filter(([, count]) => count > 1);
    expect(repeated).toEqual([]);
    const missed = [...original].filter((id) => !seen.has(id));
    expect(missed).toEqual([]);
  }, 120_000);
});
