import type { Subscription } from '../domain/subscription';
import type { SubscriptionFilter } from '../ports/subscription-store';
import type { SubscriptionStores } from '../ports/unit-of-work';

export interface SubscriptionPage {
  subscriptions: Subscription[];
  /** The id to continue after; null on the last page. */
  nextAfterId: number | null;
}

/** `GET /api/subscriptions`: the merchant's subscriptions matching the filter, oldest first, one page. */
export async function listSubscriptions(
  deps: { stores: SubscriptionStores },
  merchantId: string,
  filter: SubscriptionFilter,
  page: { afterId: number | null; limit: number },
): Promise<SubscriptionPage> {
  // One more than asked: whether another page exists is known without a count.
  const found = await deps.stores.subscriptions.listSubscriptions(merchantId, filter, {
    afterId: page.afterId,
    limit: page.limit + 1,
  });
  const subscriptions = found.slice(0, page.limit);
  const last = subscriptions.at(-1);
  return { subscriptions, nextAfterId: found.length > page.limit && last ? last.id : null };
}
