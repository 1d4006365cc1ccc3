import type { Refund, RefundablePayment, RefundTotals } from '../domain/refund';

/**
 * Refunds, and the movements they give money back from (a charge, or a registered bank transfer). Every
 * method runs on the store's connection or transaction (`InTransaction`); methods named `lock...` lock the
 * row until the transaction ends. A payment's row is locked before any of its refunds, by every writer.
 */
export interface RefundStore {
  /**
   * The merchant's movement with this id, its row locked: a charge, or a bank transfer once registered
   * (settled). Undefined for another merchant's, or none.
   */
  lockPayment(merchantId: string, paymentId: string): Promise<RefundablePayment | undefined>;
  /** The same, not locked (a read). */
  findPayment(merchantId: string, paymentId: string): Promise<RefundablePayment | undefined>;
  /** The refunds of the payment, as they add up now. */
  totalsOf(paymentId: string): Promise<RefundTotals>;
  findRefundByKey(merchantId: string, idempotencyKey: string): Promise<Refund | undefined>;
  /** Whether `id` is one of the merchant's refunds (a refund is a movement too, but not one to refund). */
  isRefund(merchantId: string, id: string): Promise<boolean>;
  findRefund(merchantId: string, paymentId: string, refundId: string): Promise<Refund | undefined>;
  /** False when the merchant's key already made a refund (nothing written). */
  insertRefund(refund: Refund): Promise<boolean>;
  lockRefund(refundId: string): Promise<Refund | undefined>;
  saveRefund(refund: Refund): Promise<void>;
  /**
   * Refunds not settled whose next check is due, oldest first, each leased until `leaseUntil` (its next
   * check moves there) so that another janitor replica skips it meanwhile.
   */
  claimDueRefunds(now: Date, leaseUntil: Date, limit: number): Promise<Refund[]>;
}
