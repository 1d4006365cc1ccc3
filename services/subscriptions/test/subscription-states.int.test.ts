import type { MerchantContext } from '@payrail/contracts';
import { aMerchant, type ServiceUnderTest, startService } from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptions } from '../src/adapters/postgres/schema';
import { subscriptionsService } from '../src/service';
import { createSubscription } from './support';

// `GET /internal/reports/subscription-states?at=` (issue 27, the report summary of processor-gateway): how
// many of the merchant's subscriptions were in each state at an instant, from their creation, activation and
// end times (past due as it is now: no history of it is kept).

let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(subscriptionsService, {});
});
afterAll(async () => svc?.stop());

const AT = '2026-03-01T00:00:00.000Z';

/** A subscription of `merchant` whose times and status are set as given. */
async function subscriptionWith(
  merchant: MerchantContext,
  o: {
    status: 'pending' | 'active' | 'past_due' | 'completed' | 'cancelled';
    createdAt?: string;
    activatedAt?: string | null;
    endedAt?: string | null;
  },
) {
  const created = await createSubscription(svc, merchant, {
    createdAt: '2026-01-15T15:00:00.000Z',
    createdOn: '2026-01-15',
  });
  const [row] = await svc.database.db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(eq(subscriptions.linkId, created.linkId));
  await svc.database.db
    .update(subscriptions)
    .set({
      status: o.status,
      createdAt: new Date(o.createdAt ?? '2026-01-15T15:00:00.000Z'),
      activatedAt:
        o.activatedAt === undefined
          ? new Date('2026-01-15T15:05:00.000Z')
          : o.activatedAt === null
            ? null
            : new Date(o.activatedAt),
      endedAt: o.endedAt ? new Date(o.endedAt) : null,
    })
    .where(eq(subscriptions.id, row!.id));
}

describe('GET /internal/reports/subscription-states', () => {
  it('counts each subscription in the state it was in at the instant asked', async () => {
    const merchant = aMerchant();
    await subscriptionWith(merchant, { status: 'active' });
    await subscriptionWith(merchant, { status: 'cancelled', endedAt: '2026-02-10T12:00:00Z' });
    // Cancelled after the instant: it was active then.
    await subscriptionWith(merchant, { status: 'cancelled', endedAt: '2026-03-05T12:00:00Z' });
    await subscriptionWith(merchant, { status: 'pending', activatedAt: null });
    await subscriptionWith(merchant, {
      status: 'completed',
      activatedAt: '2026-02-20T12:00:00Z',
      endedAt: '2026-02-25T12:00:00Z',
    });
    // Made after the instant: not counted.
    await subscriptionWith(merchant, { status: 'active', createdAt: '2026-03-10T12:00:00Z' });
    await subscriptionWith(merchant, { status: 'past_due' });
    // Activated after the instant: still pending then.
    await subscriptionWith(merchant, { status: 'active', activatedAt: '2026-03-02T12:00:00Z' });
    // The last instant before it ended: still active; the instant it ended: cancelled.
    await subscriptionWith(merchant, { status: 'cancelled', endedAt: AT });
    // Another merchant's never counts.
    await subscriptionWith(aMerchant(), { status: 'active' });

    const response = await svc.request('GET', `/internal/reports/subscription-states?at=${AT}`, { merchant });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({ pending: 2, active: 2, past_due: 1, completed: 1, cancelled: 2 });
    const before = new Date(Date.parse(AT) - 1).toISOString();
    const earlier = await svc.request('GET', `/internal/reports/subscription-states?at=${before}`, {
      merchant,
    });
    expect(await earlier.json()).toEqual({ pending: 2, active: 3, past_due: 1, completed: 1, cancelled: 1 });
  });

  it('refuses an instant it cannot read', async () => {
    const response = await svc.request('GET', '/internal/reports/subscription-states?at=yesterday', {
      merchant: aMerchant(),
    });
    expect(response.status).toBe(400);
  });
});
