import { type EventData, type EventEnvelope, parseEvent } from '@payrail/contracts';
import { batchPrefetch, type DeliveredMessage, type Subscription } from '@payrail/messaging';
import {
  projectedLinkOf,
  recordWebhookEvents,
  WEBHOOK_SOURCE_EVENTS,
  type WebhookSourceEvent,
} from '../../application/webhooks/record-webhook-events';
import {
  type LoadedProjection,
  loadProjectionOf,
  webhookEventBatch,
} from '../../application/webhooks/record-webhook-event-batch';
import type { CreatedLinkRecorder, WebhookUnitOfWork } from '../../ports/unit-of-work';
import type { ProjectedLink } from '../../ports/webhook-projection';

export const WEBHOOK_EVENTS_CONSUMER = 'gateway.record-webhook-events';
/** Link creations come by the hundred under load: recorded in batches, one transaction each. */
export const WEBHOOK_EVENTS_BATCH = 50;

/** Envelopes appended by the messages of one transaction, and whether the worker was woken for them. */
interface Appended {
  count: number;
  woken: boolean;
}

/**
 * Its own consumer (queue): turning events into the webhook log never waits for a receiver, and the
 * sending is the delivery worker's. Each transaction is the unit of work's (libs/messaging): its inbox
 * makes a redelivered event a no-op. A `link.created` alone is one statement with its inbox row
 * (`createdLinks`).
 *
 * The log keeps the order events were published in (each subscription's, each link's): the messages of
 * a batch are recorded one after the other in delivery order, and one batch at a time; a batch's
 * envelopes are appended together once all of them are made, in that order.
 */
export function recordWebhookEventsOnEvents(
  unitOfWork: WebhookUnitOfWork,
  createdLinks: CreatedLinkRecorder,
  afterCommit: () => void,
): Subscription {
  /** Each message's transaction: only its appended envelopes give the delivery worker something to send. */
  const appendedBy = new WeakMap<DeliveredMessage, Appended>();
  /** Each message's event, parsed once for the preload and the batch. */
  const parsedEvents = new WeakMap<DeliveredMessage, EventEnvelope>();
  const eventOf = (message: DeliveredMessage): EventEnvelope => {
    let event = parsedEvents.get(message);
    if (!event) {
      event = parseEvent(message.type as WebhookSourceEvent, message.body) as EventEnvelope;
      parsedEvents.set(message, event);
    }
    return event;
  };
  const recordOne = unitOfWork.handlerFor(WEBHOOK_EVENTS_CONSUMER, async (stores, message) => {
    const event = parseEvent(message.type as WebhookSourceEvent, message.body);
    const count = await recordWebhookEvents(stores, event as EventEnvelope);
    appendedBy.set(message, { count, woken: false });
  });
  // A link's creation only adds it to the projection: one statement with its inbox row, no wake.
  const saveCreatedLink = createdLinks.handlerFor(WEBHOOK_EVENTS_CONSUMER, (message) =>
    projectedLinkOf(parseEvent('link.created', message.body).data),
  );
  const handler = unitOfWork.batchHandlerFor(
    WEBHOOK_EVENTS_CONSUMER,
    {
      maxBatch: WEBHOOK_EVENTS_BATCH,
      // One batch at a time, a failed one's messages handled again one after the other: the log's order.
      ordered: true,
      single: (message) => {
        // Alone after its batch failed: what the batch counted was rolled back.
        appendedBy.delete(message);
        return message.type === 'link.created' ? saveCreatedLink(message) : recordOne(message);
      },
      // The projection rows the batch names, read in the inbox insert's round trip.
      preload: (stores, messages) => loadProjectionOf(stores.projection, messages.map(eventOf)),
    },
    async (stores, items, preloaded) => {
      const parsed = items.map(({ message, run }) => ({ message, run, event: eventOf(message) }));
      // The projection rows the batch names are read at once (preloaded: with the inbox insert), and its
      // envelopes appended together.
      const recorder = await webhookEventBatch(
        stores,
        parsed.map(({ event }) => event),
        preloaded as LoadedProjection | undefined,
      );
      const batch: Appended = { count: 0, woken: false };
      // Consecutive creations go to the projection together, before the next other event.
      let created: ProjectedLink[] = [];
      const saveCreated = async () => {
        if (created.length === 0) return;
        await recorder.projection.saveLinks(created);
        created = [];
      };
      for (const { message, run, event } of parsed) {
        appendedBy.set(message, batch);
        if (message.type === 'link.created') {
          created.push(projectedLinkOf(event.data as EventData<'link.created'>));
          continue;
        }
        await saveCreated();
        await run(() => recorder.record(event));
      }
      await saveCreated();
      batch.count = await recorder.finish();
    },
  );
  return {
    consumer: WEBHOOK_EVENTS_CONSUMER,
    eventTypes: [...WEBHOOK_SOURCE_EVENTS],
    // A charge's transaction now comes with its `installment.paid` (upgrade subscriptions first).
    retiredEventTypes: ['payment.succeeded'],
    prefetch: batchPrefetch(WEBHOOK_EVENTS_BATCH),
    handler: async (message) => {
      await handler(message);
      // After the commit; once per transaction, and only when it appended (never for link.created).
      const appended = appendedBy.get(message);
      if (appended && appended.count > 0 && !appended.woken) {
        appended.woken = true;
        afterCommit();
      }
    },
  };
}
