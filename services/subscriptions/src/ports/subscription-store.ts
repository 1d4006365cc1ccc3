import type { SubscriptionStateCounts } from '@payrail/contracts';
import type { SubscriptionCriteria } from '../domain/identifiers';
import type { SubscriptionStatus } from '../domain/status';
import type { Subscription } from '../domain/subscription';

export type NewSubscription = Omit<Subscription, 'id'>;

export interface SubscriptionFilter {
  customIdentifier?: string;
  customIdentifier2?: string;
  linkId?: number;
  status?: SubscriptionStatus;
}

/** `GET /api/subscriptions/summary`: subscriptions by status, and the debits of the coming days. */
export interface SubscriptionSummary {
  counts: Record<SubscriptionStatus, number>;
  upcoming: { installments: number; amounts: Array<{ currency: string; amount: string }> };
}

/**
 * The subscriptions: one per recurrent link, its terms, status and card. Bound to a transaction or to the
 * database. Methods that find a subscription to change it lock its row, so two operations on one
 * subscription (and on its installments, which are reached through it) run one after the other.
 */
export interface SubscriptionStore {
  /** Undefined when the link already has its subscription (a redelivered `link.created`). */
  insertSubscription(subscription: NewSubscription): Promise<Subscription | undefined>;
  saveSubscription(subscription: Subscription): Promise<void>;
  /** Batch: `saveSubscription` for each, in one statement. */
  saveSubscriptions(subscriptions: Subscription[]): Promise<void>;
  /** Locks the row. */
  findByLink(merchantId: string, linkId: number): Promise<Subscription | undefined>;
  /** The merchant's pending and active subscriptions matching the criteria; locked when `lock`. */
  findOpenByCriteria(
    merchantId: string,
    criteria: SubscriptionCriteria,
    options: { lock: boolean },
  ): Promise<Subscription[]>;
  /** The merchant's subscription, whatever its status; not locked (for reading). */
  findSubscription(merchantId: string, subscriptionId: number): Promise<Subscription | undefined>;
  /** The merchant's subscriptions matching the filter, by id, after `afterId`, at most `limit`. */
  listSubscriptions(
    merchantId: string,
    filter: SubscriptionFilter,
    page: { afterId: number | null; limit: number },
  ): Promise<Subscription[]>;
  /**
   * The merchant's subscriptions counted by status, and the pending installments of its active and past-due
   * ones dated from `from` to `to` (calendar days, both included), summed per currency.
   */
  summarize(merchantId: string, upcoming: { from: string; to: string }): Promise<SubscriptionSummary>;
  /**
   * How many of the merchant's subscriptions were in each state at `at`: made by then; ended by then (its
   * final status); else `past_due` if it is now (no history of it is kept), `active` if activated by then,
   * else `pending`.
   */
  statesAt(merchantId: string, at: Date): Promise<SubscriptionStateCounts>;
  /** Bulk: each criteria's open subscriptions (locked, in id order), by the caller's key. */
  findOpenByCriteriaBulk(
    merchantId: string,
    criteria: Map<number, SubscriptionCriteria>,
  ): Promise<Map<number, Subscription[]>>;
  /** The merchant's subscriptions charged to this card (locked, in id order). */
  subscriptionsWithCard(merchantId: string, paymentMethodId: string): Promise<Subscription[]>;
  /**
   * The customer's subscriptions at the merchant once their first payment is made (active, past due,
   * completed, cancelled), newest first; not locked (the customer's page reads them).
   */
  subscriptionsOfCustomer(merchantId: string, customerId: number): Promise<Subscription[]>;
  /** The merchant's active or past-due subscriptions of this customer left without a card (locked). */
  cardlessSubscriptionsOfCustomer(merchantId: string, customerId: number): Promise<Subscription[]>;
}
