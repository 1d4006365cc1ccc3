import { singleMatch, type SubscriptionCriteria } from '../domain/identifiers';
import { byPaymentDate, type Installment } from '../domain/installment';
import type { SubscriptionStore } from '../ports/subscription-store';

/** v2 `GET /api/subscriptions/installments`: the pending installments of one subscription, earliest first. */
export async function listPendingInstallments(
  deps: { store: SubscriptionStore },
  merchantId: string,
  criteria: SubscriptionCriteria,
): Promise<Installment[]> {
  const subscription = singleMatch(
    await deps.store.findOpenByCriteria(merchantId, criteria, { lock: false }),
  );
  const installments = await deps.store.installmentsOf(subscription.id);
  return installments.filter((installment) => installment.status === 'pending').sort(byPaymentDate);
}
