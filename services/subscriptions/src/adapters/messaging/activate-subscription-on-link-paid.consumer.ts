import { parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Logger } from '@payrail/observability';
import type { Clock } from '@payrail/time';
import { activateSubscriptionOnPayment } from '../../application/activate-subscription-on-payment';
import type { SubscriptionUnitOfWork } from '../../ports/unit-of-work';

export const ACTIVATE_CONSUMER = 'subscriptions.activate-subscription-on-link-paid';

/** The first payment: the subscription becomes active and installment 1 paid. */
export function activateSubscriptionOnLinkPaid(
  unitOfWork: SubscriptionUnitOfWork,
  clock: Clock,
  logger: Logger,
): Subscription {
  return {
    consumer: ACTIVATE_CONSUMER,
    eventTypes: ['link.paid'],
    handler: unitOfWork.handlerFor(ACTIVATE_CONSUMER, async (stores, message) => {
      const { data } = parseEvent('link.paid', message.body);
      // A one-off link has no subscription, now or later: nothing to activate, nothing to keep.
      if (!data.recurrent) return;
      const outcome = await activateSubscriptionOnPayment({ stores, clock }, data);
      if (outcome.kind === 'ignored' && outcome.subscription.status === 'cancelled') {
        // The customer paid a link whose subscription the merchant had cancelled: money to give back.
        logger.warn(
          { linkId: data.linkId, subscriptionId: outcome.subscription.id, merchantId: data.merchantId },
          'link paid after its subscription was cancelled',
        );
      }
    }),
  };
}
