import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import { planCancelByAmount } from '../domain/operations';
import { applyChanges } from './apply-changes';
import { findSubscriptionForUpdate, type UseCaseDeps } from './find-subscription';

export interface CancelByAmountInput {
  criteria: SubscriptionCriteria;
  /** Two-decimal string. */
  amount: string;
  /** How many, earliest first; all when absent. */
  quantity?: number;
}

/** v1 `POST /api/subscriptions/cancel-by-amount`. */
export async function cancelInstallmentsByAmount(
  deps: UseCaseDeps,
  merchantId: string,
  input: CancelByAmountInput,
): Promise<Installment[]> {
  return deps.store.transaction(async (store) => {
    const subscription = await findSubscriptionForUpdate(store, merchantId, input.criteria);
    const installments = await store.installmentsOf(subscription.id);
    const changed = planCancelByAmount(installments, input.amount, input.quantity);
    return (await applyChanges(store, { subscription, installments, changed, at: deps.clock.now() })).changed;
  });
}
