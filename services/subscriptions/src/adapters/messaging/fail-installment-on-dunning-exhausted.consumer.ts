import { parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { failInstallmentAfterDunning } from '../../application/dunning';
import type { SubscriptionUnitOfWork } from '../../ports/unit-of-work';

export const DUNNING_EXHAUSTED_CONSUMER = 'subscriptions.fail-installment-on-dunning-exhausted';

/** billing-scheduler's dunning gave up: the installment fails and the subscription is past due. */
export function failInstallmentOnDunningExhausted(
  unitOfWork: SubscriptionUnitOfWork,
  clock: Clock,
): Subscription {
  return {
    consumer: DUNNING_EXHAUSTED_CONSUMER,
    eventTypes: ['installment.dunning-exhausted'],
    handler: unitOfWork.handlerFor(DUNNING_EXHAUSTED_CONSUMER, async (stores, message) => {
      const { data } = parseEvent('installment.dunning-exhausted', message.body);
      await failInstallmentAfterDunning({ stores, clock }, data);
    }),
  };
}
