import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import { changeSubscriptionByIdentifiers } from './apply-changes';
import type { UseCaseDeps } from './deps';
import { planCancelByInvoice } from '../domain/operations';

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
  return changeSubscriptionByIdentifiers(deps, merchantId, input.criteria, (subscription, installments) => ({
    changed: planCancelByInvoice(subscription, installments, input.invoiceNumber),
  }));
}
