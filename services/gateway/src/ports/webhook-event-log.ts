import type { WebhookEventFilter } from '@payrail/contracts';

/** An envelope of a merchant's log, as it was sent (`body`), with its place in the log (`seq`). */
export interface LoggedEvent {
  seq: number;
  id: string;
  merchantId: string;
  kind: string;
  orderingKey: string;
  body: string;
  createdAt: Date;
}

/**
 * The merchants' event log (kept 30 days): what the event consumer appends, what `GET /api/events` pages
 * through and what a replay sends again. Appending an envelope queues its deliveries.
 */
export interface WebhookEventLog {
  /**
   * Appends an envelope to the merchant's log (under the merchant's lock, so the log commits in `seq`
   * order) and queues a delivery to each of the merchant's endpoints that takes its kind (a test event to
   * none: its caller queues it for its one endpoint). Null when an envelope with this id is already there.
   * In the caller's transaction (a consumer's unit of work), else in one of its own.
   */
  appendEvent(event: Omit<LoggedEvent, 'seq'>): Promise<LoggedEvent | null>;
  /**
   * As `appendEvent` for each envelope in the order given, in two statements whatever their number: each
   * merchant's lock taken once (merchants in sorted order), then the envelopes and their deliveries.
   * Returns how many were appended (an id already there is left out).
   */
  appendEvents(events: Array<Omit<LoggedEvent, 'seq'>>): Promise<number>;
  listEvents(
    merchantId: string,
    options: { after: number; limit: number; kind?: string },
  ): Promise<LoggedEvent[]>;
  /** The merchant's events of [from, to) of the kinds of `filter` (`["*"]`: all but test events). */
  eventsBetween(merchantId: string, from: Date, to: Date, filter: WebhookEventFilter): Promise<LoggedEvent[]>;
  /** Deletes the events logged before `cutoff`, their deliveries with them; returns how many. */
  purgeEventsBefore(cutoff: Date): Promise<number>;
}
