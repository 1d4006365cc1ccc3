import type { CustomerEmailKind, CustomerEmailStatus } from '@payrail/contracts';
import type { IsoDate } from '@payrail/time';

/** A subscription as links knows it from subscriptions' events (issue 29), with its customer's link. */
export interface EmailSubscription {
  subscriptionId: number;
  merchantId: string;
  linkId: number;
  status: string;
  timezone: string;
  currency: string;
  paymentMethodId: string | null;
}

export interface EmailInstallment {
  installmentId: number;
  subscriptionId: number;
  number: number;
  paymentDate: IsoDate;
  amount: string;
  status: string;
}

export interface EmailCard {
  paymentMethodId: string;
  merchantId: string;
  customerId: number;
  brand: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
}

/** Who an e-mail goes to: the link's customer (who paid it, or whom it was made for). */
export interface EmailRecipient {
  customerId: number;
  email: string | null;
  firstName: string;
  language: string | null;
}

export interface NewCustomerEmail {
  id: string;
  merchantId: string;
  customerId: number;
  kind: CustomerEmailKind;
  /** One e-mail per key (`receipt:<txId>`, ...): a second event with the same key adds nothing. */
  dedupeKey: string;
  recipient: string;
  language: string;
  subject: string;
  textBody: string;
  htmlBody: string;
  fromName: string;
  replyTo: string | null;
  subscriptionId: number | null;
  linkId: number | null;
  actionSubscriptionId: number | null;
  createdAt: Date;
}

export interface CustomerEmailRow extends NewCustomerEmail {
  status: CustomerEmailStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: Date | null;
  sentAt: Date | null;
}

/** An installment due for a reminder, or a subscription whose card expires before its next debit. */
export interface DebitAhead {
  subscription: EmailSubscription;
  installment: EmailInstallment;
  card: EmailCard | null;
}

/** What the customer e-mails keep: the projection of subscriptions and cards, and the e-mails' outbox. */
export interface CustomerEmailStore {
  saveSubscription(subscription: EmailSubscription): Promise<void>;
  saveInstallments(installments: EmailInstallment[]): Promise<void>;
  setSubscriptionStatus(subscriptionId: number, status: string): Promise<void>;
  setSubscriptionCard(subscriptionId: number, paymentMethodId: string): Promise<void>;
  /** The card of the subscription made from this link. */
  setCardOfLink(linkId: number, paymentMethodId: string): Promise<void>;
  saveCard(card: EmailCard): Promise<void>;
  removeCard(paymentMethodId: string): Promise<void>;
  subscription(subscriptionId: number): Promise<EmailSubscription | undefined>;
  installment(installmentId: number): Promise<EmailInstallment | undefined>;
  card(paymentMethodId: string | null): Promise<EmailCard | undefined>;
  /** The link's label and its customer (who paid it, else whom it was made for). */
  linkOf(linkId: number): Promise<{ label: string; recipient: EmailRecipient | undefined } | undefined>;
  /** Adds the e-mail unless one with its key exists; whether it was added. */
  enqueue(email: NewCustomerEmail): Promise<boolean>;
  /** Remembers a merchant's (or, `all`, every merchant's) as-of day; never goes back. */
  rememberSimulatedDay(scope: string, asOf: IsoDate): Promise<void>;
  simulatedDay(merchantId: string): Promise<IsoDate | undefined>;
  /** The merchants with active or past-due subscriptions (all, or the one given). */
  merchantsWithSubscriptions(merchantId: string | null): Promise<string[]>;
  /** Pending installments of the merchant's collecting subscriptions dated in [from, to], with their card. */
  pendingBetween(merchantId: string, from: IsoDate, to: IsoDate): Promise<DebitAhead[]>;
  /** Each collecting subscription's next pending installment (after `after`) and its card. */
  nextDebits(merchantId: string, after: IsoDate): Promise<DebitAhead[]>;
}

/** The e-mails' relay and the merchant's view of them. */
export interface CustomerEmailOutbox {
  /**
   * Takes up to `limit` e-mails due by `now`, each the oldest pending one of its customer (so a customer's
   * e-mails leave in order), leasing them until `leaseUntil`.
   */
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<CustomerEmailRow[]>;
  markSent(id: string, at: Date): Promise<void>;
  markFailedAttempt(id: string, error: string, nextAttemptAt: Date | null): Promise<void>;
  /** Stores the hash of a signed link made for an e-mail. */
  saveCareLink(link: {
    tokenHash: string;
    merchantId: string;
    customerId: number;
    subscriptionId: number;
    emailId: string;
    createdAt: Date;
    expiresAt: Date;
  }): Promise<void>;
  careLink(
    tokenHash: string,
  ): Promise<
    | { merchantId: string; customerId: number; subscriptionId: number; expiresAt: Date; usedAt: Date | null }
    | undefined
  >;
  /** Marks the signed link used; false when it already was (two clicks at once: one wins). */
  consumeCareLink(tokenHash: string, at: Date): Promise<boolean>;
  list(
    merchantId: string,
    filter: { kind?: string; status?: string; customerId?: number; subscriptionId?: number },
    page: { beforeId: string | null; limit: number },
  ): Promise<CustomerEmailRow[]>;
}
