import { amountCurrencyProblem } from '@payrail/contracts';
import { formatAmount, parseAmount } from '@payrail/money';
import type { InstallmentStatus } from './status';
import {
  AmountMismatch,
  CurrencyMismatch,
  FirstInstallmentSettledByLink,
  InstallmentAlreadyPaid,
  InstallmentCancelled,
  InstallmentNotPending,
  InvalidStateTransition,
  PaymentDateInPast,
  SubscriptionNotActive,
} from './errors';
import type { IsoDate } from '@payrail/time';

export interface Installment {
  id: number;
  subscriptionId: number;
  /** 1 is the link payment; 2.. are debited. */
  number: number;
  paymentDate: IsoDate;
  /** Two-decimal string. */
  amount: string;
  status: InstallmentStatus;
  invoiceNumber: string | null;
  paidAt: Date | null;
}

/**
 * `pending → processing → paid`; a declined charge goes back `processing → pending` while dunning decides,
 * and dunning that gives up makes it `pending → failed`. `pending → cancelled` (a charge declined after
 * its subscription was cancelled goes `processing → pending → cancelled`); `pending → paid` when the
 * money came without a charge of ours (installment 1 by the link payment, later a bank transfer), and
 * `failed → paid` when a failed installment is paid later after all (a bank transfer, a late success);
 * `failed → processing → failed | paid` when the customer's new card is charged for it.
 */
const NEXT: Record<InstallmentStatus, readonly InstallmentStatus[]> = {
  pending: ['processing', 'paid', 'cancelled', 'failed'],
  processing: ['paid', 'pending', 'failed'],
  paid: [],
  // `failed → processing`: the customer gave the subscription another card, and the failed installment is
  // charged to it at once (`change-subscription-card.ts`); declined, it is `failed` again.
  failed: ['paid', 'processing'],
  cancelled: [],
};

export function canMoveTo(from: InstallmentStatus, to: InstallmentStatus): boolean {
  return NEXT[from].includes(to);
}

function moveTo(installment: Installment, to: InstallmentStatus): Installment {
  if (!canMoveTo(installment.status, to)) {
    throw new InvalidStateTransition('Installment', installment.id, installment.status, to);
  }
  return { ...installment, status: to };
}

/** Still to be collected: nothing is final about it yet. */
export function isOutstanding(installment: Installment): boolean {
  return installment.status === 'pending' || installment.status === 'processing';
}

/**
 * What merchants may change or cancel: pending installments from the 2nd on. Installment 1 is settled by
 * the link payment, never by these operations.
 */
export function isMerchantModifiable(installment: Installment): boolean {
  return installment.number >= 2 && installment.status === 'pending';
}

export function assertMerchantModifiable(installment: Installment): void {
  if (installment.number === 1) {
    throw new FirstInstallmentSettledByLink('change');
  }
  if (installment.status !== 'pending') {
    throw new InstallmentNotPending(installment.id, installment.status, 'change');
  }
}

/** Earliest first: by payment date, then by number. */
export function byPaymentDate(a: Installment, b: Installment): number {
  if (a.paymentDate !== b.paymentDate) return a.paymentDate < b.paymentDate ? -1 : 1;
  return a.number - b.number;
}

export function cancelInstallment(installment: Installment): Installment {
  assertMerchantModifiable(installment);
  return moveTo(installment, 'cancelled');
}

/** Cancel-all: every pending installment goes, installment 1 included while the link is unpaid. */
export function cancelWithSubscription(installment: Installment): Installment {
  return moveTo(installment, 'cancelled');
}

export type ChangedField = 'amount' | 'paymentDate';

export interface InstallmentChange {
  amount?: string;
  paymentDate?: IsoDate;
}

export function changeInstallment(installment: Installment, change: InstallmentChange): Installment {
  assertMerchantModifiable(installment);
  return {
    ...installment,
    amount: change.amount ?? installment.amount,
    paymentDate: change.paymentDate ?? installment.paymentDate,
  };
}

/** The fields that differ between two versions of one installment, for `installment.updated`. */
export function changedFields(before: Installment, after: Installment): ChangedField[] {
  const fields: ChangedField[] = [];
  if (before.amount !== after.amount) fields.push('amount');
  if (before.paymentDate !== after.paymentDate) fields.push('paymentDate');
  return fields;
}

/** Automatic debit: a charge of it was requested. */
export function startCharge(installment: Installment): Installment {
  return moveTo(installment, 'processing');
}

/** The charge was declined: pending again while dunning decides whether and when to try again. */
export function chargeDeclined(installment: Installment): Installment {
  return moveTo(installment, 'pending');
}

/**
 * Its subscription was cancelled while its charge was in flight (a sent charge cannot be recalled, so the
 * cancel left it `processing`), and the charge was declined: `cancelled`, as it would be had the decline
 * come before the cancel (declined back to `pending`, then cancelled with the subscription), so the order
 * of the two does not change the outcome. Not `failed`: nothing is owed on a cancelled subscription, and no
 * dunning follows. The decline stays on its attempt. (The spec is silent on this case.)
 */
export function cancelAfterDecline(installment: Installment): Installment {
  return cancelWithSubscription(
    installment.status === 'processing' ? chargeDeclined(installment) : installment,
  );
}

/** The customer's new card declined the charge of an installment that had failed: failed again. */
export function failedAgain(installment: Installment): Installment {
  return moveTo(installment, 'failed');
}

/** Dunning gave up on it (hard decline, or the last retry failed). */
export function failAfterDunning(installment: Installment): Installment {
  return moveTo(installment, 'failed');
}

export function markPaid(installment: Installment, paidAt: Date): Installment {
  return { ...moveTo(installment, 'paid'), paidAt };
}

/**
 * A bank transfer the merchant notified pays a pending installment from the 2nd on, for exactly its amount
 * (in minor units: `"150000.0"` and `"150000.00"` are one amount). Installment 1 is the link's: the link is
 * what a transfer pays then.
 */
export function payByTransfer(
  installment: Installment,
  transfer: { amount: string; currency: string | null },
  subscription: { currency: string; status: string },
  paidAt: Date,
): Installment {
  if (installment.number === 1) {
    throw new FirstInstallmentSettledByLink('transfer');
  }
  if (installment.status === 'paid') {
    throw new InstallmentAlreadyPaid(installment.id);
  }
  if (installment.status === 'cancelled') {
    throw new InstallmentCancelled(installment.id);
  }
  if (installment.status !== 'pending' && installment.status !== 'failed') {
    throw new InstallmentNotPending(installment.id, installment.status, 'transfer');
  }
  if (subscription.status !== 'active' && subscription.status !== 'past_due') {
    throw new SubscriptionNotActive(subscription.status, 'transfer');
  }
  if (transfer.currency !== null && transfer.currency !== subscription.currency) {
    throw new CurrencyMismatch(transfer.currency, subscription.currency);
  }
  if (parseAmount(transfer.amount) !== parseAmount(installment.amount)) {
    // A fraction of a guaraní is never due: say so rather than compare.
    const precision = amountCurrencyProblem(transfer.amount, subscription.currency);
    throw new AmountMismatch(
      precision
        ? `amount ${precision}`
        : `The transfer is ${formatAmount(parseAmount(transfer.amount))}; installment ${installment.id} is due ${formatAmount(parseAmount(installment.amount))}`,
    );
  }
  return markPaid(installment, paidAt);
}

/**
 * Dates a merchant sets explicitly must not be in the past of the merchant's own calendar (an
 * installment dated yesterday would be charged at once, which is rarely what a typo meant).
 */
export function assertNotInPast(
  paymentDate: IsoDate,
  today: IsoDate,
  path: ReadonlyArray<string | number>,
): void {
  if (paymentDate < today) {
    throw new PaymentDateInPast(paymentDate, today, path);
  }
}
