import type { BankTransferDetails, EventEnvelope, PaymentMethodKind } from '@payrail/contracts';
import type { AmountUpdate, DateMatch } from '../domain/bulk';
import type { AttemptOutcome, AttemptStatus, ChargeAttempt } from '../domain/debit';
import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import type { SubscriptionStatus } from '../domain/status';
import type { PaymentCard, Subscription } from '../domain/subscription';

/** Runs `work` in the context (trace span) of one message of a batch. */
export type InMessageContext = <T>(work: () => T) => T;

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
  /** The references beside `txId`, for installment 1's `installment.paid` (null in rows kept before them). */
  details: EarlyPaymentDetails | null;
  /** The card that paid (kept for later installments); null for a transfer. */
  card: PaymentCard | null;
}

/** What `link.paid` says beside its `txId`: the processor's references, or the bank transfer. */
export interface EarlyPaymentDetails {
  processorReference: string | null;
  authorizationCode: string | null;
  bankReference: string | null;
  bankTransfer: BankTransferDetails | null;
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
  /** The installment and its subscription (locked), only when the subscription is the merchant's. */
  findInstallment(
    merchantId: string,
    installmentId: number,
  ): Promise<{ subscription: Subscription; installment: Installment } | undefined>;

  /**
   * Batch: as `findInstallment` for many installments (each only when its subscription is that merchant's),
   * with their subscriptions locked in one statement, in id order (so batches never deadlock each other),
   * then the installments read as the locks protect them. By installment id.
   */
  findInstallmentsForUpdate(
    refs: Array<{ merchantId: string; installmentId: number }>,
  ): Promise<Map<number, { subscription: Subscription; installment: Installment }>>;

  /**
   * Batch, for charge outcomes: the subscriptions of the installments (each only when its subscription is
   * that merchant's) locked in one statement, in id order, as `findInstallmentsForUpdate`, then every
   * installment of those subscriptions in one more (by number). A subscription locked for one merchant's
   * installment may hold an installment another ref names with another merchant: the caller checks.
   */
  lockSubscriptionsOfInstallments(
    refs: Array<{ merchantId: string; installmentId: number }>,
  ): Promise<Array<{ subscription: Subscription; installments: Installment[] }>>;

  /** As `findInstallment`, without the lock (for reading). */
  readInstallment(
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
   * Batch: `insertInstallments` for several subscriptions in one statement, each draft naming its own. A
   * number its subscription already has fails the whole statement (the unique (subscription, number)).
   */
  insertInstallmentsOfMany(
    installments: Array<NewInstallment & { subscriptionId: number }>,
    at: Date,
  ): Promise<Installment[]>;
  /**
   * Stores new versions of installments in one statement; each must still be in the status it was read
   * in (`before`), else `CONCURRENT_MODIFICATION` and nothing is stored. `clearNextAttempt`: their next
   * attempt day goes too, in the same statement (`setNextAttempt(id, null, null)` for each).
   */
  saveInstallments(
    changes: Array<{ before: Installment; after: Installment }>,
    at: Date,
    options?: { clearNextAttempt?: boolean },
  ): Promise<void>;

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

  /**
   * Serialises, until the transaction ends, the two ways a link's subscription meets its first payment
   * (`link.created` and `link.paid` arrive on different queues, in either order): without it, each could miss
   * the other's uncommitted row and the subscription would stay pending although paid.
   */
  lockLink(merchantId: string, linkId: number): Promise<void>;
  recordEarlyPayment(payment: EarlyLinkPayment): Promise<void>;
  /** Removes and returns the early payment of the merchant's link, if one arrived. */
  takeEarlyPayment(merchantId: string, linkId: number): Promise<EarlyLinkPayment | undefined>;

  /** The installment a bank reference of the merchant already paid, if any. */
  findTransferSettlement(merchantId: string, reference: string): Promise<TransferSettlement | undefined>;
  /** In the transaction that marks the installment paid. */
  recordTransferSettlement(settlement: TransferSettlement): Promise<void>;

  // Automatic debit.

  /** Serialises, until the transaction ends, everything that counts or adds attempts on one card. */
  lockCard(paymentMethodId: string): Promise<void>;
  /** Batch: `lockCard` for each card, in one statement, in a stable order. */
  lockCards(paymentMethodIds: string[]): Promise<void>;
  /** Batch: `cardAttemptsSince` of each card, by card (a card without attempts is absent). */
  cardsAttemptsSince(paymentMethodIds: string[], since: Date): Promise<Map<string, Date[]>>;
  /** Batch: the attempt numbers already requested of each installment (absent when none). */
  attemptNumbersOf(installmentIds: number[]): Promise<Map<number, Set<number>>>;
  /** Batch: `recordAttempt` in one statement. */
  recordAttempts(attempts: ChargeAttempt[]): Promise<void>;
  /** When each attempt on the card since `since` was requested, oldest first. */
  cardAttemptsSince(paymentMethodId: string, since: Date): Promise<Date[]>;
  findAttempt(installmentId: number, attempt: number): Promise<ChargeAttempt | undefined>;
  /** The highest attempt number requested for the installment (0 when none). */
  latestAttemptNumber(installmentId: number): Promise<number>;
  recordAttempt(attempt: ChargeAttempt): Promise<void>;
  /** Batch: the status of each asked attempt that exists, by `installmentChargeKey(installmentId, attempt)`. */
  attemptStatuses(
    attempts: Array<{ installmentId: number; attempt: number }>,
  ): Promise<Map<string, AttemptStatus>>;
  /**
   * Batch: `settleAttempt` in one statement; each attempt must still be `requested`, else
   * `CONCURRENT_MODIFICATION` and nothing is settled.
   */
  settleAttempts(
    settlements: Array<{ installmentId: number; attempt: number; outcome: AttemptOutcome }>,
  ): Promise<void>;
  /** Settles a `requested` attempt; false when it was settled already (nothing changed). */
  settleAttempt(installmentId: number, attempt: number, outcome: AttemptOutcome): Promise<boolean>;
  /**
   * Dunning scheduled the next attempt: on the installment (the v2 list shows it) and on the failed attempt
   * (the audit shows it). `null` clears the installment's (paid, failed, given up).
   */
  setNextAttempt(
    installmentId: number,
    failedAttempt: number | null,
    nextAttemptOn: string | null,
  ): Promise<void>;
  /** The installment's attempts, first first. */
  attemptsOf(installmentId: number): Promise<ChargeAttempt[]>;
  /** For lists: each installment's last attempt and next attempt day. */
  attemptSummaries(
    installmentIds: number[],
  ): Promise<Map<number, { lastAttempt: ChargeAttempt | null; nextAttemptOn: string | null }>>;
  /** The merchant's subscriptions charged to this card (locked, in id order). */
  subscriptionsWithCard(merchantId: string, paymentMethodId: string): Promise<Subscription[]>;
  /** The merchant's active or past-due subscriptions of this customer left without a card (locked). */
  cardlessSubscriptionsOfCustomer(merchantId: string, customerId: number): Promise<Subscription[]>;

  /** Outbox: one multi-row insert, in the current transaction. */
  publish(events: EventEnvelope[]): Promise<void>;
  /**
   * Outbox, for a batch of messages: one multi-row insert, each event with the trace context of the message
   * it answers (`within` runs in that message's context), so each keeps its own trace.
   */
  publishEach(events: Array<{ event: EventEnvelope; within: InMessageContext }>): Promise<void>;
}
