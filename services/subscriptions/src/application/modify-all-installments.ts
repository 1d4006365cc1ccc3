import { assertAmountsFitCurrency } from '../domain/amounts';
import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import { changeSubscriptionByIdentifiers } from './apply-changes';
import type { UseCaseDeps } from './deps';
import { planModifyAll } from '../domain/operations';

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
  return changeSubscriptionByIdentifiers(deps, merchantId, input.criteria, (subscription, installments) => {
    assertAmountsFitCurrency(subscription.currency, [{ amount: input.newAmount, path: ['newAmount'] }]);
    return {
      changed: planModifyAll(installments, input.newAmount),
      // A STATIC subscription's installment amount is what every remaining installment now is.
      nextSubscription:
        subscription.type === 'STATIC'
          ? { ...subscription, installmentAmount: input.newAmount }
          : subscription,
    };
  });
}
