import type { Clock } from '@payrail/time';
import { addDays, localDate } from '@payrail/time';
import type { SubscriptionSummary } from '../ports/subscription-store';
import type { SubscriptionStores } from '../ports/unit-of-work';

/**
 * `GET /api/subscriptions/summary`: the merchant's subscriptions by status, and the pending installments of
 * its active and past-due subscriptions due in the next `days` days, today (in its time zone) included.
 */
export async function summarizeSubscriptions(
  deps: { stores: SubscriptionStores; clock: Clock },
  merchant: { merchantId: string; timezone: string },
  days: number,
): Promise<SubscriptionSummary & { days: number }> {
  const from = localDate(deps.clock.now(), merchant.timezone);
  const summary = await deps.stores.subscriptions.summarize(merchant.merchantId, {
    from,
    to: addDays(from, days - 1),
  });
  return { ...summary, days };
}
