import type { BatchItem, DeliveredMessage, MessageHandler } from '@payrail/messaging';
import type { WebhookEventFilter } from '@payrail/contracts';

export type WebhookAuth =
  | { type: 'basic'; username: string; password: string }
  | { type: 'header'; name: string; value: string };

export interface WebhookEndpointRecord {
  id: string;
  merchantId: string;
  url: string;
  method: 'POST' | 'PUT';
  auth: WebhookAuth | null;
  /** The kinds it takes, by name, or `["*"]` for every kind. */
  events: WebhookEventFilter;
  description: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  enabled: boolean;
  disabledAt: Date | null;
  disabledReason: string | null;
  lastSuccessAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type WebhookEndpointChanges = Partial<
  Pick<
    WebhookEndpointRecord,
    | 'url'
    | 'method'
    | 'auth'
    | 'events'
    | 'description'
    | 'secret'
    | 'previousSecret'
    | 'previousSecretExpiresAt'
    | 'enabled'
    | 'disabledAt'
    | 'disabledReason'
  >
> & { updatedAt: Date };

export type DeliveryOrigin = 'event' | 'test' | 'retry' | 'replay';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface LoggedEvent {
  seq: number;
  id: string;
  merchantId: string;
  kind: string;
  orderingKey: string;
  body: string;
  createdAt: Date;
}

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

/** The projection envelopes are filled from (kept from link and subscription events). */
export interface ProjectedLink {
  linkId: number;
  merchantId: string;
  label: string;
  amount: string;
  currency: string;
  customIdentifier: string | null;
  customIdentifier2: string | null;
  recurrent: boolean;
  totalPeriods: number | null;
  statusId: number;
  subscriptionId: number | null;
  txId: string | null;
}

export interface ProjectedSubscription {
  subscriptionId: number;
  merchantId: string;
  linkId: number;
  totalPeriods: number | null;
}

export interface ProjectedInstallment {
  installmentId: number;
  subscriptionId: number;
  number: number;
  txId: string | null;
}

/** The ids of the projection rows some events read or write (a batch's, read at once). */
export interface ProjectionKeys {
  linkIds: number[];
  subscriptionIds: number[];
  installmentIds: number[];
}

/**
 * How many of a subscription's periods are paid, as far as the projection knows: the greatest `paidCount`
 * of its `installment.paid` events seen (a count only grows, so a late or repeated event changes nothing).
 */
export interface ProjectedPaidCount {
  subscriptionId: number;
  paidCount: number;
}

/** Projection rows read together; an id asked for and not there is absent from its list. */
export interface ProjectionRows {
  links: ProjectedLink[];
  subscriptions: ProjectedSubscription[];
  installments: ProjectedInstallment[];
  /** The paid counts of every subscription read (those of `subscriptions` and of the keys). */
  paidCounts: ProjectedPaidCount[];
}

/** The projection envelopes are filled from, as the event consumer reads and changes it. */
export interface WebhookProjection {
  saveLink(link: ProjectedLink): Promise<void>;
  /** Each link as `saveLink` would, in the order given; as few statements as it can (one per batch). */
  saveLinks(links: ProjectedLink[]): Promise<void>;
  findLink(linkId: number): Promise<ProjectedLink | null>;
  setLinkStatus(linkId: number, statusId: number, txId?: string | null): Promise<void>;
  saveSubscription(subscription: ProjectedSubscription): Promise<void>;
  findSubscription(subscriptionId: number): Promise<ProjectedSubscription | null>;
  saveInstallments(installments: Array<Omit<ProjectedInstallment, 'txId'>>): Promise<void>;
  findInstallment(installmentId: number): Promise<ProjectedInstallment | null>;
  /** The subscription's paid periods as far as known: 0 when none is known to be paid. */
  findPaidCount(subscriptionId: number): Promise<number>;
  /** Each count kept unless a greater one is known already (a subscription's count never goes down). */
  savePaidCounts(counts: ProjectedPaidCount[]): Promise<void>;
}

/** What the event consumer writes, inside its transaction. */
export interface WebhookEventWriter extends WebhookProjection {
  /**
   * The rows of `keys` in one statement, with the subscriptions of the installments, the links of those
   * subscriptions and the subscriptions of the links (what an envelope is filled from).
   */
  loadProjection(keys: ProjectionKeys): Promise<ProjectionRows>;
  /**
   * Appends an envelope to the merchant's log (under the merchant's lock, so the log commits in `seq`
   * order) and queues a delivery to each of the merchant's endpoints that takes its kind. Null when an
   * envelope with this id is already there.
   */
  appendEvent(event: Omit<LoggedEvent, 'seq'>): Promise<LoggedEvent | null>;
  /**
   * As `appendEvent` for each envelope in the order given, in two statements whatever their number: each
   * merchant's lock taken once (merchants in sorted order), then the envelopes and their deliveries.
   * Returns how many were appended (an id already there is left out).
   */
  appendEvents(events: Array<Omit<LoggedEvent, 'seq'>>): Promise<number>;
}

export interface WebhookStore {
  insertEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  findEndpoint(merchantId: string, id: string): Promise<WebhookEndpointRecord | null>;
  listEndpoints(merchantId: string): Promise<WebhookEndpointRecord[]>;
  updateEndpoint(
    merchantId: string,
    id: string,
    changes: WebhookEndpointChanges,
  ): Promise<WebhookEndpointRecord | null>;
  deleteEndpoint(merchantId: string, id: string): Promise<boolean>;

  /** Runs `work` in one transaction with the consumer-side writer. */
  inTransaction<T>(work: (writer: WebhookEventWriter) => Promise<T>): Promise<T>;

  listEvents(
    merchantId: string,
    options: { after: number; limit: number; kind?: string },
  ): Promise<LoggedEvent[]>;
  /** The merchant's events of [from, to) of the kinds of `filter` (`["*"]`: all but test events). */
  eventsBetween(merchantId: string, from: Date, to: Date, filter: WebhookEventFilter): Promise<LoggedEvent[]>;
  purgeEventsBefore(cutoff: Date): Promise<number>;

  insertDeliveries(deliveries: NewDelivery[]): Promise<string[]>;
  findDelivery(merchantId: string, id: string): Promise<WebhookDeliveryRecord | null>;
  listDeliveries(
    merchantId: string,
    filter: { endpointId?: string; status?: DeliveryStatus; kind?: string; before?: number; limit: number },
  ): Promise<WebhookDeliveryRecord[]>;

  /**
   * Claims up to `limit` deliveries that are due, whose endpoint is enabled, and that no earlier pending
   * delivery of the same endpoint and ordering key is waiting before; never more than
   * `perEndpoint - busy[endpoint]` of one endpoint. A claim lasts until `leaseUntil`.
   */
  claimDue(options: {
    now: Date;
    limit: number;
    perEndpoint: number;
    busy: ReadonlyMap<string, number>;
    leaseUntil: Date;
  }): Promise<ClaimedDelivery[]>;
  recordAttempt(
    deliveryId: string,
    attempt: DeliveryAttemptRecord,
    outcome:
      | { kind: 'delivered'; at: Date }
      | { kind: 'retry'; at: Date }
      | { kind: 'failed'; disableEndpointIfFailingSince: Date; at: Date },
  ): Promise<{ endpointDisabled: boolean }>;
}

/** The consumer's transaction: inbox row, projection and log entries commit together or not at all. */
export interface WebhookConsumerUnitOfWork {
  handlerFor(
    consumer: string,
    work: (writer: WebhookEventWriter, message: DeliveredMessage) => Promise<void>,
  ): MessageHandler;
  /**
   * For a message whose whole change is one projected link saved (`link.created`): its inbox row and
   * the link in a single statement, one round trip; a redelivered message changes nothing.
   */
  linkSaverFor(consumer: string, linkOf: (message: DeliveredMessage) => ProjectedLink): MessageHandler;
  /**
   * Messages in batches of up to `maxBatch`, one transaction and one inbox insert each, `work` given the
   * new ones in delivery order; one batch at a time, so the order of delivery is kept across batches.
   * A message alone (a batch of one, each message of a failed batch) goes to `single`, which keeps the
   * inbox itself (`handlerFor`, `linkSaverFor`).
   */
  batchHandlerFor(
    consumer: string,
    options: { maxBatch: number; single: MessageHandler },
    work: (writer: WebhookEventWriter, items: BatchItem[]) => Promise<void>,
  ): MessageHandler;
}
