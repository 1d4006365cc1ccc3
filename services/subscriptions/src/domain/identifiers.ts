import { SubscriptionError } from './errors';
import type { Subscription } from './subscription';

/**
 * How a merchant names a subscription: its `customIdentifier` and, when given, the second identifier.
 * An empty string counts as absent, as it does when links store them.
 */
export interface SubscriptionCriteria {
  customIdentifier: string | null;
  customIdentifier2: string | null;
}

export function criteriaOf(
  customIdentifier?: string | null,
  customIdentifier2?: string | null,
): SubscriptionCriteria {
  return { customIdentifier: customIdentifier || null, customIdentifier2: customIdentifier2 || null };
}

export function hasIdentifier(criteria: SubscriptionCriteria): boolean {
  return criteria.customIdentifier !== null || criteria.customIdentifier2 !== null;
}

/** Among the merchant's open subscriptions that match: none is 404, more than one is ambiguous. */
export function singleMatch(matches: Subscription[]): Subscription {
  const [only, ...others] = matches;
  if (!only)
    throw new SubscriptionError(
      'SUBSCRIPTION_NOT_FOUND',
      'No pending or active subscription matches the identifiers',
    );
  if (others.length > 0) {
    throw new SubscriptionError(
      'MULTIPLE_SUBSCRIPTIONS_MATCH',
      `${matches.length} subscriptions match the identifiers; give customIdentifier2 to choose one`,
    );
  }
  return only;
}
