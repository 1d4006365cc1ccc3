/**
 * Payment link status codes (`statusId`). The spec leaves the table open; these are the design's.
 */
export const LinkStatus = {
  PENDING: 1,
  LAST_ATTEMPT_REJECTED: 5,
  EXPIRED: 6,
  CANCELLED: 7,
  PAID: 200,
} as const;

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
}

/** `payWaitHours` 0 or absent: the link never expires. */
export function expiryOf(createdAt: Date, payWaitHours: number): Date | null {
  if (payWaitHours <= 0) return null;
  return new Date(createdAt.getTime() + payWaitHours * 3_600_000);
}
