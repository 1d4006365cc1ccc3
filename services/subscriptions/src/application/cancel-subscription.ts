import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import { planCancelAll } from '../domain/operations';
import { cancelSubscription as cancelled } from '../domain/subscription';
import { applyChanges } from './apply-changes';
import { findSubscriptionForUpdate, type UseCaseDeps } from './find-subscription';

/** v1 `POST /api/subscriptions/cancel-all`: the subscription is cancelled with all its pending installments. */
export async function cancelSubscription(
  deps: UseCaseDeps,
  merchantId: string,
  criteria: SubscriptionCriteria,
): Promise<Installment[]> {
  return deps.store.transaction(async (store) => {
    const at = deps.clock.now();
    const subscription = await findSubscriptionForUpdate(store, merchantId, criteria);
    const installments = await store.installmentsOf(subscription.id);
    const result = await applyChanges(store, {
      subscription,
      installments,
      changed: planCancelAll(installments),
      nextSubscription: cancelled(subscription, at),
      at,
    });
    return result.changed;
  });
}
