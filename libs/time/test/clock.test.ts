import { describe, expect, it } from 'vitest';
import { TZDate } from '@date-fns/tz';
import { format } from 'date-fns';
import fc from 'fast-check';
import { localDate, localDateTime, simulatedClock, systemClock } from '../src/index';

describe('clock', () => {
  it('a simulated clock stands still, and moves only when told', () => {
    const clock = simulatedClock(new Date('2026-11-22T12:00:00Z'));
    expect(clock.now().toISOString()).toBe('2026-11-22T12:00:00.000Z');
    expect(clock.now().toISOString()).toBe('2026-11-22T12:00:00.000Z');
    clock.advance(36 * 3_600_000);
    expect(clock.now().toISOString()).toBe('2026-11-24T00:00:00.000Z');
    clock.set(new Date('2027-01-31T03:00:00Z'));
    expect(clock.now().toISOString()).toBe('2027-01-31T03:00:00.000Z');
  });

  it('hands out copies, so a caller cannot move time by mutating a date', () => {
    const clock = simulatedClock(new Date('2026-11-22T12:00:00Z'));
    clock.now().setUTCFullYear(1999);
    expect(clock.now().getUTCFullYear()).toBe(2026);
  });

  it('the system clock reads the real time', () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('local day and wall time are the merchant time zone’s', () => {
    const instant = new Date('2026-02-01T02:30:00Z');
    expect(localDate(instant, 'America/Asuncion')).toBe('2026-01-31');
    expect(localDate(instant, 'UTC')).toBe('2026-02-01');
    expect(localDateTime(instant, 'America/Asuncion')).toBe('2026-01-31 23:30:00');
  });

  it('the local day is the one date-fns reads in the zone, across offsets, half hours and DST changes', () => {
    const zones = ['America/Asuncion', 'America/Sao_Paulo', 'Asia/Kolkata', 'Pacific/Chatham', 'UTC'];
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('1990-01-01T00:00:00Z'),
          max: new Date('2100-12-31T23:59:59Z'),
          noInvalidDate: true,
        }),
        fc.constantFrom(...zones),
        (instant, zone) => localDate(instant, zone) === format(new TZDate(instant, zone), 'yyyy-MM-dd'),
      ),
      { numRuns: 2_000 },
    );
  });

  it('the day kept for a quarter hour is the day of every instant in it, through midnights and DST changes', () => {
    const zones = ['America/Santiago', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham'];
    // Weeks around the 2026 changes of offset of these zones (April, September and October).
    const windows = [
      [Date.UTC(2026, 2, 28), Date.UTC(2026, 3, 12)],
      [Date.UTC(2026, 8, 1), Date.UTC(2026, 9, 10)],
    ] as const;
    for (const zone of zones) {
      const reference = new Intl.DateTimeFormat('en-CA', {
        timeZone: zone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
      });
      const wrong: string[] = [];
      for (const [from, to] of windows) {
        // Seven minutes apart, in order: most instants share the quarter hour of the one before.
        for (let time = from; time < to; time += 7 * 60_000) {
          const instant = new Date(time);
          if (localDate(instant, zone) !== reference.format(instant)) wrong.push(instant.toISOString());
        }
      }
      expect(wrong, zone).toEqual([]);
    }
  }, 30_000);
});
