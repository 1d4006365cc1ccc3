import type { WebhookEndpointRecord } from './webhook-endpoint-store';
import type { LoggedEvent } from './webhook-event-log';

export type DeliveryOrigin = 'event' | 'test' | 'retry' | 'replay';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryAttemptRecord {
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  response: string | null;
  error: string | null;
}

export interface WebhookDeliveryRecord {
  position: number;
  id: string;
  endpointId: string;
  merchantId: string;
  eventSeq: number;
  eventId: string;
  kind: string;
  orderingKey: string;
  origin: DeliveryOrigin;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
  attempts: DeliveryAttemptRecord[];
}

/** A delivery a worker has claimed, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  eventBody: string;
  attemptCount: number;
  createdAt: Date;
  endpoint: WebhookEndpointRecord;
}

export interface NewDelivery {
  endpointId: string;
  merchantId: string;
  event: Pick<LoggedEvent, 'seq' | 'id' | 'kind' | 'orderingKey'>;
  origin: DeliveryOrigin;
  orderingKey?: string;
  now: Date;
}

/**
 * The deliveries of logged events to endpoints and their attempts: what the merchant lists, retries and
 * replays, and what the delivery worker claims and records (an outcome may change its endpoint: its last
 * success, or disabled after failing for the whole retry window).
 */
export interface WebhookDeliveryStore {
  insertDeliveries(deliveries: NewDelivery[]): Promise<string[]>;
  findDelivery(merchantId: string, id: string): Promise<WebhookDeliveryRecord | null>;
  listDeliveries(
    merchantId: string,
    filter: { endpointId?: string; status?: DeliveryStatus; kind?: string; before?: number; limit: number },
  ): Promise<WebhookDeliveryRecord[]>;
  /**
   * Claims up to `limit` deliveries that are due, whose endpoint is enabled, and that no earlier pending
   * delivery of the same endpoint and ordering key is waiting before; never more than
   * `perEndpoint - busy[endpoint]` of one endpoint, and an endpoint's backlog never hides another's: the
   * oldest due first among what each endpoint below its cap may still take. A claim lasts until `leaseUntil`.
   */
  claimDue(options: {
    now: Date;
    limit: number;
    perEndpoint: number;
    busy: ReadonlyMap<string, number>;
    leaseUntil: Date;
  }): Promise<ClaimedDelivery[]>;
  /**
   * Lets go of claims not sent (a worker stopping with deliveries claimed ahead, or one that waited too
   * long to be sent): each is claimable again at once. A claim is released only while it still holds the
   * lease it was given (`leaseUntil`): one that lapsed and was taken by another worker stays that worker's.
   */
  releaseClaims(claims: Array<{ id: string; leaseUntil: Date }>): Promise<void>;
  /** One attempt and its outcome (the delivery's new state; the endpoint's last success or switching off). */
  recordAttempt(
    deliveryId: string,
    attempt: DeliveryAttemptRecord,
    outcome:
      | { kind: 'delivered'; at: Date }
      | { kind: 'retry'; at: Date }
      | { kind: 'failed'; disableEndpointIfFailingSince: Date; at: Date },
  ): Promise<{ endpointDisabled: boolean }>;
  /**
   * Several deliveries answered 2xx, at once: for each, what `recordAttempt` does with `{ kind: 'delivered' }`
   * (the attempt, the delivery delivered, its endpoint's last success), all or none.
   */
  recordDelivered(
    items: Array<{ deliveryId: string; attempt: DeliveryAttemptRecord; at: Date }>,
  ): Promise<void>;
}
