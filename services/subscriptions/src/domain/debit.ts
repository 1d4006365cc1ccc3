import { CARD_ATTEMPT_CAP, type DeclineCategory, type EventData } from '@payrail/contracts';
import { type IsoDate, localDate, startOfLocalDay } from '@payrail/time';
import type { Installment } from './installment';
import { isCollecting, type Subscription } from './subscription';

/**
 * Automatic debit: whether an installment billing-scheduler says is due is still to be charged, decided
 * on the installment and its subscription as they are now (both locked by the caller).
 */

export type SkipReason = EventData<'installment.charge-skipped'>['reason'];

/**
 * When an attempt is made, for the card's 24-hour window and the attempt's `requestedAt`: the later of the
 * clock's now and the start of the run's as-of day in the subscription's time zone. In production a run is
 * never as of a day after today, so this is now; with SIMULATED_TIME a run as of a future day is how months
 * pass, and the attempts of different simulated months are then months apart, not all within one real day.
 */
export function attemptTime(now: Date, asOf: IsoDate, timezone: string): Date {
  const dayStarts = startOfLocalDay(asOf, timezone);
  return dayStarts > now ? dayStarts : now;
}

export interface ChargeDueFacts {
  subscription: Subscription;
  installment: Installment;
  /** The attempt billing-scheduler asks for. */
  attempt: number;
  /** The run's day (merchant's time zone): the installment must be due on or before it. */
  asOf: IsoDate;
  /** Attempt `attempt` of this installment was already requested (a repeated `charge-due`). */
  attemptAlreadyRequested: boolean;
  /** The attempts made on the subscription's card in the 24 hours before `now`, oldest first. */
  cardAttemptsInWindow: Date[];
  /** The attempt's time (`attemptTime`). */
  now: Date;
}

export type ChargeDecision =
  | { kind: 'charge'; paymentMethodId: string; amount: string }
  | { kind: 'skip'; reason: SkipReason; retryOn: IsoDate | null };

export function decideCharge(facts: ChargeDueFacts): ChargeDecision {
  const { subscription, installment } = facts;
  if (facts.attemptAlreadyRequested) return skip('attempt-already-requested');
  if (installment.status !== 'pending') return skip('not-pending');
  if (!isCollecting(subscription)) return skip('subscription-not-active');
  // Moved to a later day since the run claimed it: charged on the new day, not now.
  if (installment.paymentDate > facts.asOf) return skip('not-due', installment.paymentDate);
  if (subscription.paymentMethodId === null) return skip('no-payment-method');
  const recent = facts.cardAttemptsInWindow;
  if (recent.length >= CARD_ATTEMPT_CAP.attempts) {
    // The window frees a slot when the oldest attempt in it turns 24 hours old.
    const oldest = recent[recent.length - CARD_ATTEMPT_CAP.attempts] as Date;
    const freed = new Date(oldest.getTime() + CARD_ATTEMPT_CAP.windowMs);
    return skip('card-attempt-cap', localDate(freed, subscription.timezone));
  }
  return { kind: 'charge', paymentMethodId: subscription.paymentMethodId, amount: installment.amount };
}

function skip(reason: SkipReason, retryOn: IsoDate | null = null): ChargeDecision {
  return { kind: 'skip', reason, retryOn };
}

export type AttemptStatus = 'requested' | 'succeeded' | 'failed';

/** One charge attempt of an installment, as the audit keeps it. */
export interface ChargeAttempt {
  installmentId: number;
  subscriptionId: number;
  merchantId: string;
  attempt: number;
  idempotencyKey: string;
  runId: string | null;
  paymentMethodId: string;
  processor: string | null;
  /** Two-decimal string: the amount charged, as the installment was when the charge was requested. */
  amount: string;
  currency: string;
  status: AttemptStatus;
  requestedAt: Date;
  settledAt: Date | null;
  chargeId: string | null;
  declineCode: string | null;
  category: DeclineCategory | null;
  /** The retry billing-scheduler scheduled after this attempt failed. */
  nextAttemptOn: IsoDate | null;
  /**
   * Where a decline of this attempt leaves the installment: `pending` (dunning decides; billing-scheduler's
   * attempts, null) or `failed` (the customer's new card charged for an installment that had failed).
   */
  declinedTo?: 'pending' | 'failed' | null;
}

/** The outcome processor-gateway reported for an attempt. */
export interface AttemptOutcome {
  status: 'succeeded' | 'failed';
  chargeId: string;
  processor: string;
  settledAt: Date;
  declineCode: string | null;
  category: DeclineCategory | null;
}
