import type { MerchantContext } from '@payrail/contracts';
import type { Clock } from '@payrail/time';
import { PaymentLinkNotFound } from '../domain/errors';
import { assertCancellableByMerchant } from '../domain/link-cancellation';
import type { PaymentLink } from '../domain/payment-link';
import type { LinkManagementRepository } from '../ports/link-management-repository';
import { linkCancelledEvent } from './events';

export interface CancelPaymentLinkDeps {
  management: LinkManagementRepository;
  clock: Clock;
}

/**
 * `POST /api/payrequests/{id}/cancel`: a link still payable becomes cancelled (statusId 7) with its
 * `link.cancelled` (reason `merchant`); anything else is refused and nothing changes.
 */
export async function cancelPaymentLink(
  deps: CancelPaymentLinkDeps,
  merchant: MerchantContext,
  linkId: number,
): Promise<PaymentLink> {
  const now = deps.clock.now();
  const cancelled = await deps.management.cancel(
    { merchantId: merchant.merchantId, linkId },
    (link) => assertCancellableByMerchant(link, now),
    (link) => linkCancelledEvent(link, 'merchant', now),
  );
  if (!cancelled) throw new PaymentLinkNotFound(linkId);
  return cancelled;
}
