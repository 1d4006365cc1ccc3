import type { MerchantContext, SubscriptionStateCounts } from '@payrail/contracts';

/**
 * subscriptions' count of the merchant's subscriptions by state at an instant (the report summary's end of
 * range). Undefined when subscriptions could not answer now: the report says so rather than failing.
 */
export interface SubscriptionStates {
  at(merchant: MerchantContext, instant: Date): Promise<SubscriptionStateCounts | undefined>;
}
