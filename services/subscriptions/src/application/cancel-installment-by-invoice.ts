import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import { planCancelByInvoice } from '../domain/operations';
import { applyChanges } from './apply-changes';
import { findSubscriptionForUpdate, type UseCaseDeps } from './find-subscription';

export interface CancelByInvoiceInput {
  criteria: SubscriptionCriteria;
  invoiceNumber: string;
}

/** v1 `POST /api/subscriptions/cancel-by-invoice` (DYNAMIC only). */
export async function cancelInstallmentByInvoice(
  deps: UseCaseDeps,
  merchantId: string,
  input: CancelByInvoiceInput,
): Promise<Installment[]> {
  return deps.store.transaction(async (store) => {
    const subscription = await findSubscriptionForUpdate(store, merchantId, input.criteria);
    const installments = await store.installmentsOf(subscription.id);
    const changed = planCancelByInvoice(subscription, installments, input.invoiceNumber);
    return (await applyChanges(store, { subscription, installments, changed, at: deps.clock.now() })).changed;
  });
}
