import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import { planModifyByAmount } from '../domain/operations';
import { applyChanges } from './apply-changes';
import { findSubscriptionForUpdate, type UseCaseDeps } from './find-subscription';

export interface ModifyByAmountInput {
  criteria: SubscriptionCriteria;
  amount: string;
  newAmount: string;
}

/** v1 `PUT /api/subscriptions/modify-by-amount`: every pending installment of that amount gets the new one. */
export async function modifyInstallmentsByAmount(
  deps: UseCaseDeps,
  merchantId: string,
  input: ModifyByAmountInput,
): Promise<Installment[]> {
  return deps.store.transaction(async (store) => {
    const subscription = await findSubscriptionForUpdate(store, merchantId, input.criteria);
    const installments = await store.installmentsOf(subscription.id);
    const changed = planModifyByAmount(installments, input.amount, input.newAmount);
    return (await applyChanges(store, { subscription, installments, changed, at: deps.clock.now() })).changed;
  });
}
