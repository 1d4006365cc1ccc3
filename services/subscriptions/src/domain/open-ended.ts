import { normalizeAmount } from '@payrail/money';
import type { Installment } from './installment';
import type { NewInstallmentPlan } from './operations';
import { debitDate } from './schedule';
import { isOpenEnded, type Subscription } from './subscription';

/**
 * Open-ended subscriptions: a STATIC plan created with `totalPeriods: null`, every month until it is
 * cancelled (gyms, schools, software). Its installments cannot all exist from the start, so they exist on a
 * rolling horizon: the `OPEN_ENDED_HORIZON` installments numbered after the last one that is settled (paid,
 * failed or cancelled) always exist, so the v1 and v2 operations and bulk by date find a year ahead.
 *
 * Why "after the last one settled", not "a year after today": the horizon moves when the schedule does. Each
 * charge's outcome, transfer or cancel that settles an installment adds the installments it brings into the
 * horizon, in the same transaction, under the subscription's row lock; nothing depends on a timer, and a
 * subscription whose charges stall (its card removed) does not pile up installments it is not paying.
 * Fourteen monthly runs charge fourteen installments: each paid one adds the next.
 */
export const OPEN_ENDED_HORIZON = 12;

export { isOpenEnded };

/** How many of the plan's months an open-ended subscription schedules when it is created: 1 and 12 more. */
export const OPEN_ENDED_INITIAL_PERIODS = 1 + OPEN_ENDED_HORIZON;

/** No longer waiting to be collected: what the horizon counts from. (`processing` may still go back.) */
function isSettled(installment: Installment): boolean {
  return (
    installment.status === 'paid' || installment.status === 'failed' || installment.status === 'cancelled'
  );
}

/** Statuses in which an open-ended plan goes on: not completed (it never is), not cancelled. */
const GOING_ON: ReadonlySet<Subscription['status']> = new Set(['pending', 'active', 'past_due']);

export interface HorizonTopUp {
  /** The subscription with `periodsScheduled` moved on. */
  subscription: Subscription;
  /** The new installments, pending, numbered after the last one. */
  added: NewInstallmentPlan[];
}

/**
 * The installments an open-ended subscription is missing from its horizon, given all its installments as
 * they are now (`undefined`: none missing, or not an open-ended subscription that goes on). Each new one
 * takes the next number and the plan's next month (`periodsScheduled` + 1: installments the merchant added
 * by v2 take numbers, not months), on the current debit day and for the current installment amount: what
 * `modify-all` and `modify-dates` set. Changes to single installments (v1 modify-by-amount, v2 edits, bulk)
 * do not change the terms, so they change nothing of installments added later.
 */
export function topUpHorizon(
  subscription: Subscription,
  installments: readonly Installment[],
): HorizonTopUp | undefined {
  if (!isOpenEnded(subscription) || !GOING_ON.has(subscription.status)) return undefined;
  const { installmentAmount, dayOfMonth, monthForSecondInstallment, periodsScheduled } = subscription;
  if (installmentAmount === null || dayOfMonth === null || monthForSecondInstallment === null) {
    throw new Error(`Open-ended subscription ${subscription.id} has no terms`);
  }
  if (periodsScheduled === null) {
    throw new Error(`Open-ended subscription ${subscription.id} does not count its periods`);
  }
  let lastSettled = 1;
  let lastNumber = 0;
  for (const installment of installments) {
    if (isSettled(installment)) lastSettled = Math.max(lastSettled, installment.number);
    lastNumber = Math.max(lastNumber, installment.number);
  }
  const missing = lastSettled + OPEN_ENDED_HORIZON - lastNumber;
  if (missing <= 0) return undefined;
  const added: NewInstallmentPlan[] = [];
  for (let k = 1; k <= missing; k += 1) {
    added.push({
      number: lastNumber + k,
      paymentDate: debitDate(
        subscription.createdOn,
        { dayOfMonth, monthForSecondInstallment },
        periodsScheduled + k,
      ),
      amount: normalizeAmount(installmentAmount),
      status: 'pending',
      invoiceNumber: null,
      paidAt: null,
    });
  }
  return { subscription: { ...subscription, periodsScheduled: periodsScheduled + missing }, added };
}
