import { localDate } from '@payrail/time';
import { InvalidTransfer } from './errors';

/**
 * A transfer made outside the service that a merchant notified, and what it pays. The owners of the
 * targets (links, subscriptions) decide whether it settles them; this service keeps one transfer per
 * merchant and bank reference.
 */

export type TransferTarget =
  | { type: 'PAY_REQUEST'; payRequestId: number }
  | { type: 'INSTALLMENT'; installmentId: number }
  | {
      type: 'INSTALLMENT';
      customIdentifier: string | null;
      customIdentifier2: string | null;
      paymentDate: string;
    };

/** A notification once its shape is valid, normalised: what is compared, stored and replayed. */
export interface TransferNotification {
  reference: string;
  target: TransferTarget;
  /** Two-decimal string. */
  amount: string;
  currency: string | null;
  bankName: string;
  /** `yyyy-MM-dd`. */
  transferDate: string;
  note: string | null;
}

/** What the public answer says was settled. */
export type SettledTarget =
  | { type: 'PAY_REQUEST'; payRequestId: number; statusId: number }
  | {
      type: 'INSTALLMENT';
      installmentId: number;
      subscriptionId: number;
      paymentDate: string;
      status: 'paid';
      customIdentifier: string | null;
      customIdentifier2: string | null;
    };

export interface Settlement {
  target: SettledTarget;
  /** The amount and currency the target was due (equal to the transfer's: the owner checked). */
  amount: string;
  currency: string;
}

export type BankTransferStatus = 'pending' | 'settled';

export interface BankTransfer {
  id: number;
  /** The transfer as a money movement (a UUID): the `txId` of the payment it makes. */
  txId: string;
  merchantId: string;
  status: BankTransferStatus;
  fingerprint: string;
  notification: TransferNotification;
  createdAt: Date;
  settledAt: Date | null;
}

/** A transfer is made on a day that has come, in the merchant's calendar. */
export function assertTransferDateNotFuture(transferDate: string, timezone: string, now: Date): void {
  const today = localDate(now, timezone);
  if (transferDate > today) {
    throw new InvalidTransfer('transferDate', `is after today (${today}) in the merchant's time zone`);
  }
}
