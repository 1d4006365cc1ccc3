import type { EventEnvelope, PaymentMethodKind } from '@payrail/contracts';
import type { AmountUpdate, DateMatch } from '../domain/bulk';
import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import type { SubscriptionStatus } from '../domain/status';
import type { Subscription } from '../domain/subscription';

export type NewSubscription = Omit<Subscription, 'id'>;
export type NewInstallment = Omit<Installment, 'id' | 'subscriptionId'>;

export interface SubscriptionFilter {
  customIdentifier?: string;
  customIdentifier2?: string;
  linkId?: number;
  status?: SubscriptionStatus;
}

export interface EarlyLinkPayment {
  linkId: number;
  merchantId: string;
  amount: string;
  paidAt: Date;
  method: PaymentMethodKind;
  txId: string | null;
}

/** An installment paid by a bank transfer, found again by the merchant's bank reference. */
export interface TransferSettlement {
  merchantId: string;
  reference: string;
  installmentId: number;
  subscriptionId: number;
  amount: string;
  settledAt: Date;
}

/**
 * Where subscriptions and installments live. Every method runs on the store's connection or, inside
 * `transaction`, on that transaction; events given to `publish` are committed with the state change
 * (transactional outbox). Methods that find a subscription to change it lock its row, so two operations
 * on one subscription run one after the other.
 */
export interface SubscriptionStore {
  transaction<T>(work: (store: SubscriptionStore) => Promise<T>): Promise<T>;

  /** Undefined when the link already has its subscription (a redelivered `link.created`). */
  insertSubscription(subscription: NewSubscription): Promise<Subscription | undefined>;
  saveSubscription(subscription: Subscription): Promise<void>;
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
  /** The installment and its subscription (locked), only when the subscription is the merchant's. */
  findInstallment(
    merchantId: string,
    installmentId: number,
  ): Promise<{ subscription: Subscription; installment: Installment } | undefined>;

  installmentsOf(subscriptionId: number): Promise<Installment[]>;
  /** Set-based. Throws `INVOICE_NUMBER_TAKEN` when an invoice number is already used in the subscription. */
  insertInstallments(
    subscriptionId: number,
    installments: NewInstallment[],
    at: Date,
  ): Promise<Installment[]>;
  /**
   * Stores new versions of installments in one statement; each must still be in the status it was read
   * in (`before`), else `CONCURRENT_MODIFICATION` and nothing is stored.
   */
  saveInstallments(changes: Array<{ before: Installment; after: Installment }>, at: Date): Promise<void>;

  /** Bulk: each criteria's open subscriptions (locked, in id order), by the caller's key. */
  findOpenByCriteriaBulk(
    merchantId: string,
    criteria: Map<number, SubscriptionCriteria>,
  ): Promise<Map<number, Subscription[]>>;
  /**
   * Bulk: applies each amount to the single pending installment (from the 2nd on) of its subscription on
   * its date, in one statement, and reports for every update what its date matched.
   */
  updateAmountsOnDates(updates: AmountUpdate[], at: Date): Promise<DateMatch[]>;

  recordEarlyPayment(payment: EarlyLinkPayment): Promise<void>;
  /** Removes and returns the early payment of the merchant's link, if one arrived. */
  takeEarlyPayment(merchantId: string, linkId: number): Promise<EarlyLinkPayment | undefined>;

  /** The installment a bank reference of the merchant already paid, if any. */
  findTransferSettlement(merchantId: string, reference: string): Promise<TransferSettlement | undefined>;
  /** In the transaction that marks the installment paid. */
  recordTransferSettlement(settlement: TransferSettlement): Promise<void>;

  /** Outbox: one multi-row insert, in the current transaction. */
  publish(events: EventEnvelope[]): Promise<void>;
}
