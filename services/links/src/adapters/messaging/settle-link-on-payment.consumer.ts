import { LINK_PAYMENT_FAILED, LINK_PAYMENT_SUCCEEDED, parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { type ChargeOutcomeEvent, settleAttemptOfChargeOutcome } from '../../application/settle-attempt';
import type { LinksUnitOfWork } from '../../ports/unit-of-work';

export const SETTLE_LINK_CONSUMER = 'links.settle-link-on-payment';

/**
 * `payment.succeeded` / `payment.failed` of a pay page charge (key `link:<id>:payment:<n>`): the link is
 * paid or rejected even when the customer's browser never comes back. The inbox row and the link's state
 * with its event commit together; a redelivery, or the browser having settled it first, changes nothing.
 */
export function settleLinkOnPayment(unitOfWork: LinksUnitOfWork, clock: Clock): Subscription {
  return {
    consumer: SETTLE_LINK_CONSUMER,
    // A pay page charge's outcomes only, not an installment's (libs/contracts routing): the use case's key
    // check still leaves out anything else that comes (a queue bound to the whole type before).
    eventTypes: [LINK_PAYMENT_SUCCEEDED, LINK_PAYMENT_FAILED],
    handler: unitOfWork.handlerFor(SETTLE_LINK_CONSUMER, async (stores, message) => {
      const event: ChargeOutcomeEvent =
        message.type === 'payment.failed'
          ? { type: 'payment.failed', data: parseEvent('payment.failed', message.body).data }
          : { type: 'payment.succeeded', data: parseEvent('payment.succeeded', message.body).data };
      await settleAttemptOfChargeOutcome({ payments: stores.payments, clock }, event);
    }),
  };
}
