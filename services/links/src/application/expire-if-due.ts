import type { Clock } from '@payrail/time';
import { LinkStatus, type PaymentLink } from '../domain/payment-link';
import type { LinkPaymentRepository } from '../ports/link-payment-repository';
import { linkExpiredEvent } from './events';

/** Expires the link now if its validity passed (statusId 6 and `link.expired`), as a reader finds it. */
export async function expireIfDue(
  deps: { payments: LinkPaymentRepository; clock: Clock },
  link: PaymentLink,
): Promise<PaymentLink> {
  const now = deps.clock.now();
  if (!link.expiresAt || link.expiresAt.getTime() > now.getTime()) return link;
  if (link.statusId !== LinkStatus.PENDING && link.statusId !== LinkStatus.LAST_ATTEMPT_REJECTED) return link;
  const [expired] = await deps.payments.expireDue(now, 1, (l) => linkExpiredEvent(l, now), link.id);
  return expired ?? link;
}
