import type { Clock } from '@payrail/time';
import type { WebhookDeliveryStore } from '../../ports/webhook-delivery-store';
import type { WebhookEndpointStore } from '../../ports/webhook-endpoint-store';
import type { WebhookEventLog } from '../../ports/webhook-event-log';

/** What the merchant's and the operator's webhook use cases are given. */
export interface WebhookDeps {
  endpoints: WebhookEndpointStore;
  deliveries: WebhookDeliveryStore;
  eventLog: WebhookEventLog;
  clock: Clock;
  /** `WEBHOOK_ALLOW_PRIVATE_NETWORKS`: development and tests only. */
  allowPrivateNetworks: boolean;
  /** Called after deliveries were queued, so a worker in this process starts at once. */
  deliveriesQueued(): void;
}
