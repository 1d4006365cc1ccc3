import type { EventData } from '@payrail/contracts';
import type { LinkPaymentRepository } from '../ports/link-payment-repository';

/**
 * A refund of a link's payment succeeded (processor-gateway's `refund.succeeded`): the link keeps what was
 * given back of it (`refundedAmount` of its retrieval) and stays paid, `statusId` 200 (a refund is no
 * reason to pay it again). A refund of an installment's charge names no link and changes nothing here.
 */
export async function recordLinkRefund(
  deps: { payments: LinkPaymentRepository },
  refund: EventData<'refund.succeeded'>,
): Promise<boolean> {
  if (refund.linkId === null) return false;
  return deps.payments.recordRefunded(refund.merchantId, refund.linkId, refund.refundedTotal);
}
