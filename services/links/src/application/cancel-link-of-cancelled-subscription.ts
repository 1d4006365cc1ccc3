import type { EventData } from '@payrail/contracts';
import type { Clock } from '@payrail/time';
import { isCancellable } from '../domain/link-cancellation';
import type { PaymentLink } from '../domain/payment-link';
import type { LinkManagementRepository } from '../ports/link-management-repository';
import { linkCancelledEvent } from './events';

/**
 * A subscription cancelled before its first payment (its link still unpaid) takes its link with it: the
 * link becomes cancelled (statusId 7, `link.cancelled` reason `subscription-cancelled`), so the customer
 * can no longer start a subscription that no longer exists. A subscription that was active had its link
 * paid: that link, like an expired or already cancelled one, is left as it is.
 */
export async function cancelLinkOfCancelledSubscription(
  deps: { management: LinkManagementRepository; clock: Clock },
  subscription: EventData<'subscription.cancelled'>,
): Promise<PaymentLink | undefined> {
  const now = deps.clock.now();
  return deps.management.cancelIf(
    { merchantId: subscription.merchantId, linkId: subscription.linkId },
    (link) => isCancellable(link, now),
    (link) => linkCancelledEvent(link, 'subscription-cancelled', now),
  );
}
