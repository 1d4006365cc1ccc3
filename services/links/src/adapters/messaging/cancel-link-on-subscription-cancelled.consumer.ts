import { parseEvent } from '@payrail/contracts';
import type { Database } from '@payrail/db';
import { idempotentConsumer, type InboxTable, type Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { cancelLinkOfCancelledSubscription } from '../../application/cancel-link-of-cancelled-subscription';
import { postgresLinkManagementRepository } from '../postgres/link-management-repository';

export const CANCEL_LINK_CONSUMER = 'links.cancel-link-on-subscription-cancelled';

/**
 * `subscription.cancelled` (cancel-all): the link of a subscription never activated is cancelled with it.
 * The inbox row, the link's update and its `link.cancelled` commit together; a redelivery does nothing.
 */
export function cancelLinkOnSubscriptionCancelled(
  db: Database,
  inbox: InboxTable,
  clock: Clock,
): Subscription {
  return {
    consumer: CANCEL_LINK_CONSUMER,
    eventTypes: ['subscription.cancelled'],
    handler: idempotentConsumer({
      db,
      inbox,
      consumer: CANCEL_LINK_CONSUMER,
      handle: async (tx, message) => {
        const { data } = parseEvent('subscription.cancelled', message.body);
        await cancelLinkOfCancelledSubscription(
          { management: postgresLinkManagementRepository(tx), clock },
          data,
        );
      },
    }),
  };
}
