import { type Currency, createEvent, type EventEnvelope } from '@payrail/contracts';
import { formatAmount, type Minor } from '@payrail/money';
import type { Refund } from '../domain/refund';

/** What every `refund.*` event says of the refund: the refund, the payment's refunds, what it paid. */
function snapshotOf(refund: Refund, refundedTotal: Minor) {
  return {
    refundId: refund.id,
    paymentId: refund.paymentId,
    merchantId: refund.merchantId,
    amount: refund.amount,
    currency: refund.currency as Currency,
    refundedTotal: formatAmount(refundedTotal),
    mode: refund.mode,
    method: refund.method,
    processor: refund.processor,
    reference: refund.reference,
    reason: refund.reason,
    linkId: refund.linkId,
    subscriptionId: refund.subscriptionId,
    installmentId: refund.installmentId,
    requestedAt: refund.createdAt.toISOString(),
  };
}

/**
 * The event a refund's change announces, written in the transaction that makes the change: `refund.scheduled`
 * (PROCESSOR_B will reverse it later), `refund.succeeded`, `refund.failed`. `refundedTotal`: the payment's
 * refunds that succeeded, this one included once it has.
 */
export function refundEvent(refund: Refund, refundedTotal: Minor, now: Date): EventEnvelope | undefined {
  const snapshot = snapshotOf(refund, refundedTotal);
  switch (refund.status) {
    case 'scheduled':
      return createEvent(
        'refund.scheduled',
        { ...snapshot, scheduledAt: (refund.scheduledAt ?? now).toISOString() },
        now,
      );
    case 'succeeded':
      return createEvent(
        'refund.succeeded',
        { ...snapshot, succeededAt: (refund.settledAt ?? now).toISOString() },
        now,
      );
    case 'failed':
      return createEvent(
        'refund.failed',
        {
          ...snapshot,
          failedAt: (refund.settledAt ?? now).toISOString(),
          code: refund.failureCode ?? 'FAILED',
          message: refund.failureMessage,
        },
        now,
      );
    default:
      return undefined;
  }
}
