import type { Installment } from '../domain/installment';
import type { Subscription } from '../domain/subscription';
import type { SubscriptionStores } from '../ports/unit-of-work';

/**
 * The subscription a recurrent link made, with every installment as it is now, for the pay page (links'
 * internal call): read without locks, so a page view never waits for a charge or a merchant operation.
 * Undefined when there is none (yet) at that merchant.
 */
export async function getSubscriptionOfLink(
  deps: { stores: SubscriptionStores },
  merchantId: string,
  linkId: number,
): Promise<{ subscription: Subscription; installments: Installment[] } | undefined> {
  const [subscription] = await deps.stores.subscriptions.listSubscriptions(
    merchantId,
    { linkId },
    { afterId: null, limit: 1 },
  );
  if (!subscription) return undefined;
  return { subscription, installments: await deps.stores.installments.installmentsOf(subscription.id) };
}
