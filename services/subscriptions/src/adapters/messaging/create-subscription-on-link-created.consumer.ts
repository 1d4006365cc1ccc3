import { parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { createSubscriptionFromLink } from '../../application/create-subscription-from-link';
import type { ConsumerUnitOfWork } from '../../ports/unit-of-work';

export const CREATE_CONSUMER = 'subscriptions.create-subscription-on-link-created';

/**
 * A recurrent link creates a pending subscription with its schedule; one-off links are acknowledged and
 * ignored. The unit of work makes a redelivered event a no-op; the unique link id is a second guard.
 */
export function createSubscriptionOnLinkCreated(unitOfWork: ConsumerUnitOfWork, clock: Clock): Subscription {
  return {
    consumer: CREATE_CONSUMER,
    eventTypes: ['link.created'],
    handler: unitOfWork.handlerFor(CREATE_CONSUMER, async ({ store }, message) => {
      const { data } = parseEvent('link.created', message.body);
      await createSubscriptionFromLink({ store, clock }, data);
    }),
  };
}
