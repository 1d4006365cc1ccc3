import { describe, expect, it } from 'vitest';
import { endOfLocalDay, startOfLocalDay } from '../src/index';

describe('startOfLocalDay', () => {
  it('is the instant the day starts on the wall clocks of the zone', () => {
    expect(startOfLocalDay('2026-11-23', 'America/Asuncion').toISOString()).toBe('2026-11-23T03:00:00.000Z');
    expect(startOfLocalDay('2026-11-23', 'UTC').toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(startOfLocalDay('2026-11-23', 'Asia/Tokyo').toISOString()).toBe('2026-11-22T15:00:00.000Z');
  });

  it('answers the same when asked again, each time with a Date of its own', () => {
    const first = startOfLocalDay('2026-07-01', 'America/Asuncion');
    first.setTime(0);
    const again = startOfLocalDay('2026-07-01', 'America/Asuncion');
    expect(again.toISOString()).toBe('2026-07-01T03:00:00.000Z');
    expect(again).not.toBe(startOfLocalDay('2026-07-01', 'America/Asuncion'));
  });

  it("keeps each zone and day apart: a day's end is the next day's start", () => {
    for (let day = 1; day <= 28; day += 1) {
      const date = `2026-03-${String(day).padStart(2, '0')}` as const;
      for (const zone of ['America/Asuncion', 'Europe/Madrid', 'UTC']) {
        const next = `2026-03-${String(day + 1).padStart(2, '0')}` as const;
        expect(endOfLocalDay(date, zone).getTime()).toBe(startOfLocalDay(next, zone).getTime());
      }
    }
    // Madrid moves its clocks on 2026-03-29: that day has 23 hours.
    const hours =
      (endOfLocalDay('2026-03-29', 'Europe/Madrid').getTime() -
        startOfLocalDay('2026-03-29', 'Europe/Madrid').getTime()) /
      3_600_000;
    expect(hours).toBe(23);
  });
});
