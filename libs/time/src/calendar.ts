import { TZDate } from '@date-fns/tz';
// The one function from its own module: the package's index loads all of date-fns (some 250 modules).
import { format } from 'date-fns/format';

/**
 * Calendar days as `yyyy-MM-dd` strings. Payment dates are days in the merchant's time zone, not
 * instants: month arithmetic on them is plain integer arithmetic, with no UTC offset or DST in the way.
 */
export type IsoDate = string;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

export interface CalendarMonth {
  year: number;
  /** 1..12 */
  month: number;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth({ year, month }: CalendarMonth): number {
  return month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

/** Whether the text is `yyyy-MM-dd` and names a real day (`2026-02-30` is not one). */
export function isCalendarDate(text: string): boolean {
  const match = ISO_DATE.exec(text);
  if (!match) return false;
  const month = Number(match[2]);
  const day = Number(match[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth({ year: Number(match[1]), month });
}

function parts(date: IsoDate): { year: number; month: number; day: number } {
  if (!isCalendarDate(date)) throw new RangeError(`Not a calendar date: ${date}`);
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return { year, month, day };
}

export function monthOf(date: IsoDate): CalendarMonth {
  const { year, month } = parts(date);
  return { year, month };
}

export function addMonths({ year, month }: CalendarMonth, count: number): CalendarMonth {
  const index = year * 12 + (month - 1) + count;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

/** Months from `from` to `to` (`2026-01` to `2026-03` is 2). */
export function monthsBetween(from: CalendarMonth, to: CalendarMonth): number {
  return to.year * 12 + to.month - (from.year * 12 + from.month);
}

/** The given day of a month; the day must exist in that month. */
export function dayIn(month: CalendarMonth, day: number): IsoDate {
  if (!Number.isInteger(day) || day < 1 || day > daysInMonth(month)) {
    throw new RangeError(`Day ${day} does not exist in ${month.year}-${month.month}`);
  }
  return `${String(month.year).padStart(4, '0')}-${String(month.month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The day `count` days after `date` (before it when negative): `2026-02-27` + 3 is `2026-03-02`. */
export function addDays(date: IsoDate, count: number): IsoDate {
  const { year, month, day } = parts(date);
  const shifted = new Date(Date.UTC(year, month - 1, day + count));
  return shifted.toISOString().slice(0, 10);
}

/** One formatter per time zone: building one costs far more than using it (every link created asks). */
const dayFormatters = new Map<string, Intl.DateTimeFormat>();

function dayFormatter(timezone: string): Intl.DateTimeFormat {
  let formatter = dayFormatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dayFormatters.set(timezone, formatter);
  }
  return formatter;
}

const OFFSET_STEP_MS = 900_000;
/** Since then every zone's offsets and changes of offset are whole quarter hours (earlier, some were not). */
const QUARTER_HOURS_FROM = Date.UTC(1990, 0, 1);
/** Per time zone, the last day worked out and the UTC quarter hour it was for. */
const lastDays = new Map<string, { quarter: number; date: IsoDate }>();

/** The calendar day an instant falls on in a time zone: `2026-02-01T02:30Z` is `2026-01-31` in Asunción. */
export function localDate(instant: Date, timezone: string): IsoDate {
  // A local day starts and ends on a UTC quarter hour, so one quarter hour is one local day: the busy
  // callers (every link created) ask about the same quarter hour again and again.
  const time = instant.getTime();
  const quarter = Math.floor(time / OFFSET_STEP_MS);
  const last = lastDays.get(timezone);
  if (last?.quarter === quarter) return last.date;
  const parts: Record<string, string> = {};
  for (const part of dayFormatter(timezone).formatToParts(instant)) parts[part.type] = part.value;
  const date: IsoDate = `${parts.year?.padStart(4, '0')}-${parts.month}-${parts.day}`;
  if (time >= QUARTER_HOURS_FROM) lastDays.set(timezone, { quarter, date });
  return date;
}

/** Spec 2.3 `expireTime`: `yyyy-MM-dd HH:mm:ss` as a clock on the wall in the merchant's time zone reads it. */
export function localDateTime(instant: Date, timezone: string): string {
  return format(new TZDate(instant, timezone), 'yyyy-MM-dd HH:mm:ss');
}

/**
 * The instant a wall clock in a time zone reads as `yyyy-MM-dd HH:mm:ss` (the inverse of `localDateTime`;
 * a `T` for the space and no seconds are read too); undefined when the text is not such a time.
 */
export function instantOfLocalDateTime(text: string, timezone: string): Date | undefined {
  const match = LOCAL_DATE_TIME.exec(text.trim());
  if (!match) return undefined;
  const [year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0] = match
    .slice(1)
    .map((part) => Number(part ?? 0));
  const instant = new Date(new TZDate(year, month - 1, day, hour, minute, second, timezone).getTime());
  return Number.isNaN(instant.getTime()) ? undefined : instant;
}

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;

/** Whether two instants fall on the same calendar day in a time zone ("the same day" of a rollback). */
export function sameLocalDay(a: Date, b: Date, timezone: string): boolean {
  return localDate(a, timezone) === localDate(b, timezone);
}

/**
 * Every other instant in a response: ISO 8601 with the offset of the merchant's time zone
 * (`2026-11-23T09:00:00-03:00`), the merchant's own wall clock that a program can still compare.
 */
export function localDateTimeWithOffset(instant: Date, timezone: string): string {
  return format(new TZDate(instant, timezone), "yyyy-MM-dd'T'HH:mm:ssXXX");
}

const OFFSETS_KEPT = 100_000;

const pad2 = (value: number) => (value < 10 ? `0${value}` : String(value));

/** `yyyy-MM-ddTHH:mm:ss` of milliseconds since the epoch (a year of four digits: 1990 and later). */
function wallClockText(millis: number): string {
  // Days since 1970-01-01 to a civil date (the proleptic Gregorian calendar, eras of 400 years): integer
  // arithmetic only, some ten times cheaper than a Date and its toISOString.
  const days = Math.floor(millis / 86_400_000);
  const second = Math.floor((millis - days * 86_400_000) / 1000);
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hour = Math.floor(second / 3600);
  const minute = Math.floor((second % 3600) / 60);
  return `${year}-${pad2(month)}-${pad2(day)}T${pad2(hour)}:${pad2(minute)}:${pad2(second % 60)}`;
}

/** `Z`, or `+05:45` / `-03:00`: how an offset in minutes ends an instant's text. */
function offsetText(offsetMinutes: number): string {
  if (offsetMinutes === 0) return 'Z';
  const absolute = Math.abs(offsetMinutes);
  return `${offsetMinutes < 0 ? '-' : '+'}${pad2(Math.floor(absolute / 60))}:${pad2(absolute % 60)}`;
}

/**
 * `localDateTimeWithOffset` for many instants of one zone (an export of thousands of rows, every page of
 * the payments ledger): the same text, but the zone's offset is looked up once per UTC quarter hour
 * (offsets change on those only) and the rest is integer arithmetic, some 50 times cheaper than a
 * formatter per instant.
 */
export function localDateTimeWithOffsetWriter(timezone: string): (instant: Date) => string {
  const offsets = new Map<number, { minutes: number; text: string }>();
  return (instant) => {
    const time = instant.getTime();
    // Offsets change on whole UTC quarter hours only since 1990 (`QUARTER_HOURS_FROM`).
    if (time < QUARTER_HOURS_FROM) return localDateTimeWithOffset(instant, timezone);
    const quarter = Math.floor(time / OFFSET_STEP_MS);
    let offset = offsets.get(quarter);
    if (offset === undefined) {
      const minutes = -new TZDate(quarter * OFFSET_STEP_MS, timezone).getTimezoneOffset();
      offset = { minutes, text: offsetText(minutes) };
      if (offsets.size >= OFFSETS_KEPT) offsets.clear();
      offsets.set(quarter, offset);
    }
    // Whole seconds, as `localDateTimeWithOffset` writes them.
    return `${wallClockText(time + offset.minutes * 60_000)}${offset.text}`;
  };
}

/** The instant a calendar day starts in a time zone: `2026-11-23` in Asunción starts at `2026-11-23T03:00Z`. */
export function startOfLocalDay(date: IsoDate, timezone: string): Date {
  // Asked for every charge-due of a run (the same few days and zones): remembered, about 0.1 ms a TZDate.
  const key = `${timezone} ${date}`;
  let time = dayStarts.get(key);
  if (time === undefined) {
    const [year, month, day] = date.split('-').map(Number) as [number, number, number];
    time = new TZDate(year, month - 1, day, timezone).getTime();
    if (dayStarts.size >= DAY_STARTS_KEPT) dayStarts.clear();
    dayStarts.set(key, time);
  }
  return new Date(time);
}

/** `startOfLocalDay`'s answers by zone and day (a zone's rules do not change while a process runs). */
const dayStarts = new Map<string, number>();
const DAY_STARTS_KEPT = 4096;

/** The instant the day after `date` starts in a time zone: the exclusive end of that day. */
export function endOfLocalDay(date: IsoDate, timezone: string): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(new TZDate(year, month - 1, day + 1, timezone).getTime());
}
