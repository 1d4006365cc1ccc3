import { assertAmountsFitCurrency } from '../domain/amounts';
import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import { changeSubscriptionByIdentifiers } from './apply-changes';
import type { UseCaseDeps } from './deps';
import { planModifyByAmount } from '../domain/operations';

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
  return changeSubscriptionByIdentifiers(deps, merchantId, input.criteria, (subscription, installments) => {
    assertAmountsFitCurrency(subscription.currency, [
      { amount: input.amount, path: ['amount'] },
      { amount: input.newAmount, path: ['newAmount'] },
    ]);
    return { changed: planModifyByAmount(installments, input.amount, input.newAmount) };
  });
}
