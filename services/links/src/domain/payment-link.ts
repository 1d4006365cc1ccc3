import { amountCurrencyProblem, PAYMENT_LINK_STATUSES } from '@payrail/contracts';
import { formatAmount, parseAmount } from '@payrail/money';
import { PaymentLinkNotPayable, TransferMismatch } from './errors';

/** Payment link status codes (`statusId`): the spec leaves the table open; these are the design's. */
export const LinkStatus = PAYMENT_LINK_STATUSES;

export type RecurrenceTerms =
  | {
      type: 'STATIC';
      installmentAmount: string;
      /** Including the first; null: open-ended, every month until the subscription is cancelled. */
      totalPeriods: number | null;
      dayOfMonth: number;
      monthForSecondInstallment: number;
    }
  | { type: 'DYNAMIC' };

/** What a merchant asks for, already validated for shape (adapters) and merchant rules (use case). */
export interface PaymentLinkDraft {
  merchantId: string;
  slug: string;
  label: string;
  /** Two-decimal string: the (first) payment amount. */
  amount: string;
  currency: string;
  handleValue: string;
  handleLabel: string;
  customIdentifier: string | null;
  customIdentifier2: string | null;
  singlePayment: boolean;
  creditAndDebitCard: boolean;
  recurrence: RecurrenceTerms | null;
  payWaitHours: number;
  expiresAt: Date | null;
  redirectUrl: string | null;
  noLoginRequired: boolean;
  documentNumber: string | null;
  paymentMethods: string[];
  createdAt: Date;
}

export interface PaymentLink extends PaymentLinkDraft {
  id: number;
  statusId: number;
  /** The signed-in user the link was made for (spec 4.2), if any. */
  customerId: number | null;
  /** When it was paid (statusId 200), and by which of our charges when a card paid it on the pay page. */
  paidAt?: Date | null;
  paidChargeId?: string | null;
  /** Why the last card attempt was declined (statusId 5). */
  lastDecline?: { code: string; category: string } | null;
  /** Two-decimal string: what was given back of its payment (refunds that succeeded); the link stays paid. */
  refundedAmount?: string;
  /** The payment of a paid link (statusId 200); undefined or null fields on an unpaid one. */
  payment?: LinkPaymentDetails;
}

/** Who paid a link on its pay page, as the service user was when they paid. */
export interface LinkPayer {
  userId: number;
  email: string | null;
  documentNumber: string | null;
  firstName: string;
  lastName: string;
}

/** What paid a link: the movement (`txId`), how, the card (brand and last 4, no more) and who. */
export interface LinkPaymentDetails {
  paymentId: string | null;
  method: 'CARD' | 'BANK_TRANSFER' | null;
  processor: string | null;
  cardBrand: string | null;
  cardLast4: string | null;
  paidBy: LinkPayer | null;
}

/** `payWaitHours` 0 or absent: the link never expires. */
export function expiryOf(createdAt: Date, payWaitHours: number): Date | null {
  if (payWaitHours <= 0) return null;
  return new Date(createdAt.getTime() + payWaitHours * 3_600_000);
}

/**
 * The status a reader sees: a link still payable whose validity has passed is expired, even before
 * anything has written that down.
 */
export function statusAt(link: Pick<PaymentLink, 'statusId' | 'expiresAt'>, now: Date): number {
  const payable = link.statusId === LinkStatus.PENDING || link.statusId === LinkStatus.LAST_ATTEMPT_REJECTED;
  if (payable && link.expiresAt && link.expiresAt.getTime() <= now.getTime()) return LinkStatus.EXPIRED;
  return link.statusId;
}

/**
 * Whether a bank transfer the merchant notified pays the link: the link must still be payable now (pending,
 * or its last card attempt rejected) and the transfer exactly its amount (compared in minor units) in its
 * currency. Throws the refusal; the caller stores nothing then.
 */
export function assertPayableByTransfer(
  link: Pick<PaymentLink, 'id' | 'statusId' | 'expiresAt' | 'amount' | 'currency'>,
  transfer: { amount: string; currency: string | null },
  now: Date,
): void {
  const status = statusAt(link, now);
  if (status === LinkStatus.PAID) {
    throw new PaymentLinkNotPayable('PAYMENT_LINK_ALREADY_PAID', `Payment link ${link.id} is already paid`);
  }
  if (status === LinkStatus.CANCELLED) {
    throw new PaymentLinkNotPayable('PAYMENT_LINK_CANCELLED', `Payment link ${link.id} is cancelled`);
  }
  if (status === LinkStatus.EXPIRED) {
    throw new PaymentLinkNotPayable('PAYMENT_LINK_EXPIRED', `Payment link ${link.id} has expired`);
  }
  if (transfer.currency !== null && transfer.currency !== link.currency) {
    throw new TransferMismatch(
      'CURRENCY_MISMATCH',
      `The transfer is in ${transfer.currency}; the payment link is due in ${link.currency}`,
      'currency',
    );
  }
  if (parseAmount(transfer.amount) !== parseAmount(link.amount)) {
    // A fraction of a guaraní is never due: say so rather than compare.
    const precision = amountCurrencyProblem(transfer.amount, link.currency);
    throw new TransferMismatch(
      'AMOUNT_MISMATCH',
      precision
        ? `amount ${precision}`
        : `The transfer is ${formatAmount(parseAmount(transfer.amount))}; the payment link is due ${formatAmount(parseAmount(link.amount))}`,
      'amount',
    );
  }
}
