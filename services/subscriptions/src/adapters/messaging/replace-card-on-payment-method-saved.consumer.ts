import { parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { adoptReplacementCard } from '../../application/replace-payment-method';
import type { SubscriptionUnitOfWork } from '../../ports/unit-of-work';

export const CARD_SAVED_CONSUMER = 'subscriptions.replace-card-on-payment-method-saved';

/** The customer saved a card: it replaces a removed one on their subscriptions left without a card. */
export function replaceCardOnPaymentMethodSaved(
  unitOfWork: SubscriptionUnitOfWork,
  clock: Clock,
): Subscription {
  return {
    consumer: CARD_SAVED_CONSUMER,
    eventTypes: ['payment-method.saved'],
    handler: unitOfWork.handlerFor(CARD_SAVED_CONSUMER, async (stores, message) => {
      const { data } = parseEvent('payment-method.saved', message.body);
      await adoptReplacementCard({ stores, clock }, data);
    }),
  };
}
