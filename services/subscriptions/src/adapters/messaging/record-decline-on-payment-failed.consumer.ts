import { parseEvent } from '@payrail/contracts';
import { batchPrefetch, type Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { recordChargesFailed } from '../../application/record-charge-outcome';
import type { SubscriptionUnitOfWork } from '../../ports/unit-of-work';

export const PAYMENT_FAILED_CONSUMER = 'subscriptions.record-decline-on-payment-failed';
/** Declines come back as fast as a run's charges go out: recorded in batches, one transaction each. */
export const PAYMENT_FAILED_BATCH = 50;

/** An installment's charge was declined: recorded; billing-scheduler's dunning decides what comes next. */
export function recordDeclineOnPaymentFailed(unitOfWork: SubscriptionUnitOfWork, clock: Clock): Subscription {
  return {
    consumer: PAYMENT_FAILED_CONSUMER,
    eventTypes: ['payment.failed'],
    prefetch: batchPrefetch(PAYMENT_FAILED_BATCH),
    handler: unitOfWork.batchHandlerFor(
      PAYMENT_FAILED_CONSUMER,
      { maxBatch: PAYMENT_FAILED_BATCH },
      async (stores, items) => {
        await recordChargesFailed(
          { stores, clock },
          items.map((item) => ({
            data: parseEvent('payment.failed', item.message.body).data,
            within: item.run,
          })),
        );
      },
    ),
  };
}
