import { MultipleSubscriptionsMatch, NoSubscriptionMatches } from './errors';
import type { Subscription } from './subscription';

/**
 * How a merchant names a subscription: its identifiers, either or both, and/or the id of the link it was
 * made from (`payRequestId`), which is the only name of a subscription whose link had no identifier.
 * An empty string counts as absent, as it does when links store them.
 */
export interface SubscriptionCriteria {
  customIdentifier: string | null;
  customIdentifier2: string | null;
  linkId: number | null;
}

export function criteriaOf(
  customIdentifier?: string | null,
  customIdentifier2?: string | null,
  linkId?: number | null,
): SubscriptionCriteria {
  return {
    customIdentifier: customIdentifier || null,
    customIdentifier2: customIdentifier2 || null,
    linkId: linkId ?? null,
  };
}

export function hasIdentifier(criteria: SubscriptionCriteria): boolean {
  return (
    criteria.customIdentifier !== null || criteria.customIdentifier2 !== null || criteria.linkId !== null
  );
}

/** Among the merchant's open subscriptions that match: none is 404, more than one is ambiguous. */
export function singleMatch(matches: Subscription[]): Subscription {
  const [only, ...others] = matches;
  if (!only) throw new NoSubscriptionMatches();
  if (others.length > 0) throw new MultipleSubscriptionsMatch(matches.length);
  return only;
}
