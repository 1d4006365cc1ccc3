import type { BankTransferDetails, PaymentMethodKind } from '@payrail/contracts';
import type { PaymentCard } from '../domain/subscription';

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

/**
 * A link's first payment that arrived before the link's subscription was created (`link.paid` before
 * `link.created`), kept until the creation takes it; and the lock by which the two meet.
 */
export interface EarlyPaymentStore {
  /**
   * Serialises, until the transaction ends, the two ways a link's subscription meets its first payment
   * (`link.created` and `link.paid` arrive on different queues, in either order): without it, each could miss
   * the other's uncommitted row and the subscription would stay pending although paid.
   */
  lockLink(merchantId: string, linkId: number): Promise<void>;
  recordEarlyPayment(payment: EarlyLinkPayment): Promise<void>;
  /** Removes and returns the early payment of the merchant's link, if one arrived. */
  takeEarlyPayment(merchantId: string, linkId: number): Promise<EarlyLinkPayment | undefined>;
}
