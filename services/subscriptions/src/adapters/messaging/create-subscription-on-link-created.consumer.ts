import type { Database } from '@payrail/db';
import { parseEvent } from '@payrail/contracts';
import { idempotentConsumer, type InboxTable, type Subscription } from '@payrail/messaging';
import { subscriptions } from '../postgres/schema';

export const CONSUMER = 'subscriptions.create-subscription-on-link-created';

/**
 * A recurrent link creates a pending subscription. One-off links are acknowledged and ignored.
 * The inbox makes a redelivered event a no-op; the unique link id is a second guard.
 */
export function createSubscriptionOnLinkCreated(db: Database, inbox: InboxTable): Subscription {
  return {
    consumer: CONSUMER,
    eventTypes: ['link.created'],
    handler: idempotentConsumer({
      db,
      inbox,
      consumer: CONSUMER,
      async handle(tx, message) {
        const { data } = parseEvent('link.created', message.body);
        if (!data.recurrence) return;
        const terms = data.recurrence;
        await tx
          .insert(subscriptions)
          .values({
            merchantId: data.merchantId,
            linkId: data.linkId,
            type: terms.type,
            status: 'pending',
            customIdentifier: data.customIdentifier,
            customIdentifier2: data.customIdentifier2,
            currency: data.currency,
            firstAmount: data.amount,
            installmentAmount: terms.type === 'STATIC' ? terms.installmentAmount : null,
            totalPeriods: terms.type === 'STATIC' ? terms.totalPeriods : null,
            dayOfMonth: terms.type === 'STATIC' ? terms.dayOfMonth : null,
            monthForSecondInstallment: terms.type === 'STATIC' ? terms.monthForSecondInstallment : null,
            timezone: data.timezone,
            createdOn: data.createdOn,
            createdAt: new Date(data.createdAt),
          })
          .onConflictDoNothing({ target: subscriptions.linkId });
      },
    }),
  };
}
