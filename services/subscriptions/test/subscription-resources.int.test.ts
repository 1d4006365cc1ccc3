import type { MerchantContext } from '@payrail/contracts';
import { aMerchant, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionsService } from '../src/service';
import {
  activate,
  createSubscription,
  expectRefused,
  installmentsOfSubscription,
  type Problem,
  subscriptionOfLink,
} from './support';

// Subscriptions as resources (GET by id, a paged search), and the link id as a way to name one: the only
// way to reach a subscription whose link carried no identifier.
let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(subscriptionsService, { clock: testClock(new Date('2026-01-20T12:00:00Z')) });
});
afterAll(async () => svc?.stop());

function call(method: string, path: string, merchant: MerchantContext, body?: unknown) {
  return svc.request(method, path, { merchant, body });
}

async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

describe('GET /api/subscriptions/{id}', () => {
  it('answers the subscription with every installment, times ISO 8601 with the merchant offset', async () => {
    const merchant = aMerchant();
    const { subscription, linkId } = await createSubscription(svc, merchant, {
      customIdentifier: 'R-1',
      customIdentifier2: 'K-1',
      createdAt: '2026-01-15T15:00:00.000Z',
    });
    const response = await call('GET', `/api/subscriptions/${subscription.id}`, merchant);
    expect(response.status).toBe(200);
    const body = await json<Record<string, unknown> & { installments: Array<Record<string, unknown>> }>(
      response,
    );
    expect(body).toMatchObject({
      id: subscription.id,
      payRequestId: linkId,
      type: 'STATIC',
      status: 'pending',
      customIdentifier: 'R-1',
      customIdentifier2: 'K-1',
      firstAmount: '200000.00',
      installmentAmount: '150000.00',
      totalPeriods: 4,
      // 15:00 UTC is 12:00 in Asunción (UTC-3).
      createTime: '2026-01-15T12:00:00-03:00',
      activateTime: null,
      endTime: null,
    });
    expect(body.installments.map((installment) => installment.number)).toEqual([1, 2, 3, 4]);
    expect(body.installments[1]).toMatchObject({
      paymentDate: '2026-02-10',
      amount: '150000.00',
      status: 'pending',
    });
  });

  it("is 404 SUBSCRIPTION_NOT_FOUND for another merchant's subscription and an unknown id", async () => {
    const owner = aMerchant();
    const { subscription } = await createSubscription(svc, owner);
    for (const [path, who] of [
      [`/api/subscriptions/${subscription.id}`, aMerchant()],
      ['/api/subscriptions/987654321', owner],
    ] as const) {
      const response = await call('GET', path, who);
      expect(response.status, path).toBe(404);
      expect((await json<Problem>(response)).code).toBe('SUBSCRIPTION_NOT_FOUND');
    }
  });

  it('is 400 with errors[].path "id" for a non-numeric id, on every id path', async () => {
    const merchant = aMerchant();
    for (const [method, path] of [
      ['GET', '/api/subscriptions/abc'],
      ['GET', '/api/subscriptions/0'],
      ['PATCH', '/api/subscriptions/installments/abc'],
      ['POST', '/api/subscriptions/installments/1.5/cancel'],
    ] as const) {
      const response = await call(method, path, merchant, method === 'PATCH' ? { amount: 1 } : undefined);
      expect(response.status, path).toBe(400);
      expect(
        (await json<Problem>(response)).errors.map((error) => error.path),
        path,
      ).toEqual(['id']);
    }
  });

  it('is 405 with Allow for a method the path does not have', async () => {
    const merchant = aMerchant();
    for (const [method, path, allow] of [
      ['DELETE', '/api/subscriptions/1', 'GET, HEAD'],
      ['GET', '/api/subscriptions/cancel-all', 'POST'],
      ['PUT', '/api/subscriptions/installments', 'GET, POST, HEAD'],
      ['GET', '/api/subscriptions/installments/bulk', 'PATCH'],
    ] as const) {
      const response = await call(method, path, merchant);
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow'), `${method} ${path}`).toBe(allow);
      expect((await json<Problem>(response)).code).toBe('METHOD_NOT_ALLOWED');
    }
    expect((await call('GET', '/api/subscriptions/nothing/here', merchant)).status).toBe(404);
  });
});

describe('GET /api/subscriptions', () => {
  it('filters by identifiers, link id and status, merchant-scoped, oldest first', async () => {
    const merchant = aMerchant();
    const first = await createSubscription(svc, merchant, {
      customIdentifier: 'F-1',
      customIdentifier2: 'A',
    });
    const second = await createSubscription(svc, merchant, {
      customIdentifier: 'F-1',
      customIdentifier2: 'B',
    });
    const noIdentifiers = await createSubscription(svc, merchant, { customIdentifier: null });
    await createSubscription(svc, aMerchant(), { customIdentifier: 'F-1' });
    await activate(svc, merchant, second.linkId);

    const ids = async (query: string) => {
      const response = await call('GET', `/api/subscriptions${query}`, merchant);
      expect(response.status, query).toBe(200);
      return (await json<{ subscriptions: Array<{ id: number }> }>(response)).subscriptions.map((s) => s.id);
    };
    expect(await ids('?customIdentifier=F-1')).toEqual([first.subscription.id, second.subscription.id]);
    expect(await ids('?customIdentifier=F-1&customIdentifier2=B')).toEqual([second.subscription.id]);
    expect(await ids('?customIdentifier=F-1&status=active')).toEqual([second.subscription.id]);
    expect(await ids(`?payRequestId=${noIdentifiers.linkId}`)).toEqual([noIdentifiers.subscription.id]);
    expect(await ids('')).toEqual([
      first.subscription.id,
      second.subscription.id,
      noIdentifiers.subscription.id,
    ]);
    expect(await ids('?customIdentifier=nobody')).toEqual([]);
  });

  it('pages with limit and an opaque cursor until nextCursor is null', async () => {
    const merchant = aMerchant();
    const created: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      created.push((await createSubscription(svc, merchant, { customIdentifier: 'P-1' })).subscription.id);
    }
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?customIdentifier=P-1&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await json<{ subscriptions: Array<{ id: number }>; nextCursor: string | null }>(
        await call('GET', `/api/subscriptions${query}`, merchant),
      );
      seen.push(...page.subscriptions.map((s) => s.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(created);
  });

  it('is 400 on the query parameter for a bad limit, status, payRequestId or cursor', async () => {
    const merchant = aMerchant();
    for (const [query, path] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['status=paused', 'status'],
      ['payRequestId=abc', 'payRequestId'],
      ['cursor=bm90LWEtY3Vyc29y', 'cursor'],
    ] as const) {
      const response = await call('GET', `/api/subscriptions?${query}`, merchant);
      expect(response.status, query).toBe(400);
      expect(
        (await json<Problem>(response)).errors.map((error) => error.path),
        query,
      ).toEqual([path]);
    }
  });
});

describe('payRequestId / pay_request_id name a subscription wherever identifiers do', () => {
  it('v1 (camelCase, number or digits), v2 list and add, and bulk reach a subscription without identifiers', async () => {
    const merchant = aMerchant();
    const { subscription, linkId } = await createSubscription(svc, merchant, { customIdentifier: null });
    await activate(svc, merchant, linkId);

    const listed = await call('GET', `/api/subscriptions/installments?pay_request_id=${linkId}`, merchant);
    expect(listed.status).toBe(200);
    expect((await json<{ installments: unknown[] }>(listed)).installments).toHaveLength(3);

    const modified = await call('PUT', '/api/subscriptions/modify-all', merchant, {
      payRequestId: String(linkId),
      newAmount: 170000,
    });
    expect(modified.status).toBe(200);
    expect((await json<{ installments: unknown[] }>(modified)).installments).toHaveLength(3);

    const added = await call('POST', '/api/subscriptions/installments', merchant, {
      pay_request_id: linkId,
      installments: [{ payment_date: '2026-09-10', amount: 1000 }],
    });
    expect(added.status).toBe(201);

    const bulk = await call('PATCH', '/api/subscriptions/installments/bulk', merchant, {
      operations: [{ pay_request_id: linkId, updates: [{ payment_date: '2026-02-10', amount: 99 }] }],
    });
    expect(bulk.status).toBe(200);
    expect(await json(bulk)).toMatchObject({
      summary: { updates_applied: 1 },
      results: [{ custom_identifier: null, pay_request_id: linkId, status: 'success' }],
    });

    const cancelled = await call('POST', '/api/subscriptions/cancel-all', merchant, { payRequestId: linkId });
    expect(cancelled.status).toBe(200);
    expect((await subscriptionOfLink(svc, linkId))?.status).toBe('cancelled');
    expect(
      (await installmentsOfSubscription(svc, subscription.id)).filter((row) => row.status === 'pending'),
    ).toEqual([]);
  });

  it("another merchant's link id is 404, and a link id with a non-matching identifier is 404", async () => {
    const owner = aMerchant();
    const { linkId } = await createSubscription(svc, owner, { customIdentifier: 'L-1' });
    await expectRefused(
      svc,
      owner,
      () => call('POST', '/api/subscriptions/cancel-all', aMerchant(), { payRequestId: linkId }),
      {
        status: 404,
        code: 'SUBSCRIPTION_NOT_FOUND',
      },
    );
    await expectRefused(
      svc,
      owner,
      () =>
        call('POST', '/api/subscriptions/cancel-all', owner, {
          customIdentifier: 'OTHER',
          payRequestId: linkId,
        }),
      { status: 404, code: 'SUBSCRIPTION_NOT_FOUND' },
    );
  });

  it('v1 accepts identifiers sent as JSON numbers, like link creation does', async () => {
    const merchant = aMerchant();
    const { linkId } = await createSubscription(svc, merchant, { customIdentifier: '4567890' });
    await activate(svc, merchant, linkId);
    const response = await call('PUT', '/api/subscriptions/modify-dates', merchant, {
      customIdentifier: 4567890,
      dayOfMonth: 12,
    });
    expect(response.status).toBe(200);
    const bulk = await call('PATCH', '/api/subscriptions/installments/bulk', merchant, {
      operations: [{ custom_identifier: 4567890, updates: [{ payment_date: '2026-02-12', amount: 5 }] }],
    });
    expect(await json(bulk)).toMatchObject({ summary: { updates_applied: 1 } });
  });

  it('a missing locator is 400 naming the fields in the endpoint style; a missing amount says so', async () => {
    const merchant = aMerchant();
    const v1 = await json<Problem>(await call('POST', '/api/subscriptions/cancel-by-amount', merchant, {}));
    expect(v1.errors).toEqual([
      { path: 'amount', message: 'is required' },
      {
        path: 'customIdentifier',
        message: 'customIdentifier, customIdentifier2 or payRequestId is required',
      },
    ]);
    expect(v1.detail).toBe('amount is required (and 1 more problem)');
    const locatorOnly = await json<Problem>(
      await call('POST', '/api/subscriptions/cancel-all', merchant, { customIdentifier: null }),
    );
    expect(locatorOnly.detail).toBe('customIdentifier, customIdentifier2 or payRequestId is required');
    const v2 = await json<Problem>(
      await call('POST', '/api/subscriptions/installments', merchant, {
        installments: [{ payment_date: '2026-09-10' }],
      }),
    );
    expect(v2.errors).toEqual([
      { path: 'installments.0.amount', message: 'is required' },
      {
        path: 'custom_identifier',
        message: 'custom_identifier, custom_identifier2 or pay_request_id is required',
      },
    ]);
  });
});
