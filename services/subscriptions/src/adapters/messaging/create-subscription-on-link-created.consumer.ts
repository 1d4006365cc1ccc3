import { parseEvent } from '@payrail/contracts';
import type { Database } from '@payrail/db';
import { idempotentConsumer, type InboxTable, type Subscription } from '@payrail/messaging';
import { createSubscriptionFromLink } from '../../application/create-subscription-from-link';
import type { Clock } from '@payrail/time';
import { postgresSubscriptionStore } from '../postgres/subscription-store';

export const CREATE_CONSUMER = 'subscriptions.create-subscription-on-link-created';

/**
 * A recurrent link creates a pending subscription with its schedule; one-off links are acknowledged and
 * ignored. The inbox makes a redelivered event a no-op; the unique link id is a second guard.
 */
export function createSubscriptionOnLinkCreated(db: Database, inbox: InboxTable, clock: Clock): Subscription {
  return {
    consumer: CREATE_CONSUMER,
    eventTypes: ['link.created'],
    handler: idempotentConsumer({
      db,
      inbox,
      consumer: CREATE_CONSUMER,
      async handle(tx, message) {
        const { data } = parseEvent('link.created', message.body);
        await createSubscriptionFromLink({ store: postgresSubscriptionStore(tx), clock }, data);
      },
    }),
  };
}
