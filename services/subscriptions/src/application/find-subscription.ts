import type { SubscriptionCriteria } from '../domain/identifiers';
import { singleMatch } from '../domain/identifiers';
import type { Subscription } from '../domain/subscription';
import type { SubscriptionStore } from '../ports/subscription-store';

/** The one open subscription the criteria name, locked for the rest of the transaction. */
export async function findSubscriptionForUpdate(
  store: SubscriptionStore,
  merchantId: string,
  criteria: SubscriptionCriteria,
): Promise<Subscription> {
  return singleMatch(await store.findOpenByCriteria(merchantId, criteria, { lock: true }));
}
