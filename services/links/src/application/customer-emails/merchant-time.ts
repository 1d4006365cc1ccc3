import type { Clock, IsoDate } from '@payrail/time';
import { localDate, startOfLocalDay } from '@payrail/time';
import type { CustomerEmailStore } from '../../ports/customer-email-store';

/**
 * The merchant's now for its customers' e-mails: the clock's, or, with `SIMULATED_TIME`, the start of the
 * day of the merchant's latest as-of billing run when that is later (as-of runs are how tests and demos move
 * a merchant through months; a signed link's 7 days and the reminders follow them).
 */
export async function merchantNow(
  deps: { emails: Pick<CustomerEmailStore, 'simulatedDay'>; clock: Clock; simulatedTime: boolean },
  merchantId: string,
  timezone: string,
): Promise<Date> {
  const now = deps.clock.now();
  if (!deps.simulatedTime) return now;
  const day = await deps.emails.simulatedDay(merchantId);
  if (!day) return now;
  const dayStarts = startOfLocalDay(day, timezone);
  return new Date(Math.max(dayStarts.getTime(), now.getTime()));
}

export async function merchantToday(
  deps: Parameters<typeof merchantNow>[0],
  merchantId: string,
  timezone: string,
): Promise<IsoDate> {
  return localDate(await merchantNow(deps, merchantId, timezone), timezone);
}
