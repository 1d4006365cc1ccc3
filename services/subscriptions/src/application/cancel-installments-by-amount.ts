import { assertAmountsFitCurrency } from '../domain/amounts';
import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import { changeSubscriptionByIdentifiers } from './apply-changes';
import type { UseCaseDeps } from './deps';
import { planCancelByAmount } from '../domain/operations';

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
  return changeSubscriptionByIdentifiers(deps, merchantId, input.criteria, (subscription, installments) => {
    assertAmountsFitCurrency(subscription.currency, [{ amount: input.amount, path: ['amount'] }]);
    return { changed: planCancelByAmount(installments, input.amount, input.quantity) };
  });
}
