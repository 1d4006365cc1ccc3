import type { MerchantContext } from '@payrail/contracts';
import { type IsoDate, localDate } from '@payrail/time';
import { type PageSchedule, scheduleAsCreated, scheduleAsItIs } from '../domain/pay-page';
import type { PaymentLink } from '../domain/payment-link';
import { type Subscriptions, SubscriptionsUnavailable } from '../ports/subscriptions';

/** The subscription's schedule for the page, or why it cannot be shown now. */
export type LinkSchedule = { kind: 'known'; schedule: PageSchedule } | { kind: 'unavailable' };

/**
 * The schedule of a recurrent link as it is now, where the customer is waiting. subscriptions owns the
 * installments: it is asked each time (a merchant's modify or cancel shows at once). While it has not made
 * the subscription yet (the link was created a moment ago), nothing can have changed: the link's own terms
 * are the schedule. When it does not answer, the page says so rather than show a plan that may be stale.
 * Undefined for a one-off link.
 */
export async function scheduleOfLink(
  deps: { subscriptions: Subscriptions },
  merchant: MerchantContext | undefined,
  link: Pick<PaymentLink, 'id' | 'amount' | 'createdAt' | 'recurrence' | 'paidAt' | 'statusId'>,
  timezone: string,
): Promise<LinkSchedule | undefined> {
  const asCreated = scheduleAsCreated(link, timezone);
  if (!asCreated) return undefined;
  // The merchant's settings are kept from the link's creation; without them there is no context to sign.
  if (!merchant) return { kind: 'known', schedule: asCreated };
  try {
    const subscription = await deps.subscriptions.ofLink(merchant, link.id);
    if (!subscription) return { kind: 'known', schedule: asCreated };
    const paidOn: IsoDate | null = link.paidAt ? localDate(link.paidAt, timezone) : null;
    return { kind: 'known', schedule: scheduleAsItIs(subscription, paidOn) };
  } catch (error) {
    if (error instanceof SubscriptionsUnavailable) return { kind: 'unavailable' };
    throw error;
  }
}
