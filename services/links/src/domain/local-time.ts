import { TZDate } from '@date-fns/tz';
import { format } from 'date-fns';

/** Spec 2.3 `expireTime`: `yyyy-MM-dd HH:mm:ss` as a clock on the wall in the merchant's time zone reads it. */
export function localDateTime(instant: Date, timeZone: string): string {
  return format(new TZDate(instant, timeZone), 'yyyy-MM-dd HH:mm:ss');
}

export function localDate(instant: Date, timeZone: string): string {
  return format(new TZDate(instant, timeZone), 'yyyy-MM-dd');
}
