import type { Logger } from '@payrail/observability';
import type { Clock } from '@payrail/time';
import {
  isRefundSettled,
  PROCESSOR_UNAVAILABLE,
  type Refund,
  type RefundablePayment,
  type RefundOutcome,
  type RefundTotals,
  refundAfter,
} from '../domain/refund';
import type { CardProcessors, ReversalResult } from '../ports/card-processor';
import type { GatewayStores, InTransaction } from '../ports/unit-of-work';
import { refundEvent } from './refund-events';
import type { ChargeTimings } from './settle-charge';

/** What a refund's use cases need: the charges' (`ChargeDeps` is one). */
export interface RefundDeps {
  /** The stores on the database, outside a transaction. */
  stores: GatewayStores;
  /** Work whose writes commit together (its stores bound to the transaction). */
  transaction: InTransaction;
  processors: CardProcessors;
  clock: Clock;
  timings: Pick<ChargeTimings, 'callDeadlineMs' | 'unknownCheckAfterMs' | 'recheckAfterMs'>;
  logger?: Logger;
}

/** A refund with the payment it refunds and what the payment's refunds add up to, as the API shows it. */
export interface RefundState {
  refund: Refund;
  payment: RefundablePayment;
  totals: RefundTotals;
}

/** What a processor's answer to a reversal means for the refund. */
export function outcomeOfReversal(result: ReversalResult): RefundOutcome {
  switch (result.kind) {
    case 'reversed':
      return { status: 'succeeded' };
    case 'scheduled':
      return { status: 'scheduled' };
    case 'refused':
      return { status: 'failed', code: result.code, message: result.message ?? null };
    case 'unavailable':
      return {
        status: 'failed',
        code: PROCESSOR_UNAVAILABLE,
        message: `The processor could not be reached (${result.reason}); nothing was given back`,
      };
    case 'unknown':
      return { status: 'unknown', reason: result.reason };
  }
}

/** Asks the processor to give the payment back; an adapter that throws has not told us what happened. */
export async function sendReversal(
  deps: Pick<RefundDeps, 'processors' | 'logger'>,
  refund: Refund,
  payment: RefundablePayment,
): Promise<ReversalResult> {
  if (!refund.processor || !payment.reference) {
    throw new Error(`refund ${refund.id} has no processor reference to reverse`);
  }
  try {
    const result = await deps.processors(refund.processor).reverse({
      reference: payment.reference,
      processorReference: payment.processorReference ?? undefined,
    });
    if (result.kind === 'unknown')
      deps.logger?.warn({ refundId: refund.id, reason: result.reason }, 'refund outcome unknown');
    return result;
  } catch (error) {
    deps.logger?.error({ err: error, refundId: refund.id }, 'reversal call failed in our code');
    return { kind: 'unknown', reason: `adapter error: ${(error as Error).message}` };
  }
}

/**
 * Applies what the processor said of a refund not settled, in one transaction: the payment's row locked
 * first (as every writer of its refunds does), then the refund's. A settled refund never changes again:
 * whoever settles it first (the call, the janitor) wins, and only the winner writes its event
 * (`refund.succeeded` / `refund.failed`, or `refund.scheduled` once, when PROCESSOR_B schedules it).
 */
export async function applyRefundOutcome(
  deps: Pick<RefundDeps, 'transaction' | 'clock' | 'timings'>,
  refund: Pick<Refund, 'id' | 'merchantId' | 'paymentId'>,
  outcome: RefundOutcome,
  counted: { statusCheck?: boolean } = {},
): Promise<RefundState> {
  return deps.transaction(async (stores) => {
    const payment = await stores.refunds.lockPayment(refund.merchantId, refund.paymentId);
    const locked = await stores.refunds.lockRefund(refund.id);
    if (!payment || !locked) throw new Error(`refund ${refund.id} or its payment is gone`);
    if (isRefundSettled(locked.status)) {
      return { refund: locked, payment, totals: await stores.refunds.totalsOf(payment.id) };
    }
    const now = deps.clock.now();
    const before = counted.statusCheck ? { ...locked, statusChecks: locked.statusChecks + 1 } : locked;
    const next = refundAfter(before, outcome, now, deps.timings);
    await stores.refunds.saveRefund(next);
    const totals = await stores.refunds.totalsOf(payment.id);
    const announced = next.status !== locked.status && next.status !== 'unknown';
    if (announced) {
      const event = refundEvent(next, totals.succeeded, now);
      if (event) await stores.outbox.publish([event]);
    }
    return { refund: next, payment, totals };
  });
}
