import { parseEvent } from '@payrail/contracts';
import { batchPrefetch, type Subscription } from '@payrail/messaging';
import type { Logger } from '@payrail/observability';
import type { Clock } from '@payrail/time';
import { recordChargesSucceeded } from '../../application/record-charge-outcome';
import type { SubscriptionUnitOfWork } from '../../ports/unit-of-work';

export const PAYMENT_SUCCEEDED_CONSUMER = 'subscriptions.pay-installment-on-payment-succeeded';
/** Approvals come back as fast as a run's charges go out: recorded in batches, one transaction each. */
export const PAYMENT_SUCCEEDED_BATCH = 50;

/** An installment's charge went through: the installment is paid. Link charges are the links service's. */
export function payInstallmentOnPaymentSucceeded(
  unitOfWork: SubscriptionUnitOfWork,
  clock: Clock,
  logger: Logger,
): Subscription {
  return {
    consumer: PAYMENT_SUCCEEDED_CONSUMER,
    eventTypes: ['payment.succeeded'],
    prefetch: batchPrefetch(PAYMENT_SUCCEEDED_BATCH),
    handler: unitOfWork.batchHandlerFor(
      PAYMENT_SUCCEEDED_CONSUMER,
      { maxBatch: PAYMENT_SUCCEEDED_BATCH },
      async (stores, items) => {
        const payments = items.map((item) => ({
          data: parseEvent('payment.succeeded', item.message.body).data,
          within: item.run,
        }));
        const results = await recordChargesSucceeded({ stores, clock }, payments);
        results.forEach((result, index) => {
          const { data, within } = payments[index] as (typeof payments)[number];
          if (result.kind === 'paid-twice') {
            // The money came for an installment settled otherwise meanwhile: the merchant has it to give back.
            within(() =>
              logger.warn(
                {
                  installmentId: data.installmentId,
                  chargeId: data.chargeId,
                  status: result.installmentStatus,
                },
                'installment charged after it was settled otherwise',
              ),
            );
          }
        });
      },
    ),
  };
}
