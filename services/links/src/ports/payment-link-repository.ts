import type { EventEnvelope } from '@payrail/contracts';
import type { PaymentLink, PaymentLinkDraft } from '../domain/payment-link';

/** The signed-in user of spec 4.2, as the merchant names them. */
export interface SignedInUser {
  email: string;
  /** Lower-cased e-mail: the key a user is found by. */
  emailKey: string;
  firstName: string;
  lastName: string;
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
}
