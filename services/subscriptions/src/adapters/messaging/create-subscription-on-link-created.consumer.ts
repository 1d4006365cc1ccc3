import { parseEvent, RECURRENT_LINK_CREATED } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { createSubscriptionFromLink } from '../../application/create-subscription-from-link';
import type { SubscriptionUnitOfWork } from '../../ports/unit-of-work';

export const CREATE_CONSUMER = 'subscriptions.create-subscription-on-link-created';

/**
 * A recurrent link creates a pending subscription with its schedule. Only recurrent links' `link.created`
 * reach this queue (routing key `link.created.recurrent`); a one-off one (a queue bound before that, or
 * the in-process bus of a test publishing the bare type) is acknowledged and ignored. The unit of work makes a redelivered event a no-op; the unique link id is a second guard.
 */
export function createSubscriptionOnLinkCreated(
  unitOfWork: SubscriptionUnitOfWork,
  clock: Clock,
): Subscription {
  return {
    consumer: CREATE_CONSUMER,
    eventTypes: [RECURRENT_LINK_CREATED],
    handler: unitOfWork.handlerFor(CREATE_CONSUMER, async (stores, message) => {
      const { data } = parseEvent('link.created', message.body);
      await createSubscriptionFromLink({ stores, clock }, data);
    }),
  };
}
