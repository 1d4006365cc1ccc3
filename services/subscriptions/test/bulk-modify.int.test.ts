import type { MerchantContext } from '@payrail/contracts';
import { aMerchant, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedActiveSubscriptions, seededPaymentDate } from '../bench/seed';
import { installments as installmentsTable, outbox } from '../src/adapters/postgres/schema';
import { subscriptionsService } from '../src/service';
import {
  activeSubscription,
  installmentsOfSubscription,
  merchantState,
  newLinkId,
  type Problem,
} from './support';

let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(subscriptionsService, { clock: testClock(new Date('2026-01-20T12:00:00Z')) });
});
afterAll(async () => svc?.stop());

const PATH = '/api/subscriptions/installments/bulk';

function bulk(merchant: MerchantContext, body: unknown) {
  return svc.request('PATCH', PATH, { merchant, body });
}

function operations(count: number, updatesEach: number, prefix = 'BULK-') {
  return Array.from({ length: count }, (_, index) => ({
    custom_identifier: `${prefix}${index + 1}`,
    updates: Array.from({ length: updatesEach }, (_, k) => ({
      payment_date: seededPaymentDate(k + 2),
      amount: 160500,
    })),
  }));
}

async function expectRefused(
  merchant: MerchantContext,
  body: unknown | string,
  status: number,
  code: string,
  paths: string[],
) {
  const before = await merchantState(svc, merchant.merchantId);
  const response =
    typeof body === 'string'
      ? await svc.request('PATCH', PATH, { merchant, rawBody: body })
      : await bulk(merchant, body);
  const problem = (await response.json()) as Problem;
  expect({ status: response.status, code: problem.code, paths: problem.errors.map((e) => e.path) }).toEqual({
    status,
    code,
    paths,
  });
  expect(await merchantState(svc, merchant.merchantId)).toEqual(before);
}

describe('PATCH /api/subscriptions/installments/bulk: limits', () => {
  const merchant = aMerchant();

  it('accepts 200 subscriptions × 60 updates and applies all 12 000, announced per subscription', async () => {
    const ids = await seedActiveSubscriptions(svc.database.db, {
      merchantId: merchant.merchantId,
      count: 200,
      pendingEach: 60,
      linkIdBase: newLinkId() * 1_000,
    });
    const response = await bulk(merchant, { operations: operations(200, 60) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      summary: Record<string, number>;
      results: Array<{ status: string; updates: Array<{ status: string }> }>;
    };
    expect(body.summary).toEqual({
      subscriptions_received: 200,
      subscriptions_processed: 200,
      updates_applied: 12_000,
      updates_failed: 0,
    });
    expect(
      body.results.every((r) => r.status === 'success' && r.updates.every((u) => u.status === 'updated')),
    ).toBe(true);

    const [counted] = await svc.database.db
      .select({ count: sql<number>`count(*)::int` })
      .from(installmentsTable)
      .where(and(inArray(installmentsTable.subscriptionId, ids), eq(installmentsTable.amount, '160500.00')));
    expect(counted?.count).toBe(12_000);
    const events = await svc.database.db
      .select({ items: sql<number>`jsonb_array_length(${outbox.body}::jsonb -> 'data' -> 'installments')` })
      .from(outbox)
      .where(
        and(
          eq(outbox.type, 'installments.updated'),
          sql`${outbox.body}::jsonb -> 'data' ->> 'merchantId' = ${merchant.merchantId}`,
        ),
      );
    // One event per subscription, each with its 60 installments.
    expect(events.map((event) => event.items)).toEqual(Array.from({ length: 200 }, () => 60));
  });

  it('announces a subscription named by the first and the last operation of a large request in one event', async () => {
    const other = aMerchant();
    await seedActiveSubscriptions(svc.database.db, {
      merchantId: other.merchantId,
      count: 199,
      pendingEach: 60,
      identifierPrefix: 'SPLIT-',
      linkIdBase: newLinkId() * 1_000,
    });
    // 199 subscriptions × 30 updates, then SPLIT-1 again with its other 30 dates: far apart in the
    // request (more than one slice of the work), still one subscription's change.
    const ops = operations(199, 30, 'SPLIT-');
    ops.push({
      custom_identifier: 'SPLIT-1',
      updates: Array.from({ length: 30 }, (_, k) => ({
        payment_date: seededPaymentDate(k + 32),
        amount: 160500,
      })),
    });
    const response = await bulk(other, { operations: ops });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { summary: Record<string, number> };
    expect(body.summary.updates_applied).toBe(199 * 30 + 30);
    const events = await svc.database.db
      .select({
        identifier: sql<string>`${outbox.body}::jsonb -> 'data' ->> 'customIdentifier'`,
        items: sql<number>`jsonb_array_length(${outbox.body}::jsonb -> 'data' -> 'installments')`,
      })
      .from(outbox)
      .where(
        and(
          eq(outbox.type, 'installments.updated'),
          sql`${outbox.body}::jsonb -> 'data' ->> 'merchantId' = ${other.merchantId}`,
        ),
      );
    expect(events).toHaveLength(199);
    expect(events.filter((event) => event.identifier === 'SPLIT-1')).toEqual([
      { identifier: 'SPLIT-1', items: 60 },
    ]);
  });

  it('413 for 201 subscriptions, even when the items are otherwise invalid, nothing changed', async () => {
    await expectRefused(merchant, { operations: operations(201, 1) }, 413, 'PAYLOAD_TOO_LARGE', [
      'operations',
    ]);
    const invalid = operations(201, 1).map((operation) => ({
      ...operation,
      updates: [{ payment_date: 'soon', amount: 'x' }],
    }));
    await expectRefused(merchant, { operations: invalid }, 413, 'PAYLOAD_TOO_LARGE', ['operations']);
  });

  it('413 for 61 updates in one subscription, nothing changed', async () => {
    const body = { operations: [...operations(3, 1), ...operations(1, 61)] };
    await expectRefused(merchant, body, 413, 'PAYLOAD_TOO_LARGE', ['operations.3.updates']);
  });

  it('400 for malformed JSON and for invalid data (with the path), nothing changed', async () => {
    await expectRefused(merchant, '{"operations": [', 400, 'MALFORMED_JSON', []);
    const body = operations(2, 2);
    (body[1]?.updates[1] as { amount: unknown }).amount = 10.001;
    await expectRefused(merchant, { operations: body }, 400, 'VALIDATION_ERROR', [
      'operations.1.updates.1.amount',
    ]);
    await expectRefused(
      merchant,
      { operations: [{ custom_identifier: 'BULK-1', updates: [{ payment_date: '2026-13-10', amount: 1 }] }] },
      400,
      'VALIDATION_ERROR',
      ['operations.0.updates.0.payment_date'],
    );
    await expectRefused(merchant, { operations: 'all' }, 400, 'VALIDATION_ERROR', ['operations']);
  });
});

describe('PATCH /api/subscriptions/installments/bulk: outcomes', () => {
  it('answers 200 with the spec 4.3 body, field by field, when processing partly fails', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await activeSubscription(svc, merchant, {
      customIdentifier: 'CUST-A',
      customIdentifier2: 'K-1',
    });
    // Two pending installments on one date (moved by PATCH), and one paid from the 2nd on (a later charge).
    await svc.request('PATCH', `/api/subscriptions/installments/${installments[3]?.id}`, {
      merchant,
      body: { payment_date: '2026-03-10' },
    });
    await activeSubscription(svc, merchant, { customIdentifier: 'TWICE' });
    await activeSubscription(svc, merchant, { customIdentifier: 'TWICE' });
    const { installments: onlySecond } = await activeSubscription(svc, merchant, {
      customIdentifier: 'OTHER',
      customIdentifier2: 'ONLY-2',
    });
    await activeSubscription(svc, aMerchant(), { customIdentifier: 'FOREIGN' });

    const response = await bulk(merchant, {
      operations: [
        {
          custom_identifier: 'CUST-A',
          custom_identifier2: 'K-1',
          updates: [
            { payment_date: '2026-02-10', amount: 160500 },
            { payment_date: '2026-03-10', amount: 1 },
            { payment_date: '2026-01-15', amount: 2 },
            { payment_date: '2026-07-10', amount: 3 },
          ],
        },
        { custom_identifier: 'NOBODY', updates: [{ payment_date: '2026-02-10', amount: 4 }] },
        { custom_identifier: 'TWICE', updates: [{ payment_date: '2026-02-10', amount: 5 }] },
        { updates: [{ payment_date: '2026-02-10', amount: 6 }] },
        {
          custom_identifier2: 'ONLY-2',
          updates: [
            { payment_date: '2026-02-10', amount: '7100.00' },
            { payment_date: '2026-02-10', amount: 8 },
          ],
        },
        { custom_identifier: 'FOREIGN', updates: [] },
      ],
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"updated_fields":{"amount":160500.00}');
    expect(JSON.parse(text)).toEqual({
      summary: {
        subscriptions_received: 6,
        subscriptions_processed: 2,
        updates_applied: 1,
        updates_failed: 8,
      },
      results: [
        {
          custom_identifier: 'CUST-A',
          custom_identifier2: 'K-1',
          status: 'success',
          updates: [
            {
              payment_date: '2026-02-10',
              status: 'updated',
              installment_id: installments[1]?.id,
              updated_fields: { amount: 160500 },
            },
            {
              payment_date: '2026-03-10',
              status: 'failed',
              error: {
                code: 'DUPLICATE_PAYMENT_DATE',
                message: 'More than one pending installment of the subscription has this payment date',
              },
            },
            {
              payment_date: '2026-01-15',
              status: 'failed',
              error: {
                code: 'INSTALLMENT_NOT_PENDING',
                message:
                  'The installment on this payment date is not pending (or is installment 1, settled by the link)',
              },
            },
            {
              payment_date: '2026-07-10',
              status: 'failed',
              error: {
                code: 'INSTALLMENT_NOT_FOUND',
                message: 'No pending installment of the subscription has this payment date',
              },
            },
          ],
        },
        {
          custom_identifier: 'NOBODY',
          custom_identifier2: null,
          status: 'failed',
          updates: [{ payment_date: '2026-02-10', status: 'failed' }],
          error: {
            code: 'SUBSCRIPTION_NOT_FOUND',
            message: 'No pending or active subscription matches the identifiers',
          },
        },
        {
          custom_identifier: 'TWICE',
          custom_identifier2: null,
          status: 'failed',
          updates: [{ payment_date: '2026-02-10', status: 'failed' }],
          error: {
            code: 'MULTIPLE_SUBSCRIPTIONS_MATCH',
            message:
              'More than one subscription matches the identifiers; give custom_identifier2 or pay_request_id to choose one',
          },
        },
        {
          custom_identifier: null,
          custom_identifier2: null,
          status: 'failed',
          updates: [{ payment_date: '2026-02-10', status: 'failed' }],
          error: {
            code: 'IDENTIFIER_REQUIRED',
            message: 'custom_identifier, custom_identifier2 or pay_request_id is required',
          },
        },
        {
          custom_identifier: null,
          custom_identifier2: 'ONLY-2',
          status: 'success',
          updates: [
            {
              payment_date: '2026-02-10',
              status: 'failed',
              error: {
                code: 'DUPLICATE_DATE_IN_REQUEST',
                message: 'The request names this payment date of the subscription more than once',
              },
            },
            {
              payment_date: '2026-02-10',
              status: 'failed',
              error: {
                code: 'DUPLICATE_DATE_IN_REQUEST',
                message: 'The request names this payment date of the subscription more than once',
              },
            },
          ],
        },
        {
          custom_identifier: 'FOREIGN',
          custom_identifier2: null,
          status: 'failed',
          updates: [],
          error: {
            code: 'SUBSCRIPTION_NOT_FOUND',
            message: 'No pending or active subscription matches the identifiers',
          },
        },
      ],
    });
    expect(
      (await installmentsOfSubscription(svc, subscription.id)).map((i) => [i.paymentDate, i.amount]),
    ).toEqual([
      ['2026-01-15', '200000.00'],
      ['2026-02-10', '160500.00'],
      ['2026-03-10', '150000.00'],
      ['2026-03-10', '150000.00'],
    ]);
    expect(onlySecond[1]?.amount).toBe('150000.00');
  });

  it('leaves another merchant’s subscriptions untouched', async () => {
    const owner = aMerchant();
    await activeSubscription(svc, owner, { customIdentifier: 'MINE' });
    const before = await merchantState(svc, owner.merchantId);
    const response = await bulk(aMerchant(), {
      operations: [{ custom_identifier: 'MINE', updates: [{ payment_date: '2026-02-10', amount: 1 }] }],
    });
    expect(response.status).toBe(200);
    expect(
      ((await response.json()) as { results: Array<{ error: { code: string } }> }).results[0]?.error.code,
    ).toBe('SUBSCRIPTION_NOT_FOUND');
    expect(await merchantState(svc, owner.merchantId)).toEqual(before);
  });

  it('reports an update to the amount it already had as updated, without an event', async () => {
    const merchant = aMerchant();
    const { subscription } = await activeSubscription(svc, merchant, { customIdentifier: 'SAME' });
    const before = (await merchantState(svc, merchant.merchantId)).outboxRows;
    const response = await bulk(merchant, {
      operations: [
        { custom_identifier: 'SAME', updates: [{ payment_date: '2026-02-10', amount: '150000.00' }] },
      ],
    });
    expect(
      ((await response.json()) as { summary: { updates_applied: number } }).summary.updates_applied,
    ).toBe(1);
    expect((await merchantState(svc, merchant.merchantId)).outboxRows).toBe(before);
    expect((await installmentsOfSubscription(svc, subscription.id))[1]?.amount).toBe('150000.00');
  });
});
