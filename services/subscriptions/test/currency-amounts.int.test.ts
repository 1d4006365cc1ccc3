import type { MerchantContext } from '@payrail/contracts';
import { aMerchant, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionsService } from '../src/service';
import { activeSubscription, expectRefused } from './support';

// The guaraní has no minor unit (ISO 4217): every amount a merchant gives a PYG subscription is whole,
// and one with a fraction is refused (400, naming the field) before anything changes. USD and EUR
// subscriptions keep their cents.

let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(subscriptionsService, { clock: testClock(new Date('2026-01-20T12:00:00Z')) });
});
afterAll(async () => svc?.stop());

const send = (merchant: MerchantContext, method: string, path: string, body: unknown) =>
  svc.request(method, path, { merchant, body });

/** Each operation that takes an amount: the request with `amount` in it, and the fields it names. */
function operations(installmentId: number, amount: number | string) {
  const locator = { customIdentifier: 'CI-1' };
  return [
    {
      name: 'modify-by-amount',
      method: 'PUT',
      path: '/api/subscriptions/modify-by-amount',
      body: { ...locator, amount, newAmount: amount },
      paths: ['amount', 'newAmount'],
    },
    {
      name: 'modify-all',
      method: 'PUT',
      path: '/api/subscriptions/modify-all',
      body: { ...locator, newAmount: amount },
      paths: ['newAmount'],
    },
    {
      name: 'cancel-by-amount',
      method: 'POST',
      path: '/api/subscriptions/cancel-by-amount',
      body: { ...locator, amount },
      paths: ['amount'],
    },
    {
      name: 'v2 modify',
      method: 'PATCH',
      path: `/api/subscriptions/installments/${installmentId}`,
      body: { amount },
      paths: ['amount'],
    },
    {
      name: 'v2 add',
      method: 'POST',
      path: '/api/subscriptions/installments',
      body: {
        custom_identifier: 'CI-1',
        installments: [
          { payment_date: '2026-09-10', amount: 1000 },
          { payment_date: '2026-10-10', amount },
        ],
      },
      paths: ['installments.1.amount'],
    },
    {
      name: 'bulk',
      method: 'PATCH',
      path: '/api/subscriptions/installments/bulk',
      body: {
        operations: [
          { custom_identifier: 'CI-1', updates: [{ payment_date: '2026-02-10', amount }] },
          { custom_identifier: 'NOBODY', updates: [{ payment_date: '2026-02-10', amount }] },
        ],
      },
      // A subscription not found has no currency to check against: that operation fails on its own.
      paths: ['operations.0.updates.0.amount'],
    },
  ];
}

describe('amounts and the subscription currency', () => {
  it('a PYG subscription refuses an amount with a fraction in every operation, naming the field; nothing changes', async () => {
    const merchant = aMerchant();
    const { installments } = await activeSubscription(svc, merchant, { customIdentifier: 'CI-1' });
    const second = installments[1]?.id as number;
    for (const amount of [99000.5, '150000.01']) {
      for (const operation of operations(second, amount)) {
        await expectRefused(
          svc,
          merchant,
          () => send(merchant, operation.method, operation.path, operation.body),
          {
            status: 400,
            code: 'VALIDATION_ERROR',
            paths: operation.paths,
          },
        );
      }
    }
    const response = await send(merchant, 'PUT', '/api/subscriptions/modify-all', {
      customIdentifier: 'CI-1',
      newAmount: '99000.5',
    });
    expect(((await response.json()) as { detail: string }).detail).toBe(
      'newAmount must be a whole number: PYG has no decimals',
    );
  });

  it('a PYG subscription takes whole amounts, with or without zero decimals', async () => {
    const merchant = aMerchant();
    const { installments } = await activeSubscription(svc, merchant, { customIdentifier: 'CI-1' });
    const patched = await send(merchant, 'PATCH', `/api/subscriptions/installments/${installments[1]?.id}`, {
      amount: '99000.00',
    });
    expect(patched.status).toBe(200);
    const all = await send(merchant, 'PUT', '/api/subscriptions/modify-all', {
      customIdentifier: 'CI-1',
      newAmount: 120000,
    });
    expect(all.status).toBe(200);
  });

  it.each(['USD', 'EUR'] as const)(
    'a %s subscription keeps its cents in every operation',
    async (currency) => {
      const merchant = aMerchant({ instance: 'INTERNATIONAL', currency });
      const { installments } = await activeSubscription(svc, merchant, {
        customIdentifier: 'CI-1',
        currency,
        amount: '20.00',
        recurrence: {
          type: 'STATIC',
          installmentAmount: '15.00',
          totalPeriods: 4,
          dayOfMonth: 10,
          monthForSecondInstallment: 1,
        },
      });
      const locator = { customIdentifier: 'CI-1' };
      // In an order where each finds what it acts on (the amounts the one before set).
      const requests: Array<[string, string, unknown]> = [
        ['PATCH', `/api/subscriptions/installments/${installments[1]?.id}`, { amount: 15.25 }],
        ['PUT', '/api/subscriptions/modify-all', { ...locator, newAmount: 15.5 }],
        ['PUT', '/api/subscriptions/modify-by-amount', { ...locator, amount: '15.50', newAmount: 16.75 }],
        ['POST', '/api/subscriptions/cancel-by-amount', { ...locator, amount: 16.75, quantity: 1 }],
        [
          'POST',
          '/api/subscriptions/installments',
          { custom_identifier: 'CI-1', installments: [{ payment_date: '2026-10-10', amount: 0.99 }] },
        ],
        [
          'PATCH',
          '/api/subscriptions/installments/bulk',
          {
            operations: [
              { custom_identifier: 'CI-1', updates: [{ payment_date: '2026-10-10', amount: 17.01 }] },
            ],
          },
        ],
      ];
      for (const [method, path, body] of requests) {
        const response = await send(merchant, method, path, body);
        expect(response.status, `${method} ${path}: ${await response.clone().text()}`).toBeLessThan(300);
      }
      const bulkAnswer = await send(merchant, 'PATCH', '/api/subscriptions/installments/bulk', {
        operations: [{ custom_identifier: 'CI-1', updates: [{ payment_date: '2026-10-10', amount: 18.02 }] }],
      });
      expect(await bulkAnswer.text()).toContain('"updated_fields":{"amount":18.02}');
    },
  );
});
