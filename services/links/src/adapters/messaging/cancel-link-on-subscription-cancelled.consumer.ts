import { parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { cancelLinkOfCancelledSubscription } from '../../application/cancel-link-of-cancelled-subscription';
import type { LinksUnitOfWork } from '../../ports/unit-of-work';

export const CANCEL_LINK_CONSUMER = 'links.cancel-link-on-subscription-cancelled';

/**
 * `subscription.cancelled` (cancel-all): the link of a subscription never activated is cancelled with it.
 * The inbox row, the link's update and its `link.cancelled` commit together; a redelivery does nothing.
 */
export function cancelLinkOnSubscriptionCancelled(unitOfWork: LinksUnitOfWork, clock: Clock): Subscription {
  return {
    consumer: CANCEL_LINK_CONSUMER,
    eventTypes: ['subscription.cancelled'],
    handler: unitOfWork.handlerFor(CANCEL_LINK_CONSUMER, async (stores, message) => {
      const { data } = parseEvent('subscription.cancelled', message.body);
      await cancelLinkOfCancelledSubscription({ management: stores.management, clock }, data);
    }),
  };
}
