import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  instantOfLocalDateTime,
  localDate,
  localDateTime,
  localDateTimeWithOffset,
  localDateTimeWithOffsetWriter,
  sameLocalDay,
} from '../src/index';

const ASUNCION = 'America/Asuncion';

describe('wall-clock time in a zone', () => {
  it('writes an instant as a clock on the wall of the zone reads it (`yyyy-MM-dd HH:mm:ss`, 24 hours)', () => {
    expect(localDateTime(new Date('2026-11-23T14:05:09Z'), ASUNCION)).toBe('2026-11-23 11:05:09');
    expect(localDateTime(new Date('2026-01-01T02:00:00Z'), ASUNCION)).toBe('2025-12-31 23:00:00');
    expect(localDateTime(new Date('2026-06-01T03:00:00Z'), ASUNCION)).toBe('2026-06-01 00:00:00');
    expect(localDateTime(new Date('2026-06-01T03:00:00Z'), 'Asia/Kolkata')).toBe('2026-06-01 08:30:00');
  });

  it('reads back every time it writes, in zones with and without changes of offset', () => {
    const zones = [ASUNCION, 'Europe/Madrid', 'Asia/Kolkata', 'UTC'];
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1) / 1000, max: Date.UTC(2040, 0, 1) / 1000 }),
        fc.constantFrom(...zones),
        (seconds, zone) => {
          const instant = new Date(seconds * 1000);
          const back = instantOfLocalDateTime(localDateTime(instant, zone), zone);
          // An hour a year repeats where clocks go back: the wall time then stands for either instant.
          const slack = Math.abs((back?.getTime() ?? Number.NaN) - instant.getTime());
          return slack === 0 || slack === 3_600_000;
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('reads a wall time on the day Asunción put its clocks back by the offset that day really had', () => {
    // 2016-03-27 00:00 -03 became 2016-03-26 23:00 -04: 00:19 that day was on -04 only.
    expect(instantOfLocalDateTime('2016-03-27 00:19:22', ASUNCION)?.toISOString()).toBe(
      '2016-03-27T04:19:22.000Z',
    );
    // 2016-10-02 00:00 -04 became 01:00 -03.
    expect(instantOfLocalDateTime('2016-10-02 01:27:42', ASUNCION)?.toISOString()).toBe(
      '2016-10-02T04:27:42.000Z',
    );
  });

  it('takes a `T` for the space and a time without seconds, and nothing else', () => {
    expect(instantOfLocalDateTime('2026-11-23T11:05', ASUNCION)?.toISOString()).toBe(
      '2026-11-23T14:05:00.000Z',
    );
    expect(instantOfLocalDateTime(' 2026-11-23 11:05:09 ', ASUNCION)?.toISOString()).toBe(
      '2026-11-23T14:05:09.000Z',
    );
    for (const text of ['2026-11-23', '23/11/2026 11:05', '2026-11-23 11:05:09Z', 'soon', '']) {
      expect(instantOfLocalDateTime(text, ASUNCION), text).toBeUndefined();
    }
  });

  it('tells whether two instants are on the same day of the zone', () => {
    const late = new Date('2026-11-24T02:30:00Z'); // 23:30 on the 23rd in Asunción
    const early = new Date('2026-11-23T03:00:00Z'); // 00:00 on the 23rd
    expect(sameLocalDay(late, early, ASUNCION)).toBe(true);
    expect(sameLocalDay(late, early, 'UTC')).toBe(false);
    expect(sameLocalDay(late, new Date('2026-11-24T03:00:00Z'), ASUNCION)).toBe(false);
    expect(localDate(late, ASUNCION)).toBe('2026-11-23');
  });
});

describe('localDateTimeWithOffsetWriter', () => {
  it('writes what localDateTimeWithOffset writes, across offset changes and odd offsets', () => {
    for (const zone of [
      'America/Asuncion',
      'UTC',
      'Asia/Kathmandu',
      'Australia/Lord_Howe',
      'America/St_Johns',
    ]) {
      const write = localDateTimeWithOffsetWriter(zone);
      const mismatches: string[] = [];
      // Every ~8 h 40 min over about 4 years: both sides of every change of offset of these zones.
      for (let index = 0; index < 4_000; index += 1) {
        const instant = new Date(Date.UTC(2024, 0, 1) + index * 31_111_111);
        const expected = localDateTimeWithOffset(instant, zone);
        if (write(instant) !== expected)
          mismatches.push(`${zone} ${instant.toISOString()}: ${write(instant)} ≠ ${expected}`);
      }
      expect(mismatches).toEqual([]);
    }
  }, 60_000);

  it('writes any instant from 1990 on as the formatter does (leap days, centuries, every zone kind)', () => {
    const zones = ['America/Asuncion', 'UTC', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/New_York'];
    const writers = new Map(zones.map((zone) => [zone, localDateTimeWithOffsetWriter(zone)]));
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        // 1990-01-01 to 2200-12-31, whole milliseconds: 2000 and 2096 leap, 2100 not.
        fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2200, 11, 31, 23, 59, 59, 999) }),
        (zone, millis) => {
          const instant = new Date(millis);
          expect(writers.get(zone)?.(instant)).toBe(localDateTimeWithOffset(instant, zone));
        },
      ),
      { numRuns: 3_000 },
    );
    const write = localDateTimeWithOffsetWriter('UTC');
    for (const text of [
      '2000-02-29T23:59:59',
      '2100-02-28T23:59:59',
      '2100-03-01T00:00:00',
      '2024-12-31T23:59:59',
    ])
      expect(write(new Date(`${text}Z`))).toBe(`${text}Z`);
  }, 60_000);

  it('writes whole seconds with the offset of the instant', () => {
    const write = localDateTimeWithOffsetWriter('America/Asuncion');
    expect(write(new Date('2026-11-23T12:00:59.999Z'))).toBe('2026-11-23T09:00:59-03:00');
    expect(localDateTimeWithOffsetWriter('UTC')(new Date('2026-11-23T12:00:00Z'))).toBe(
      '2026-11-23T12:00:00Z',
    );
    expect(localDateTimeWithOffsetWriter('Asia/Kathmandu')(new Date('2026-11-23T12:00:00Z'))).toBe(
      '2026-11-23T17:45:00+05:45',
    );
  });
});
