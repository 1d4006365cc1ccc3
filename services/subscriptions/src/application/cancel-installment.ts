import { InstallmentNotFound } from '../domain/errors';
import { cancelInstallment as cancelled, type Installment } from '../domain/installment';
import { applyChanges } from './apply-changes';
import type { UseCaseDeps } from './deps';

/** v2 `POST /api/subscriptions/installments/{id}/cancel`. */
export async function cancelInstallment(
  deps: UseCaseDeps,
  merchantId: string,
  installmentId: number,
): Promise<Installment> {
  return deps.stores.transaction(async (stores) => {
    const found = await stores.installments.findInstallment(merchantId, installmentId);
    if (!found) throw new InstallmentNotFound(installmentId);
    const { subscription, installment } = found;
    const changed = cancelled(installment);
    const installments = await stores.installments.installmentsOf(subscription.id);
    await applyChanges(stores, { subscription, installments, changed: [changed], at: deps.clock.now() });
    return changed;
  });
}
