import type { SubscriptionCriteria } from '../domain/identifiers';
import { singleMatch } from '../domain/identifiers';
import type { Subscription } from '../domain/subscription';
import type { SubscriptionStores } from '../ports/unit-of-work';

/** The one open subscription the criteria name, locked for the rest of the transaction. */
export async function findSubscriptionForUpdate(
  stores: SubscriptionStores,
  merchantId: string,
  criteria: SubscriptionCriteria,
): Promise<Subscription> {
  return singleMatch(await stores.subscriptions.findOpenByCriteria(merchantId, criteria, { lock: true }));
}
