import { localDate } from '@payrail/time';
import { assertAmountsFitCurrency } from '../domain/amounts';
import { InstallmentNotFound } from '../domain/errors';
import {
  assertNotInPast,
  changeInstallment,
  type Installment,
  type InstallmentChange,
} from '../domain/installment';
import { applyChanges } from './apply-changes';
import type { UseCaseDeps } from './deps';

/** v2 `PATCH /api/subscriptions/installments/{id}`: amount and/or date of one pending installment. */
export async function modifyInstallment(
  deps: UseCaseDeps,
  merchantId: string,
  installmentId: number,
  change: InstallmentChange,
): Promise<Installment> {
  return deps.stores.transaction(async (stores) => {
    const at = deps.clock.now();
    const found = await stores.installments.findInstallment(merchantId, installmentId);
    if (!found) throw new InstallmentNotFound(installmentId);
    const { subscription, installment } = found;
    if (change.amount !== undefined)
      assertAmountsFitCurrency(subscription.currency, [{ amount: change.amount, path: ['amount'] }]);
    const changed = changeInstallment(installment, change);
    if (change.paymentDate)
      assertNotInPast(change.paymentDate, localDate(at, subscription.timezone), ['paymentDate']);
    const installments = await stores.installments.installmentsOf(subscription.id);
    await applyChanges(stores, { subscription, installments, changed: [changed], at });
    return changed;
  });
}
