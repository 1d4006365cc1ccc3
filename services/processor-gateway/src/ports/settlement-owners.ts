import type { MerchantContext } from '@payrail/contracts';
import type { Settlement, TransferNotification } from '../domain/bank-transfer';

/** The owner of the target refused it: the problem it answered, passed on to the merchant as is. */
export interface SettlementRefusal {
  status: 404 | 409 | 422;
  code: string;
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

export type SettlementOutcome =
  | { kind: 'settled'; settlement: Settlement }
  | { kind: 'refused'; refusal: SettlementRefusal };

/** The owner did not answer, or answered something we cannot read: whether it settled is not known. */
export class OwnerUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OwnerUnavailable';
  }
}

/**
 * The services that own what a transfer pays: links (a payment link) and subscriptions (an installment).
 * Each settles idempotently by (merchant, reference): asked again, it answers what it did the first time.
 */
export interface SettlementOwners {
  /**
   * `txId`: the transfer's id here, which the owner announces the payment with (the same on every ask).
   * Throws `OwnerUnavailable` when the outcome is not known.
   */
  settle(
    merchant: MerchantContext,
    notification: TransferNotification,
    txId: string,
  ): Promise<SettlementOutcome>;
}
