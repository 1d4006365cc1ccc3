import type { EventEnvelope, MerchantContext } from '@payrail/contracts';
import type { BankTransfer, TransferNotification } from '../domain/bank-transfer';

export interface TransferClaim {
  merchant: MerchantContext;
  fingerprint: string;
  notification: TransferNotification;
  at: Date;
}

/** Where notified transfers live, one per merchant and bank reference (a unique constraint decides). */
export interface BankTransferStore {
  /**
   * Inserts the transfer as `pending` unless the merchant's reference already has a row; either way
   * answers the row that holds the reference now (committed at once, so a duplicate sees the claim).
   */
  claim(
    claim: TransferClaim,
  ): Promise<{ transfer: BankTransfer; merchant: MerchantContext; claimed: boolean }>;
  /**
   * In one transaction: `pending` → `settled` with the answer to replay, and the event. When another
   * request settled it first, nothing is written and the stored answer is returned.
   */
  markSettled(
    id: number,
    settle: { response: Record<string, unknown>; at: Date; event: (transfer: BankTransfer) => EventEnvelope },
  ): Promise<Record<string, unknown>>;
  /** The answer stored for a settled transfer. */
  responseOf(id: number): Promise<Record<string, unknown> | undefined>;
  /** Removes a `pending` row whose notification was refused (a settled row is never removed). */
  release(id: number): Promise<void>;
  /** Rows left `pending` since before `olderThan` (a crash or an unreachable owner), oldest first. */
  stalePending(
    olderThan: Date,
    limit: number,
  ): Promise<Array<{ transfer: BankTransfer; merchant: MerchantContext }>>;
}
