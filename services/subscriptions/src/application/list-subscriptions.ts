import type { Subscription } from '../domain/subscription';
import type { SubscriptionFilter, SubscriptionStore } from '../ports/subscription-store';

export interface SubscriptionPage {
  subscriptions: Subscription[];
  /** The id to continue after; null on the last page. */
  nextAfterId: number | null;
}

/** `GET /api/subscriptions`: the merchant's subscriptions matching the filter, oldest first, one page. */
export async function listSubscriptions(
  deps: { store: SubscriptionStore },
  merchantId: string,
  filter: SubscriptionFilter,
  page: { afterId: number | null; limit: number },
): Promise<SubscriptionPage> {
  // One more than asked: whether another page exists is known without a count.
  const found = await deps.store.listSubscriptions(merchantId, filter, {
    afterId: page.afterId,
    limit: page.limit + 1,
  });
  const subscriptions = found.slice(0, page.limit);
  const last = subscriptions.at(-1);
  return { subscriptions, nextAfterId: found.length > page.limit && last ? last.id : null };
}
