import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import { changeSubscriptionByIdentifiers } from './apply-changes';
import type { UseCaseDeps } from './deps';
import { planMoveToDay } from '../domain/operations';

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
  return changeSubscriptionByIdentifiers(deps, merchantId, input.criteria, (subscription, installments) => ({
    changed: planMoveToDay(installments, input.dayOfMonth),
    nextSubscription:
      subscription.type === 'STATIC' ? { ...subscription, dayOfMonth: input.dayOfMonth } : subscription,
  }));
}
