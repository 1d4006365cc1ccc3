import { PaymentToRefundNotFound, RefundNotFound } from '../domain/errors';
import type { RefundDeps, RefundState } from './settle-refund';

/** `GET /api/payments/{id}/refunds/{refundId}`: the merchant's refund as it stands. */
export async function getRefund(
  deps: Pick<RefundDeps, 'stores'>,
  merchantId: string,
  paymentId: string,
  refundId: string,
): Promise<RefundState> {
  const payment = await deps.stores.refunds.findPayment(merchantId, paymentId);
  if (!payment) throw new PaymentToRefundNotFound(paymentId);
  const refund = await deps.stores.refunds.findRefund(merchantId, paymentId, refundId);
  if (!refund) throw new RefundNotFound(paymentId, refundId);
  return { refund, payment, totals: await deps.stores.refunds.totalsOf(paymentId) };
}
