import { SubscriptionNotFound } from '../domain/errors';
import type { Installment } from '../domain/installment';
import type { Subscription } from '../domain/subscription';
import type { SubscriptionStores } from '../ports/unit-of-work';

/** `GET /api/subscriptions/{id}`: the merchant's subscription with every installment, by number. */
export async function getSubscription(
  deps: { stores: SubscriptionStores },
  merchantId: string,
  subscriptionId: number,
): Promise<{ subscription: Subscription; installments: Installment[] }> {
  const subscription = await deps.stores.subscriptions.findSubscription(merchantId, subscriptionId);
  // Another merchant's subscription is not found either: its existence is not revealed.
  if (!subscription) throw new SubscriptionNotFound(subscriptionId);
  return { subscription, installments: await deps.stores.installments.installmentsOf(subscription.id) };
}
