import { type IsoDate, localDate } from '@payrail/time';

/**
 * "Today" for a time zone. Outside simulated time a run never reaches past it: a run as of a day is,
 * for each merchant, as of the earlier of that day and the merchant's own today.
 */
export function todayIn(timezone: string, now: Date): IsoDate {
  return localDate(now, timezone);
}

/**
 * The latest "today" among the time zones a run concerns (UTC when it concerns none yet): an `asOf` after
 * it lies in the future everywhere, and is refused unless time is simulated.
 */
export function latestToday(timezones: string[], now: Date): IsoDate {
  const zones = timezones.length > 0 ? timezones : ['UTC'];
  return zones
    .map((zone) => todayIn(zone, now))
    .sort()
    .at(-1) as IsoDate;
}

/** The last due day a run claims for a merchant in `timezone`. */
export function claimUpTo(
  asOf: IsoDate | null,
  timezone: string,
  now: Date,
  simulatedTime: boolean,
): IsoDate {
  const today = todayIn(timezone, now);
  if (asOf === null) return today;
  if (simulatedTime) return asOf;
  return asOf < today ? asOf : today;
}
