import { parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import { recordLinkRefund } from '../../application/record-link-refund';
import type { LinksUnitOfWork } from '../../ports/unit-of-work';

export const RECORD_REFUND_CONSUMER = 'links.record-refund-on-refund-succeeded';

/**
 * `refund.succeeded` of a link's payment: the link's `refundedAmount` becomes the payment's refunded total
 * (never lower than it was). The inbox row and the update commit together; a redelivery does nothing.
 */
export function recordRefundOnRefundSucceeded(unitOfWork: LinksUnitOfWork): Subscription {
  return {
    consumer: RECORD_REFUND_CONSUMER,
    eventTypes: ['refund.succeeded'],
    handler: unitOfWork.handlerFor(RECORD_REFUND_CONSUMER, async (stores, message) => {
      const { data } = parseEvent('refund.succeeded', message.body);
      await recordLinkRefund({ payments: stores.payments }, data);
    }),
  };
}
