/**
 * When a failed delivery is tried again: a list of delays after each failed attempt (`5s,5m,30m,2h`).
 * A trailing `...` repeats the last delay until the delays add up to the retry window (3 days by
 * default), so the default schedule retries for 3 days; tests compress the whole of it to seconds.
 */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h,...';
export const DEFAULT_RETRY_WINDOW = '3d';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a duration such as 500ms, 5s, 5m, 2h or 3d`);
  return Math.round(Number(match[1]) * (UNIT_MS[match[2] as string] as number));
}

export function parseRetrySchedule(schedule: string, window: string = DEFAULT_RETRY_WINDOW): number[] {
  const parts = schedule
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const repeat = parts.at(-1) === '...';
  const delays = (repeat ? parts.slice(0, -1) : parts).map(parseDuration);
  if (delays.length === 0) throw new Error('the retry schedule needs at least one delay');
  if (delays.some((delay) => delay <= 0)) throw new Error('retry delays must be positive');
  if (repeat) {
    const windowMs = parseDuration(window);
    const last = delays.at(-1) as number;
    let total = delays.reduce((sum, delay) => sum + delay, 0);
    while (total < windowMs) {
      delays.push(last);
      total += last;
    }
  }
  return delays;
}

/**
 * The delay before retry number `failedAttempts` (1 after the first failure), with ±20 % jitter so that
 * the deliveries an outage piled up do not all hit the receiver in the same second. Null: give up.
 */
export function nextRetryDelay(
  delays: number[],
  failedAttempts: number,
  random: () => number,
): number | null {
  const base = delays[failedAttempts - 1];
  if (base === undefined) return null;
  return Math.max(1, Math.round(base * (0.8 + 0.4 * random())));
}
