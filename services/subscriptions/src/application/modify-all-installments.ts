import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import { planModifyAll } from '../domain/operations';
import { applyChanges } from './apply-changes';
import { findSubscriptionForUpdate, type UseCaseDeps } from './find-subscription';

export interface ModifyAllInput {
  criteria: SubscriptionCriteria;
  newAmount: string;
}

/** v1 `PUT /api/subscriptions/modify-all`: the amount of every pending installment from the 2nd on. */
export async function modifyAllInstallments(
  deps: UseCaseDeps,
  merchantId: string,
  input: ModifyAllInput,
): Promise<Installment[]> {
  return deps.store.transaction(async (store) => {
    const subscription = await findSubscriptionForUpdate(store, merchantId, input.criteria);
    const installments = await store.installmentsOf(subscription.id);
    const changed = planModifyAll(installments, input.newAmount);
    // A STATIC subscription's installment amount is what every remaining installment now is.
    const next =
      subscription.type === 'STATIC' ? { ...subscription, installmentAmount: input.newAmount } : subscription;
    const result = await applyChanges(store, {
      subscription,
      installments,
      changed,
      nextSubscription: next,
      at: deps.clock.now(),
    });
    return result.changed;
  });
}
