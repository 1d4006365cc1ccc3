import type { MerchantContext } from '@payrail/contracts';
import { aMerchant, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installments, subscriptions } from '../src/adapters/postgres/schema';
import { subscriptionsService } from '../src/service';
import { activeSubscription, createSubscription } from './support';

// `GET /api/subscriptions/summary` (issue 28, the console's home): subscriptions by status, and the pending
// installments of active and past-due ones due from today (the merchant's) for `days` days, per currency.

// 2026-02-06 09:00 in Asunción (UTC-3): the subscriptions' 2nd installments fall on 2026-02-10.
const clock = testClock(new Date('2026-02-06T12:00:00Z'));
let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(subscriptionsService, { clock });
});
afterAll(async () => svc?.stop());

async function summary(merchant: MerchantContext, query = '') {
  const response = await svc.request('GET', `/api/subscriptions/summary${query}`, { merchant });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('GET /api/subscriptions/summary', () => {
  it('counts by status and sums the next days’ debits of active and past-due subscriptions, per currency', async () => {
    const merchant = aMerchant();
    // Created 2026-01-15: installments on the 15th, then 2026-02-10, 03-10, 04-10 (150000 each).
    const options = { createdAt: '2026-01-15T15:00:00.000Z', createdOn: '2026-01-15' };
    await activeSubscription(svc, merchant, options);
    const pastDue = await activeSubscription(svc, merchant, options);
    await svc.database.db
      .update(subscriptions)
      .set({ status: 'past_due' })
      .where(eq(subscriptions.id, pastDue.subscription.id));
    await activeSubscription(svc, merchant, { ...options, currency: 'USD', amount: '20.00' });
    // Pending (first payment not made): its installments are not debited.
    await createSubscription(svc, merchant, options);
    const cancelled = await activeSubscription(svc, merchant, options);
    await svc.database.db
      .update(subscriptions)
      .set({ status: 'cancelled' })
      .where(eq(subscriptions.id, cancelled.subscription.id));
    // Another merchant's never counts.
    await activeSubscription(svc, aMerchant(), options);

    // Today is 02-06: 7 days reach 02-12, so the 2nd installments (02-10) are in, the 3rd are not.
    const week = await summary(merchant);
    expect(week.status).toBe(200);
    expect(week.body).toEqual({
      counts: { pending: 1, active: 2, past_due: 1, completed: 0, cancelled: 1 },
      upcoming: {
        days: 7,
        installments: 3,
        amounts: [
          { currency: 'PYG', amount: '300000.00' },
          { currency: 'USD', amount: '150000.00' },
        ],
      },
    });
    // Four days reach 02-09 only.
    expect((await summary(merchant, '?days=4')).body.upcoming).toEqual({
      days: 4,
      installments: 0,
      amounts: [],
    });
    // A cancelled installment is not debited.
    const [second] = await svc.database.db
      .select()
      .from(installments)
      .where(eq(installments.subscriptionId, pastDue.subscription.id))
      .orderBy(installments.number)
      .offset(1)
      .limit(1);
    await svc.database.db
      .update(installments)
      .set({ status: 'cancelled' })
      .where(eq(installments.id, second?.id ?? 0));
    expect((await summary(merchant)).body.upcoming).toMatchObject({ installments: 2 });

    for (const days of ['0', '32', 'x']) expect((await summary(merchant, `?days=${days}`)).status).toBe(400);
  });
});
