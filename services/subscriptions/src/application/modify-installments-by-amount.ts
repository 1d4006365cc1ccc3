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
  return changeSubscriptionByIdentifiers(deps, merchantId, input.criteria, (_subscription, installments) => ({
    changed: planModifyByAmount(installments, input.amount, input.newAmount),
  }));
}
