import type { DeliveredMessage, MessageHandler, UnitOfWork } from '@payrail/messaging';
import type { WebhookEventLog } from './webhook-event-log';
import type { ProjectedLink, WebhookProjectionStore } from './webhook-projection';

/** The stores the event consumer writes, each bound to one transaction: what its use cases are given. */
export interface WebhookStores {
  projection: WebhookProjectionStore;
  eventLog: WebhookEventLog;
}

/**
 * How the gateway's consumer runs its use cases: libs/messaging's unit of work over its stores (inbox row,
 * projection and log entries commit together or not at all; a redelivered message does nothing).
 */
export type WebhookUnitOfWork = UnitOfWork<WebhookStores>;

/**
 * For a message whose whole change is one projected link saved (`link.created`): its inbox row and the
 * link in a single statement, one round trip, with no transaction around it; a redelivered message
 * changes nothing.
 */
export interface CreatedLinkRecorder {
  handlerFor(consumer: string, linkOf: (message: DeliveredMessage) => ProjectedLink): MessageHandler;
}
