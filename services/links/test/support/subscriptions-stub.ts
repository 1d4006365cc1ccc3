import type { SubscriptionOfLink } from '@payrail/contracts';
import { verifyMerchantContext } from '@payrail/http';
import { TEST_INTERNAL_SECRET } from '@payrail/testing';

/**
 * Stands in for subscriptions' internal route of the pay page (`GET /internal/links/{linkId}/subscription`,
 * `SubscriptionOfLink` of libs/contracts) in links' component tests: a subscription per link set by the
 * test (none: 404, as before subscriptions made it), or the whole service down, slow or out of contract.
 */
export interface SubscriptionsStub {
  handle(request: Request): Promise<Response>;
  /** The subscription subscriptions holds for that link (of that merchant), as it is now. */
  set(merchantId: string, linkId: number, subscription: SubscriptionOfLink): void;
  mode: 'up' | 'down' | 'slow' | 'garbled';
  /** The paths asked, with the merchant each was signed for. */
  calls: Array<{ path: string; merchantId: string }>;
}

export function subscriptionsStub(): SubscriptionsStub {
  const held = new Map<string, SubscriptionOfLink>();
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const stub: SubscriptionsStub = {
    mode: 'up',
    calls: [],
    set(merchantId, linkId, subscription) {
      held.set(`${merchantId}:${linkId}`, subscription);
    },
    async handle(request) {
      if (stub.mode === 'down') throw new Error('connect ECONNREFUSED');
      if (stub.mode === 'slow') await new Promise((resolve) => setTimeout(resolve, 2_000));
      if (stub.mode === 'garbled') return json({ subscriptionId: 'x' });
      const merchant = verifyMerchantContext(
        request.headers.get('x-merchant-context') ?? undefined,
        request.headers.get('x-merchant-signature') ?? undefined,
        TEST_INTERNAL_SECRET,
      );
      if (!merchant) return json({ code: 'UNAUTHORIZED' }, 401);
      const path = new URL(request.url).pathname;
      stub.calls.push({ path, merchantId: merchant.merchantId });
      const linkId = /^\/internal\/links\/(\d+)\/subscription$/.exec(path)?.[1];
      const found = linkId ? held.get(`${merchant.merchantId}:${linkId}`) : undefined;
      return found ? json(found) : json({ code: 'SUBSCRIPTION_NOT_FOUND' }, 404);
    },
  };
  return stub;
}
