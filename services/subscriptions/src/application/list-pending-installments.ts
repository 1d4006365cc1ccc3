import type { ChargeAttempt } from '../domain/debit';
import { singleMatch, type SubscriptionCriteria } from '../domain/identifiers';
import { byPaymentDate, type Installment } from '../domain/installment';
import type { SubscriptionStores } from '../ports/unit-of-work';

export interface PendingInstallment {
  installment: Installment;
  /** Where it stands in the automatic debit: its latest attempt and the retry scheduled after a decline. */
  lastAttempt: ChargeAttempt | null;
  nextAttemptOn: string | null;
}

/**
 * v2 `GET /api/subscriptions/installments`: the pending installments of one subscription, earliest first,
 * each with its latest charge attempt and next attempt day.
 */
export async function listPendingInstallments(
  deps: { stores: SubscriptionStores },
  merchantId: string,
  criteria: SubscriptionCriteria,
): Promise<{ timezone: string; installments: PendingInstallment[] }> {
  const subscription = singleMatch(
    await deps.stores.subscriptions.findOpenByCriteria(merchantId, criteria, { lock: false }),
  );
  const installments = await deps.stores.installments.installmentsOf(subscription.id);
  const pending = installments.filter((installment) => installment.status === 'pending').sort(byPaymentDate);
  const summaries = await deps.stores.attempts.attemptSummaries(pending.map((installment) => installment.id));
  return {
    timezone: subscription.timezone,
    installments: pending.map((installment) => ({
      installment,
      lastAttempt: summaries.get(installment.id)?.lastAttempt ?? null,
      nextAttemptOn: summaries.get(installment.id)?.nextAttemptOn ?? null,
    })),
  };
}
