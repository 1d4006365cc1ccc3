import { parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { adoptReplacementCard, forgetRemovedCard } from '../../application/replace-payment-method';
import type { SubscriptionUnitOfWork } from '../../ports/unit-of-work';

export const CARD_REMOVED_CONSUMER = 'subscriptions.forget-card-on-payment-method-removed';
export const CARD_SAVED_CONSUMER = 'subscriptions.replace-card-on-payment-method-saved';

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
