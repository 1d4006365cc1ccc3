import type { ChargeAttempt } from '../domain/debit';
import { InstallmentNotFound } from '../domain/errors';
import type { Installment } from '../domain/installment';
import type { Subscription } from '../domain/subscription';
import type { SubscriptionStores } from '../ports/unit-of-work';

export interface InstallmentAttempts {
  subscription: Subscription;
  installment: Installment;
  nextAttemptOn: string | null;
  attempts: ChargeAttempt[];
}

/** `GET /api/subscriptions/installments/{id}/attempts`: the audit of one installment's charges. */
export async function listChargeAttempts(
  deps: { stores: SubscriptionStores },
  merchantId: string,
  installmentId: number,
): Promise<InstallmentAttempts> {
  const found = await deps.stores.installments.readInstallment(merchantId, installmentId);
  if (!found) throw new InstallmentNotFound(installmentId);
  const attempts = await deps.stores.attempts.attemptsOf(installmentId);
  const summary = (await deps.stores.attempts.attemptSummaries([installmentId])).get(installmentId);
  return { ...found, attempts, nextAttemptOn: summary?.nextAttemptOn ?? null };
}
