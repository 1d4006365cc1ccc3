import type { MerchantContext, Processor } from '@payrail/contracts';

/** A hosted form of a processor: A's inside our page (iframe), B's a page of its own (redirect). */
export type HostedForm =
  | { kind: 'iframe'; processId: string; formUrl: string; scriptUrl?: string }
  | { kind: 'redirect'; url: string; hash: string };

/** A charge as processor-gateway tells it: its state and why it failed, nothing of the card. */
export interface ChargeView {
  chargeId: string;
  idempotencyKey: string;
  status: 'pending' | 'succeeded' | 'failed' | string;
  processor: Processor;
  amount: string;
  currency: string;
  linkId: number | null;
  paymentMethodId: string | null;
  declineCode: string | null;
  category: string | null;
  /** What the processor knows the charge by, and its authorization code (absent from an older processor-gateway). */
  processorReference?: string | null;
  authorizationCode?: string | null;
}

/** A card in the customer's vault: brand, last 4 and expiry, nothing more. */
export interface SavedCard {
  paymentMethodId: string;
  customerId: number;
  processor: Processor;
  last4: string;
  brand: string;
  expiryMonth: number;
  expiryYear: number;
  blocked: boolean;
  createdAt: string;
}

/** A payment as a receipt tells it: what it took, when, and from which card (brand and last 4 only). */
export interface PaymentDescription {
  chargeId: string;
  status: string;
  processor: Processor;
  amount: string;
  currency: string;
  settledAt: string | null;
  /** Null when no saved card made it (a one-off payment on the processor's form). */
  brand: string | null;
  last4: string | null;
}

/** processor-gateway refused: an attempt number already used for another payment of the link. */
export class PaymentAttemptUsed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PaymentAttemptUsed';
  }
}

/** processor-gateway or the processor did not answer as expected: nothing was charged by this call. */
export class CardPaymentsUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CardPaymentsUnavailable';
  }
}

/**
 * What the pay page asks of processor-gateway (its internal routes, with the link's merchant context):
 * a person is waiting, so these are synchronous calls. Not found answers undefined.
 */
export interface CardPayments {
  savedCards(merchant: MerchantContext, customerId: number): Promise<SavedCard[]>;
  openHostedPayment(
    merchant: MerchantContext,
    request: {
      linkId: number;
      paymentNumber: number;
      processor: Processor;
      amount: string;
      currency: string;
      description: string;
      returnUrl: string;
      cancelUrl: string;
    },
  ): Promise<{ charge: ChargeView; form: HostedForm }>;
  chargeSavedCard(
    merchant: MerchantContext,
    request: {
      linkId: number;
      paymentNumber: number;
      customerId: number;
      paymentMethodId: string;
      amount: string;
      currency: string;
      description: string;
    },
  ): Promise<ChargeView>;
  openCardRegistration(
    merchant: MerchantContext,
    request: { customerId: number; processor: Processor; returnUrl: string; linkId?: number },
  ): Promise<{ registrationId: string; form: HostedForm }>;
  /**
   * Finishes a registration: `saved` are the cards it added (none when the processor refused the card, or
   * when it was finished before), `all` every card of the customer at that processor.
   */
  completeCardRegistration(
    merchant: MerchantContext,
    registrationId: string,
  ): Promise<{ saved: SavedCard[]; all: SavedCard[] }>;
  /** The merchant's charges among `chargeIds`, for the customer's payments and receipts. */
  describePayments(merchant: MerchantContext, chargeIds: string[]): Promise<PaymentDescription[]>;
  /** The charge of attempt `paymentNumber` of the link (`link:<id>:payment:<n>`), if one was made. */
  linkCharge(
    merchant: MerchantContext,
    linkId: number,
    paymentNumber: number,
  ): Promise<ChargeView | undefined>;
}
