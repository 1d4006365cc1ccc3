import { PAYMENT_LINK_STATUSES } from '@payrail/contracts';

/** Payment link status codes (`statusId`): the spec leaves the table open; these are the design's. */
export const LinkStatus = PAYMENT_LINK_STATUSES;

export type RecurrenceTerms =
  | {
      type: 'STATIC';
      installmentAmount: string;
      totalPeriods: number;
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
