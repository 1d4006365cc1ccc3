import { byPaymentDate, type Installment } from './installment';

/**
 * The failed installments at the end of the subscription's settled ones (paid or failed), by payment date:
 * how many failed in a row with no paid one after them. Pending, processing and cancelled installments
 * neither count nor break the run.
 */
export function consecutiveFailedInstallments(installments: Installment[]): number {
  const settled = installments
    .filter((installment) => installment.status === 'paid' || installment.status === 'failed')
    .sort(byPaymentDate);
  let run = 0;
  for (let index = settled.length - 1; index >= 0; index -= 1) {
    if (settled[index]?.status !== 'failed') break;
    run += 1;
  }
  return run;
}

/**
 * The merchant's optional dunning rule (billing-scheduler's policy, carried by
 * `installment.dunning-exhausted`): the subscription is cancelled once `cancelAfter` installments in a row
 * failed after dunning. Null: never.
 */
export function cancelsAfterDunning(installments: Installment[], cancelAfter: number | null): boolean {
  return cancelAfter !== null && consecutiveFailedInstallments(installments) >= cancelAfter;
}
