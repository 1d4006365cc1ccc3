import { type EventEnvelope, parseEvent } from '@payrail/contracts';
import type { DeliveredMessage, Subscription } from '@payrail/messaging';
import {
  projectedLinkOf,
  recordWebhookEvents,
  WEBHOOK_SOURCE_EVENTS,
  type WebhookSourceEvent,
} from '../../application/webhooks/record-webhook-events';
import type { WebhookConsumerUnitOfWork } from '../../ports/webhook-store';

export const WEBHOOK_EVENTS_CONSUMER = 'gateway.record-webhook-events';

/**
 * Its own consumer (queue): turning events into the webhook log never waits for a receiver, and the
 * sending is the delivery worker's. The inbox makes a redelivered event a no-op.
 */
export function recordWebhookEventsOnEvents(
  unitOfWork: WebhookConsumerUnitOfWork,
  afterCommit: () => void,
): Subscription {
  /** Envelopes each message appended: only those give the delivery worker something to send. */
  const appendedBy = new WeakMap<DeliveredMessage, number>();
  const handler = unitOfWork.handlerFor(WEBHOOK_EVENTS_CONSUMER, async (writer, message) => {
    const event = parseEvent(message.type as WebhookSourceEvent, message.body);
    appendedBy.set(message, await recordWebhookEvents(writer, event as EventEnvelope));
  });
  // A link's creation only adds it to the projection: one statement with its inbox row, no wake.
  const saveCreatedLink = unitOfWork.linkSaverFor(WEBHOOK_EVENTS_CONSUMER, (message) =>
    projectedLinkOf(parseEvent('link.created', message.body).data),
  );
  return {
    consumer: WEBHOOK_EVENTS_CONSUMER,
    eventTypes: [...WEBHOOK_SOURCE_EVENTS],
    // One at a time: the log keeps the order events were published in (each subscription's, each link's).
    prefetch: 1,
    handler: async (message) => {
      if (message.type === 'link.created') return saveCreatedLink(message);
      await handler(message);
      // Most events only update the projection (every link.created): no reason to wake the worker.
      if ((appendedBy.get(message) ?? 0) > 0) afterCommit();
    },
  };
}
