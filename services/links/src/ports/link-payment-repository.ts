import type { EventEnvelope, Processor } from '@payrail/contracts';
import type { PaymentLink } from '../domain/payment-link';

/** One payment attempt on a link's pay page: attempt n charges with the key `link:<id>:payment:<n>`. */
export interface LinkPayment {
  linkId: number;
  paymentNumber: number;
  /** `hosted`: a new card on the processor's form; `saved-card`; `registration`: save the card, then charge it. */
  kind: 'hosted' | 'saved-card' | 'registration';
  processor: Processor;
  customerId: number | null;
  /** The customer chose the link's subscription rather than a one-off payment. */
  subscription: boolean;
  registrationId: string | null;
  paymentMethodId: string | null;
  chargeId: string | null;
  processorReference: string | null;
  status: 'open' | 'succeeded' | 'failed';
  declineCode: string | null;
  declineCategory: string | null;
  createdAt: Date;
  settledAt: Date | null;
}

export type NewLinkPayment = Pick<
  LinkPayment,
  'kind' | 'processor' | 'customerId' | 'subscription' | 'paymentMethodId'
>;

/** How an attempt ended, as processor-gateway's charge says. */
export type PaymentOutcome =
  | {
      kind: 'succeeded';
      chargeId: string;
      paymentMethodId: string | null;
      /** What the processor knows the charge by, and its authorization code, when told (for `link.paid`). */
      processorReference?: string | null;
      authorizationCode?: string | null;
      /** The vault card charged, when known: its brand and last 4 digits (the link's retrieval shows them). */
      card?: { brand: string | null; last4: string | null } | null;
    }
  | {
      kind: 'failed';
      chargeId: string | null;
      declineCode: string;
      category: string;
      processorReference?: string | null;
      /** Nobody was declined (the form was left unused, or cancelled): the link's status stays as it is. */
      abandoned?: boolean;
    };

export interface LinkPaymentRepository {
  /**
   * Under the link's row lock: `decide` sees the link and its open attempt (if any) and answers `continue`
   * (the open attempt as it is) or the customer's choice, or throws (not payable). A choice with no open
   * attempt starts attempt max+1; with an open attempt it replaces that attempt's choice under the same
   * number (`decide` only does so while no charge can exist for it). Two requests at once are serialised
   * here, so they share one attempt number and so one charge.
   */
  startOrContinue(
    slug: string,
    at: Date,
    decide: (link: PaymentLink, open: LinkPayment | undefined) => 'continue' | NewLinkPayment,
  ): Promise<{ link: PaymentLink; attempt: LinkPayment } | undefined>;
  find(linkId: number, paymentNumber: number): Promise<LinkPayment | undefined>;
  /** The attempt whose hosted form has that processor reference, with its link's slug. */
  findByProcessorReference(
    processor: Processor,
    reference: string,
  ): Promise<{ attempt: LinkPayment; slug: string } | undefined>;
  /** Records what processor-gateway gave for an open attempt (its charge, registration, form reference). */
  record(
    linkId: number,
    paymentNumber: number,
    patch: Partial<
      Pick<LinkPayment, 'chargeId' | 'registrationId' | 'paymentMethodId' | 'processorReference'>
    >,
  ): Promise<void>;
  /**
   * In one transaction, under the link's lock: writes the attempt's outcome and the link's state with its
   * event. Succeeded: the link paid (200) once, `link.paid`; a success is written even over an earlier
   * failure of the same attempt (the money was taken). Failed: a payable link becomes 5 with the reason,
   * `link.payment-failed`. The same outcome again changes nothing (answers `changed: false`).
   */
  settle(
    linkId: number,
    paymentNumber: number,
    outcome: PaymentOutcome,
    at: Date,
    events: {
      paid(link: PaymentLink, attempt: LinkPayment): EventEnvelope;
      /** Undefined: no event (a card refused at registration made no charge to report). */
      failed(link: PaymentLink, attempt: LinkPayment): EventEnvelope | undefined;
    },
  ): Promise<{ link: PaymentLink; attempt: LinkPayment; changed: boolean } | undefined>;
  /**
   * Writes statusId 6 for payable links whose validity passed by `at` (at most `limit`; `linkId` for one
   * link read by a customer), each with its event, skipping links another transaction holds.
   */
  expireDue(
    at: Date,
    limit: number,
    eventFor: (link: PaymentLink) => EventEnvelope,
    linkId?: number,
  ): Promise<PaymentLink[]>;
  /**
   * Raises the merchant's link's refunded amount to `refundedTotal` (its payment's refunds that succeeded),
   * never lowers it: refunds announced late or twice leave the greatest. False: no such link of the merchant.
   */
  recordRefunded(merchantId: string, linkId: number, refundedTotal: string): Promise<boolean>;
}
