import type { EventEnvelope, MerchantContext } from '@payrail/contracts';
import type { PaymentLink, PaymentLinkDraft } from '../domain/payment-link';

/** The signed-in user of spec 4.2, as the merchant names them. */
export interface SignedInUser {
  email: string;
  /** Lower-cased e-mail: the key a user is found by. */
  emailKey: string;
  firstName: string;
  lastName: string;
}

/** A link paid by a bank transfer, found again by the merchant's bank reference. */
export interface LinkTransferSettlement {
  merchantId: string;
  reference: string;
  linkId: number;
  amount: string;
  settledAt: Date;
}

export interface PaymentLinkRepository {
  /**
   * Stores the link and, in the same transaction, the event built from it (outbox): either both are
   * stored or neither.
   */
  createWithEvent(
    draft: PaymentLinkDraft,
    eventFor: (link: PaymentLink) => EventEnvelope,
  ): Promise<PaymentLink>;
  /**
   * In one transaction: finds the merchant's user by e-mail key or creates it (active), stores the link
   * for that user, the hash of its login code and the link's event.
   */
  createForSignedInUser(
    request: {
      draft: PaymentLinkDraft;
      user: SignedInUser;
      loginCode: { codeHash: string; expiresAt: Date };
    },
    eventFor: (link: PaymentLink) => EventEnvelope,
  ): Promise<{ link: PaymentLink; customerId: number }>;
  /** Scoped by merchant: another merchant's link is not found. */
  findForMerchant(merchantId: string, id: number): Promise<PaymentLink | undefined>;
  /** The merchant's links among `ids` (the customer's page names its subscriptions by their link's label). */
  findManyForMerchant(merchantId: string, ids: number[]): Promise<PaymentLink[]>;
  /** The merchant's links this customer paid by card on the pay page, newest first (the customer's page). */
  paidByCustomer(merchantId: string, customerId: number): Promise<PaymentLink[]>;
  /** The pay page's lookup: the slug is the link's public, unguessable name. */
  findBySlug(slug: string): Promise<PaymentLink | undefined>;
  /**
   * The pay page's lookup with the link's merchant profile (as `MerchantProfiles.find` reads it) in the
   * same statement: one round trip for the page.
   */
  findBySlugWithMerchant(
    slug: string,
  ): Promise<{ link: PaymentLink; merchant: MerchantContext | undefined } | undefined>;
  /** The link a bank reference of the merchant already paid, if any. */
  findTransferSettlement(merchantId: string, reference: string): Promise<LinkTransferSettlement | undefined>;
  /**
   * In one transaction: locks the merchant's link (undefined when there is none), finds again whether the
   * reference paid a link meanwhile (then answers that, changing nothing), else lets `check` refuse (it
   * throws; nothing is stored), marks the link paid at `paidAt`, records the settlement and the link's event.
   */
  payByTransfer(
    /** `txId`: processor-gateway's id of the transfer, the payment's movement id. */
    request: { merchantId: string; linkId: number; reference: string; txId: string; paidAt: Date },
    check: (link: PaymentLink) => void,
    eventFor: (link: PaymentLink) => EventEnvelope,
  ): Promise<{ link: PaymentLink; settlement: LinkTransferSettlement } | undefined>;
}
