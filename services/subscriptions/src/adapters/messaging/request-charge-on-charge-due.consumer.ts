import { parseEvent } from '@payrail/contracts';
import { batchPrefetch, type Subscription } from '@payrail/messaging';
import type { Logger } from '@payrail/observability';
import type { Clock } from '@payrail/time';
import { requestInstallmentCharges } from '../../application/request-installment-charge';
import type { SubscriptionUnitOfWork } from '../../ports/unit-of-work';

export const CHARGE_DUE_CONSUMER = 'subscriptions.request-charge-on-charge-due';
/** A run's charge-dues arrive by the hundred: decided in batches, a few statements per batch. */
export const CHARGE_DUE_BATCH = 50;

/** billing-scheduler says an installment is due: charge it if it still is chargeable, else say why not. */
export function requestChargeOnChargeDue(
  unitOfWork: SubscriptionUnitOfWork,
  clock: Clock,
  logger: Logger,
): Subscription {
  return {
    consumer: CHARGE_DUE_CONSUMER,
    eventTypes: ['installment.charge-due'],
    prefetch: batchPrefetch(CHARGE_DUE_BATCH),
    handler: unitOfWork.batchHandlerFor(
      CHARGE_DUE_CONSUMER,
      { maxBatch: CHARGE_DUE_BATCH },
      async (stores, items) => {
        const dues = items.map((item) => ({
          due: parseEvent('installment.charge-due', item.message.body).data,
          within: item.run,
        }));
        const decisions = await requestInstallmentCharges({ stores, clock }, dues);
        decisions.forEach((decision, index) => {
          const { due, within } = dues[index] as (typeof dues)[number];
          if (decision.kind === 'skip') {
            within(() =>
              logger.info(
                { installmentId: due.installmentId, attempt: due.attempt, reason: decision.reason },
                'charge skipped',
              ),
            );
          }
        });
      },
    ),
  };
}
