import { parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { recordScheduledRetry } from '../../application/dunning';
import type { SubscriptionUnitOfWork } from '../../ports/unit-of-work';

export const RETRY_SCHEDULED_CONSUMER = 'subscriptions.record-retry-on-retry-scheduled';

/** billing-scheduler's dunning scheduled the next attempt: kept for the audit and the v2 list. */
export function recordRetryOnRetryScheduled(unitOfWork: SubscriptionUnitOfWork, clock: Clock): Subscription {
  return {
    consumer: RETRY_SCHEDULED_CONSUMER,
    eventTypes: ['installment.retry-scheduled'],
    handler: unitOfWork.handlerFor(RETRY_SCHEDULED_CONSUMER, async (stores, message) => {
      const { data } = parseEvent('installment.retry-scheduled', message.body);
      await recordScheduledRetry({ stores, clock }, data);
    }),
  };
}
