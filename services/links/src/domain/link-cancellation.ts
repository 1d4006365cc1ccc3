import { PaymentLinkNotPayable } from './errors';
import { LinkStatus, type PaymentLink, statusAt } from './payment-link';

/** Why a link was cancelled (`link.cancelled` reason). */
export type CancellationReason = 'merchant' | 'subscription-cancelled';

/** A link can be cancelled while a customer could still pay it: pending, or its last attempt rejected. */
export function isCancellable(link: Pick<PaymentLink, 'statusId' | 'expiresAt'>, now: Date): boolean {
  const status = statusAt(link, now);
  return status === LinkStatus.PENDING || status === LinkStatus.LAST_ATTEMPT_REJECTED;
}

/**
 * The merchant's cancel: only a link still payable now. Throws the refusal (HTTP 409); the caller stores
 * nothing then.
 */
export function assertCancellableByMerchant(
  link: Pick<PaymentLink, 'id' | 'statusId' | 'expiresAt'>,
  now: Date,
): void {
  if (isCancellable(link, now)) return;
  const status = statusAt(link, now);
  if (status === LinkStatus.PAID) {
    throw new PaymentLinkNotPayable('PAYMENT_LINK_ALREADY_PAID', `Payment link ${link.id} is already paid`);
  }
  if (status === LinkStatus.CANCELLED) {
    throw new PaymentLinkNotPayable('PAYMENT_LINK_CANCELLED', `Payment link ${link.id} is already cancelled`);
  }
  throw new PaymentLinkNotPayable('PAYMENT_LINK_EXPIRED', `Payment link ${link.id} has expired`);
}
