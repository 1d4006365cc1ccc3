import type { ChargeAttempt } from '../domain/debit';
import { InstallmentNotFound } from '../domain/errors';
import type { Installment } from '../domain/installment';
import type { Subscription } from '../domain/subscription';
import type { SubscriptionStore } from '../ports/subscription-store';

export interface InstallmentAttempts {
  subscription: Subscription;
  installment: Installment;
  nextAttemptOn: string | null;
  attempts: ChargeAttempt[];
}

/** `GET /api/subscriptions/installments/{id}/attempts`: the audit of one installment's charges. */
export async function listChargeAttempts(
  deps: { store: SubscriptionStore },
  merchantId: string,
  installmentId: number,
): Promise<InstallmentAttempts> {
  const found = await deps.store.readInstallment(merchantId, installmentId);
  if (!found) throw new InstallmentNotFound(installmentId);
  const attempts = await deps.store.attemptsOf(installmentId);
  const summary = (await deps.store.attemptSummaries([installmentId])).get(installmentId);
  return { ...found, attempts, nextAttemptOn: summary?.nextAttemptOn ?? null };
}
