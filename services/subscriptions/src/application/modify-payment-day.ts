import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import { planMoveToDay } from '../domain/operations';
import { applyChanges } from './apply-changes';
import { findSubscriptionForUpdate, type UseCaseDeps } from './find-subscription';

export interface ModifyPaymentDayInput {
  criteria: SubscriptionCriteria;
  dayOfMonth: number;
}

/** v1 `PUT /api/subscriptions/modify-dates`: each pending installment to that day of its own month. */
export async function modifyPaymentDay(
  deps: UseCaseDeps,
  merchantId: string,
  input: ModifyPaymentDayInput,
): Promise<Installment[]> {
  return deps.store.transaction(async (store) => {
    const subscription = await findSubscriptionForUpdate(store, merchantId, input.criteria);
    const installments = await store.installmentsOf(subscription.id);
    const changed = planMoveToDay(installments, input.dayOfMonth);
    const next =
      subscription.type === 'STATIC' ? { ...subscription, dayOfMonth: input.dayOfMonth } : subscription;
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
