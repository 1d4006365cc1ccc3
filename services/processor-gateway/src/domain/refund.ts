import { PROCESSOR_TIME_ZONE, type REFUND_METHODS, type REFUND_MODES } from '@payrail/contracts';
import { decimalsOf, formatAmount, type Minor } from '@payrail/money';
import { localDate, sameLocalDay } from '@payrail/time';
import type { ProcessorId } from './charge';
import {
  PartialCardRefundNotPossible,
  PaymentFullyRefunded,
  PaymentNotRefundable,
  ProcessorRefundNotPossible,
  RefundAmountExceedsRefundable,
  RefundAmountInvalid,
} from './errors';

/**
 * A refund gives money back from one money movement (issue 27): through the processor that took it
 * (`rollback`: PROCESSOR_A, the payment's Asunción day only; `reversal`: PROCESSOR_B, at once the same day,
 * scheduled after) or outside the service, recorded (`outside`: the merchant gave it back by bank transfer or
 * cash). A refund is a movement of its own: its `id` (a UUIDv7) is the `txId` of its webhooks.
 */

export type RefundMode = (typeof REFUND_MODES)[number];
export type RefundMethod = (typeof REFUND_METHODS)[number];

/**
 * `pending`: written, the processor not answered yet (committed before the call); `unknown`: the call's
 * answer was lost, only a status query may settle it; `scheduled`: PROCESSOR_B will reverse it later;
 * `succeeded`, `failed`: settled, never changed again.
 */
export type RefundStatus = 'pending' | 'unknown' | 'scheduled' | 'succeeded' | 'failed';

export interface Refund {
  id: string;
  merchantId: string;
  /** The movement refunded: a charge's id, or a bank transfer's `tx_id`. */
  paymentId: string;
  idempotencyKey: string;
  /** SHA-256 of the request: the same key with another request is refused. */
  fingerprint: string;
  mode: RefundMode;
  method: RefundMethod;
  processor: ProcessorId | null;
  /** Decimal string, two places. */
  amount: string;
  currency: string;
  /** An outside refund's reference (the merchant's transfer or receipt). */
  reference: string | null;
  reason: string | null;
  status: RefundStatus;
  failureCode: string | null;
  failureMessage: string | null;
  /** Requests sent to the processor, each counted (committed) before it leaves. */
  processorCalls: number;
  statusChecks: number;
  lastError: string | null;
  /** What the payment paid, copied from it for the events: a link, or an installment. */
  linkId: number | null;
  installmentId: number | null;
  subscriptionId: number | null;
  createdAt: Date;
  updatedAt: Date;
  /** When the janitor may look at it next (pending, unknown and scheduled refunds). */
  nextCheckAt: Date;
  scheduledAt: Date | null;
  settledAt: Date | null;
}

/** The movement a refund gives money back from: a card charge, or a bank transfer the merchant notified. */
export interface RefundablePayment {
  id: string;
  merchantId: string;
  method: 'CARD' | 'BANK_TRANSFER';
  /** `succeeded`: money was taken; `declined`: an attempt that took nothing; `undecided`: not settled yet. */
  status: 'succeeded' | 'declined' | 'undecided';
  processor: ProcessorId | null;
  amount: string;
  currency: string;
  /** When the money was taken (the charge settled, the transfer registered). */
  paidAt: Date | null;
  /** Ours at the processor (a charge's `reference`) and the processor's own (A's process id, B's hash). */
  reference: string | null;
  processorReference: string | null;
  linkId: number | null;
  installmentId: number | null;
  subscriptionId: number | null;
}

/** What the refunds of one payment add up to: those not failed (what is taken from what is left) and those succeeded. */
export interface RefundTotals {
  committed: Minor;
  succeeded: Minor;
}

export interface RefundAsked {
  /** As the request wrote it (a decimal text): checked against the payment's currency here. */
  amount: string | null;
  method: RefundMethod;
  reference: string | null;
  reason: string | null;
}

export function isRefundSettled(status: RefundStatus): boolean {
  return status === 'succeeded' || status === 'failed';
}

/** What the API shows: an outcome the service does not know yet is still `pending` to the merchant. */
export function publicRefundStatus(status: RefundStatus): 'pending' | 'scheduled' | 'succeeded' | 'failed' {
  return status === 'unknown' ? 'pending' : status;
}

/** Whole digits beyond `numeric(18, 2)`: no payment is that large. */
const MAX_WHOLE_DIGITS = 16;

/**
 * The amount asked, in minor units, or the refusal: zero and negative amounts, and more decimals than the
 * currency has (a fraction of a guaraní; trailing zeros do not count: `150000.00` is a PYG amount).
 */
export function refundAmountOf(text: string, currency: string): Minor {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new RefundAmountInvalid('must be a decimal number');
  const [, sign, whole = '0', rawFraction = ''] = match;
  const fraction = rawFraction.replace(/0+$/, '');
  const decimals = decimalsOf(currency);
  if (fraction.length > decimals) {
    throw new RefundAmountInvalid(
      decimals === 0
        ? `must be a whole number: ${currency} has no decimals`
        : `must have at most ${decimals} decimals in ${currency}`,
    );
  }
  const digits = whole.replace(/^0+(?=\d)/, '');
  if (digits.length > MAX_WHOLE_DIGITS) throw new RefundAmountInvalid('is too large');
  const minor = BigInt(digits) * 100n + BigInt(fraction.padEnd(2, '0'));
  if (sign === '-' || minor === 0n) throw new RefundAmountInvalid('must be greater than 0');
  return minor;
}

export interface RefundPlan {
  mode: RefundMode;
  amount: Minor;
}

/**
 * How a refund asked of a payment is made, or why it is refused (issue 27's rules, in the order a merchant
 * can act on them): only a payment that took money; a valid amount; something left; no more than is left;
 * then an outside refund is recorded, and a card refund goes through the processor whole: PROCESSOR_A on the
 * payment's Asunción day only (`rollback`), PROCESSOR_B any day (`reversal`: its processor decides at once or
 * later). `totals` are the payment's refunds as they stand under its row lock.
 */
export function planRefund(
  payment: RefundablePayment,
  asked: RefundAsked,
  totals: RefundTotals,
  now: Date,
): RefundPlan {
  if (payment.status !== 'succeeded') throw new PaymentNotRefundable(payment.id, payment.status);
  const asAmount = asked.amount === null ? null : refundAmountOf(asked.amount, payment.currency);
  const paid = toMinor(payment.amount);
  const left = paid - totals.committed;
  if (left <= 0n) throw new PaymentFullyRefunded(payment.id, payment.amount, formatAmount(totals.committed));
  if (asAmount !== null && asAmount > left) {
    throw new RefundAmountExceedsRefundable(formatAmount(asAmount), formatAmount(left));
  }
  if (asked.method !== 'CARD') {
    // The schema requires the amount of an outside refund.
    return { mode: 'outside', amount: asAmount ?? left };
  }
  if (payment.method !== 'CARD' || !payment.processor) throw new ProcessorRefundNotPossible('bank-transfer');
  const amount = asAmount ?? left;
  if (amount !== paid) throw new PartialCardRefundNotPossible(payment.amount, formatAmount(amount));
  if (payment.processor === 'PARAGUAY.PROCESSOR_A') {
    const paidAt = payment.paidAt ?? now;
    if (!sameLocalDay(paidAt, now, PROCESSOR_TIME_ZONE)) {
      throw new ProcessorRefundNotPossible({
        processor: payment.processor,
        paidOn: localDate(paidAt, PROCESSOR_TIME_ZONE),
      });
    }
    return { mode: 'rollback', amount };
  }
  return { mode: 'reversal', amount };
}

/** A two-decimal string (a `numeric(18, 2)` read back) in minor units. */
export function toMinor(amount: string): Minor {
  const match = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(amount);
  if (!match) throw new Error(`not a stored amount: ${amount}`);
  const minor = BigInt(match[2]!) * 100n + BigInt((match[3] ?? '').padEnd(2, '0'));
  return match[1] === '-' ? -minor : minor;
}

/** What the processor's answer to a reversal means for a refund not settled yet. */
export type RefundOutcome =
  | { status: 'succeeded' }
  | { status: 'scheduled' }
  | { status: 'failed'; code: string; message: string | null }
  | { status: 'unknown'; reason: string };

/** Code of a refund the processor could not be reached for: nothing was given back. */
export const PROCESSOR_UNAVAILABLE = 'PROCESSOR_UNAVAILABLE';

/**
 * The refund once `outcome` is applied to it (nothing written): settled outcomes settle it; `scheduled`
 * waits for the status query (asked after `recheckAfterMs`); `unknown` keeps it for the janitor (after
 * `unknownCheckAfterMs`), never failed, for the money may have gone back. A scheduled refund stays
 * scheduled while its outcome is unknown.
 */
export function refundAfter(
  refund: Refund,
  outcome: RefundOutcome,
  now: Date,
  timings: { unknownCheckAfterMs: number; recheckAfterMs: number },
): Refund {
  const next: Refund = { ...refund, updatedAt: now };
  switch (outcome.status) {
    case 'succeeded':
      return { ...next, status: 'succeeded', settledAt: now, lastError: null };
    case 'failed':
      return {
        ...next,
        status: 'failed',
        failureCode: outcome.code,
        failureMessage: outcome.message,
        settledAt: now,
      };
    case 'scheduled':
      return {
        ...next,
        status: 'scheduled',
        scheduledAt: refund.scheduledAt ?? now,
        nextCheckAt: new Date(now.getTime() + timings.recheckAfterMs),
      };
    case 'unknown':
      if (refund.status === 'scheduled') {
        return {
          ...next,
          lastError: outcome.reason,
          nextCheckAt: new Date(now.getTime() + timings.recheckAfterMs),
        };
      }
      return {
        ...next,
        status: 'unknown',
        lastError: outcome.reason,
        nextCheckAt: new Date(now.getTime() + timings.unknownCheckAfterMs),
      };
  }
}
