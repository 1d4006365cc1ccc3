import { CARD_LOCK } from '@payrail/contracts';
import { blockAfterDecline, countsTowardsCardLock } from '../domain/card-lock';
import { type Charge, isSettled, type SentAs, type Settlement } from '../domain/charge';
import type { CardProcessors } from '../ports/card-processor';
import type { Clock } from '@payrail/time';
import type { GatewayStores, InTransaction } from '../ports/unit-of-work';
import { chargeSettled } from './events';

export interface ChargeTimings {
  /** A hosted payment is first asked about after this long (a stored-card charge: after `callDeadlineMs`). */
  staleAfterMs: number;
  /** First status query after a lost reply. */
  unknownCheckAfterMs: number;
  /** Between status queries of a charge the processor still calls pending, or could not be asked. */
  recheckAfterMs: number;
  /** An unpaid hosted payment is abandoned after this long. */
  hostedPaymentTtlMs: number;
  /**
   * How long after a send starts (its row written, `updatedAt`) the request that moves money may still
   * leave: the steps before it (our database, A's card listing, B's order) may take this long. Past it the
   * adapter sends nothing (`ChargeStoredCardInput.sendBy`).
   */
  sendWindowMs: number;
  /**
   * The longest a charge request may still be on its way or in work at the processor, counted from the
   * start of its send: the send window, then the request's own deadline, plus a margin. A `pending`
   * stored-card row is not asked about before it, and a charge is only sent again (under the same reference)
   * once this long has passed since it was last sent.
   */
  callDeadlineMs: number;
  /**
   * "The processor does not know this charge" is believed only this long after the charge was sent: a
   * request that is slow to arrive or still in work must not be declared never made, or a retry under a
   * new key could charge twice. (PROCESSOR_A's own advice is to ask after about 10 minutes.)
   */
  notFoundFinalAfterMs: number;
}

export const DEFAULT_TIMINGS: ChargeTimings = {
  staleAfterMs: 2 * 60 * 1000,
  unknownCheckAfterMs: 15 * 1000,
  recheckAfterMs: 60 * 1000,
  hostedPaymentTtlMs: 2 * 60 * 60 * 1000,
  sendWindowMs: 10 * 1000,
  callDeadlineMs: 35 * 1000,
  notFoundFinalAfterMs: 10 * 60 * 1000,
};

export interface ChargeDeps {
  /** The stores on the database, outside a transaction. */
  stores: GatewayStores;
  /** Work whose writes commit together (its stores bound to the transaction). */
  transaction: InTransaction;
  processors: CardProcessors;
  clock: Clock;
  timings: ChargeTimings;
}

/**
 * The charge row once `settlement` is applied to an unsettled one (nothing written): `applySettlement`'s
 * rule, also used by the batches of stored-card charges for the common case, an approval.
 */
export function chargeAfter(
  locked: Charge,
  settlement: Settlement,
  now: Date,
  timings: ChargeTimings,
): Charge {
  let next: Charge;
  switch (settlement.status) {
    case 'succeeded':
      next = {
        ...locked,
        status: 'succeeded',
        authorizationCode: settlement.authorizationCode,
        processorReference: settlement.processorReference ?? locked.processorReference,
        settledAt: now,
      };
      break;
    case 'failed':
      next = {
        ...locked,
        status: 'failed',
        declineCode: settlement.declineCode,
        declineCategory: settlement.category,
        retryable: settlement.retryable,
        processorReference: settlement.processorReference ?? locked.processorReference,
        settledAt: now,
      };
      break;
    case 'pending':
      next = {
        ...locked,
        processorReference: settlement.processorReference ?? locked.processorReference,
        nextCheckAt: new Date(now.getTime() + timings.recheckAfterMs),
      };
      break;
    case 'unknown':
      // Never `failed`: the processor may have taken the money. Only a status query may settle it.
      next = {
        ...locked,
        status: 'unknown',
        lastError: settlement.reason,
        processorReference: settlement.processorReference ?? locked.processorReference,
        nextCheckAt: new Date(now.getTime() + timings.unknownCheckAfterMs),
      };
      break;
  }
  next.updatedAt = now;
  return next;
}

/**
 * Applies what we learnt about an unsettled charge, inside the caller's transaction with the charge row
 * locked. A settled charge never changes again: whoever settles first (the charging call, the webhook or the
 * janitor) wins, and only the winner announces it.
 */
export async function applySettlement(
  stores: GatewayStores,
  locked: Charge,
  settlement: Settlement,
  now: Date,
  timings: ChargeTimings,
): Promise<Charge> {
  if (isSettled(locked.status)) return locked;
  if (settlement.status === 'failed' && settlement.sentAs && !untouchedSince(locked, settlement.sentAs))
    return locked;
  const next = chargeAfter(locked, settlement, now, timings);
  await stores.charges.saveCharge(next);
  if (isSettled(next.status)) {
    const blockedUntil = next.status === 'failed' ? await applyCardLock(stores, next, now) : null;
    const card =
      next.status === 'succeeded' && next.paymentMethodId !== null
        ? await stores.paymentMethods.findPaymentMethod(next.merchantId, next.paymentMethodId)
        : undefined;
    await stores.outbox.publish(chargeSettled(next, now, blockedUntil, card ?? null));
  }
  return next;
}

/**
 * Whether nothing but the send that `sentAs` describes has looked at the row: no re-send, no status query.
 * A failure a send answered (a decline, an outage, a card listing that failed) says what happened to that
 * one request; once the janitor has sent the charge again or asked about it, the row is the janitor's, and
 * the processor's status answer, not a late failure of an older request, settles it (the re-send may have
 * been charged with its reply lost).
 */
function untouchedSince(locked: Charge, sentAs: SentAs): boolean {
  return locked.processorCalls === sentAs.processorCalls && locked.statusChecks === sentAs.statusChecks;
}

/**
 * After a decline: the 7th in 24 h blocks the card for 30 days; the processor's own block is taken as is.
 * Returns when the block ends for a `card-blocked` decline (for `payment.failed.blockedUntil`), else null.
 */
async function applyCardLock(stores: GatewayStores, charge: Charge, now: Date): Promise<Date | null> {
  if (!charge.paymentMethodId) return null;
  const category = charge.declineCategory;
  if (category !== 'card-blocked' && !countsTowardsCardLock(category)) return null;
  const method = await stores.paymentMethods.lockPaymentMethod(charge.paymentMethodId);
  if (!method) return null;
  if (category === 'card-blocked') {
    // A block our own counter answered needs no extension; one the processor announced starts now.
    if (method.blockedUntil && method.blockedUntil > now) return method.blockedUntil;
    const until = new Date(now.getTime() + CARD_LOCK.blockMs);
    await stores.paymentMethods.savePaymentMethod({ ...method, blockedUntil: until });
    return until;
  }
  const declines = await stores.charges.countCardDeclines(
    method.id,
    new Date(now.getTime() - CARD_LOCK.windowMs),
  );
  const until = blockAfterDecline(declines, now);
  if (until) await stores.paymentMethods.savePaymentMethod({ ...method, blockedUntil: until });
  return null;
}
