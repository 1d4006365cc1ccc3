import type { Clock } from '@payrail/time';
import type { WebhookStore } from '../../ports/webhook-store';

export interface WebhookDeps {
  webhooks: WebhookStore;
  clock: Clock;
  /** `WEBHOOK_ALLOW_PRIVATE_NETWORKS`: development and tests only. */
  allowPrivateNetworks: boolean;
  /** Called after deliveries were queued, so a worker in this process starts at once. */
  deliveriesQueued(): void;
}
