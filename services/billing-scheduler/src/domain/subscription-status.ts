import type { SUBSCRIPTION_STATUSES } from '@payrail/contracts';

export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

const RANK: Record<SubscriptionStatus, number> = {
  pending: 0,
  active: 1,
  past_due: 1,
  completed: 2,
  cancelled: 2,
};

/**
 * Events may arrive out of order (a redelivery after a failed try): a subscription never goes back to
 * `pending`, nor out of `completed` or `cancelled`. Between `active` and `past_due` the later event wins.
 */
export function nextSubscriptionStatus(
  current: SubscriptionStatus | undefined,
  reported: SubscriptionStatus,
): SubscriptionStatus {
  if (current === undefined) return reported;
  if (RANK[current] === 2) return current;
  return RANK[reported] >= RANK[current] ? reported : current;
}

/**
 * Whose installments a run claims: an active subscription's, and a past-due one's (a later installment is
 * still collected while an earlier one waits to be paid). subscriptions has the last word on each charge.
 */
export const CHARGEABLE_SUBSCRIPTION_STATUSES: SubscriptionStatus[] = ['active', 'past_due'];
