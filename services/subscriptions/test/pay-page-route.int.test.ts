import { subscriptionOfLinkPath, subscriptionOfLinkResponse } from '@payrail/contracts';
import { aMerchant, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionsService } from '../src/service';
import { activate, createSubscription } from './support';

// `GET /internal/links/{linkId}/subscription`: what links' pay page shows of a subscription, read where it
// is kept, after the merchant's operations (real PostgreSQL).

let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(subscriptionsService, { clock: testClock(new Date('2026-01-20T12:00:00Z')) });
});
afterAll(async () => svc?.stop());

async function scheduleOf(merchant: ReturnType<typeof aMerchant> | undefined, linkId: number) {
  const response = await svc.request('GET', subscriptionOfLinkPath(linkId), { merchant });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('the subscription of a link, for the pay page', () => {
  it('answers every installment as it is, in the contract, after modify-all, modify-dates and a cancel', async () => {
    const merchant = aMerchant();
    const { linkId, installments } = await createSubscription(svc, merchant, { customIdentifier: 'PAGE-1' });
    const before = await scheduleOf(merchant, linkId);
    expect(before.status).toBe(200);
    expect(subscriptionOfLinkResponse.parse(before.body)).toMatchObject({
      type: 'STATIC',
      status: 'pending',
      totalPeriods: 4,
      installments: [
        { number: 1, paymentDate: '2026-01-15', amount: '200000.00', status: 'pending', paidAt: null },
        { number: 2, paymentDate: '2026-02-10', amount: '150000.00', status: 'pending' },
        { number: 3, paymentDate: '2026-03-10', amount: '150000.00', status: 'pending' },
        { number: 4, paymentDate: '2026-04-10', amount: '150000.00', status: 'pending' },
      ],
    });

    await activate(svc, merchant, linkId);
    const changes = [
      ['PUT', '/api/subscriptions/modify-all', { customIdentifier: 'PAGE-1', newAmount: 99000 }],
      ['PUT', '/api/subscriptions/modify-dates', { customIdentifier: 'PAGE-1', dayOfMonth: 20 }],
      ['POST', `/api/subscriptions/installments/${installments[2]?.id}/cancel`, undefined],
    ] as const;
    for (const [method, path, body] of changes) {
      const response = await svc.request(method, path, { merchant, body });
      expect(response.status, `${method} ${path}`).toBe(200);
    }
    const after = subscriptionOfLinkResponse.parse((await scheduleOf(merchant, linkId)).body);
    expect(after.status).toBe('active');
    expect(after.installments.map((i) => [i.number, i.paymentDate, i.amount, i.status])).toEqual([
      [1, '2026-01-15', '200000.00', 'paid'],
      [2, '2026-02-20', '99000.00', 'pending'],
      [3, '2026-03-20', '99000.00', 'cancelled'],
      [4, '2026-04-20', '99000.00', 'pending'],
    ]);
    expect(after.installments[0]?.paidAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('another merchant’s link, or one with no subscription, is 404; no signed context is 401', async () => {
    const merchant = aMerchant();
    const { linkId } = await createSubscription(svc, merchant);
    expect((await scheduleOf(aMerchant(), linkId)).status).toBe(404);
    expect((await scheduleOf(merchant, linkId + 100_000)).body).toMatchObject({
      code: 'SUBSCRIPTION_NOT_FOUND',
    });
    expect((await scheduleOf(merchant, linkId + 100_000)).status).toBe(404);
    expect((await scheduleOf(undefined, linkId)).status).toBe(401);
  });
});
