import { parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { forgetRemovedCard } from '../../application/replace-payment-method';
import type { SubscriptionUnitOfWork } from '../../ports/unit-of-work';

export const CARD_REMOVED_CONSUMER = 'subscriptions.forget-card-on-payment-method-removed';

/** The vault removed a card: subscriptions charged to it have no card (their charges are skipped). */
export function forgetCardOnPaymentMethodRemoved(
  unitOfWork: SubscriptionUnitOfWork,
  clock: Clock,
): Subscription {
  return {
    consumer: CARD_REMOVED_CONSUMER,
    eventTypes: ['payment-method.removed'],
    handler: unitOfWork.handlerFor(CARD_REMOVED_CONSUMER, async (stores, message) => {
      const { data } = parseEvent('payment-method.removed', message.body);
      await forgetRemovedCard({ stores, clock }, data);
    }),
  };
}
