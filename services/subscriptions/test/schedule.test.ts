import { formatAmount, parseAmount } from '@payrail/money';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCalendarDate, localDate, monthOf, monthsBetween } from '@payrail/time';
import { debitDate, dynamicSchedule, moveToDayOfMonth, staticSchedule } from '../src/domain/schedule';

/** An independent oracle for "day D of the month N months after the date's month", through UTC Date arithmetic. */
function oracleDebitDate(createdOn: string, months: number, day: number): string {
  const [year, month] = createdOn.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month - 1 + months, day)).toISOString().slice(0, 10);
}

/** An independent oracle for the local calendar day: the platform's Intl time-zone data. */
function oracleLocalDate(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(instant);
}

const calendarDay = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10));

/** Amounts as clients send them: two-decimal strings, or JSON numbers (integers or up to two decimals). */
const minorUnits = fc.bigInt({ min: 1n, max: 10n ** 15n });
const amountInput = fc.oneof(
  minorUnits.map((minor) => formatAmount(minor)),
  fc.bigInt({ min: 1n, max: 10n ** 12n }).map((minor) => Number(formatAmount(minor))),
);

const staticTerms = fc.record({
  firstAmount: amountInput,
  installmentAmount: amountInput,
  totalPeriods: fc.integer({ min: 1, max: 120 }),
  dayOfMonth: fc.integer({ min: 1, max: 28 }),
  monthForSecondInstallment: fc.integer({ min: 0, max: 24 }),
});

describe('STATIC schedule (design section 4)', () => {
  it('has totalPeriods installments numbered 1..n; installment 1 is the link payment on the creation day', () => {
    fc.assert(
      fc.property(calendarDay, staticTerms, (createdOn, terms) => {
        const schedule = staticSchedule(createdOn, {
          ...terms,
          firstAmount: String(terms.firstAmount),
          installmentAmount: String(terms.installmentAmount),
        });
        expect(schedule).toHaveLength(terms.totalPeriods);
        expect(schedule.map((i) => i.number)).toEqual(
          Array.from({ length: terms.totalPeriods }, (_, k) => k + 1),
        );
        expect(schedule[0]).toEqual({
          number: 1,
          paymentDate: createdOn,
          amount: formatAmount(parseAmount(terms.firstAmount)),
        });
      }),
    );
  });

  it('puts installment k ≥ 2 on dayOfMonth of creation month + monthForSecondInstallment + (k − 2)', () => {
    fc.assert(
      fc.property(calendarDay, staticTerms, (createdOn, terms) => {
        const schedule = staticSchedule(createdOn, {
          ...terms,
          firstAmount: '1.00',
          installmentAmount: '1.00',
        });
        for (const installment of schedule.slice(1)) {
          const months = terms.monthForSecondInstallment + installment.number - 2;
          expect(installment.paymentDate).toBe(oracleDebitDate(createdOn, months, terms.dayOfMonth));
          expect(isCalendarDate(installment.paymentDate)).toBe(true);
          expect(Number(installment.paymentDate.slice(8))).toBe(terms.dayOfMonth);
          expect(monthsBetween(monthOf(createdOn), monthOf(installment.paymentDate))).toBe(months);
        }
      }),
    );
  });

  it('debits on consecutive months, dates strictly increasing from the 2nd on', () => {
    fc.assert(
      fc.property(calendarDay, staticTerms, (createdOn, terms) => {
        const debits = staticSchedule(createdOn, {
          ...terms,
          firstAmount: '1.00',
          installmentAmount: '1.00',
        }).slice(1);
        for (let k = 1; k < debits.length; k += 1) {
          const previous = debits[k - 1]?.paymentDate as string;
          const current = debits[k]?.paymentDate as string;
          expect(monthsBetween(monthOf(previous), monthOf(current))).toBe(1);
          expect(current > previous).toBe(true);
        }
      }),
    );
  });

  it('never puts a debit before the creation month, and puts it after the creation day whenever the offset is ≥ 1', () => {
    fc.assert(
      fc.property(calendarDay, staticTerms, (createdOn, terms) => {
        const debits = staticSchedule(createdOn, {
          ...terms,
          firstAmount: '1.00',
          installmentAmount: '1.00',
        }).slice(1);
        for (const installment of debits) {
          expect(monthsBetween(monthOf(createdOn), monthOf(installment.paymentDate))).toBeGreaterThanOrEqual(
            0,
          );
          if (terms.monthForSecondInstallment >= 1) expect(installment.paymentDate > createdOn).toBe(true);
        }
      }),
    );
  });

  it('keeps amounts exact: two-decimal strings, installmentAmount from the 2nd on, total = first + (n − 1) × installment', () => {
    fc.assert(
      fc.property(calendarDay, staticTerms, (createdOn, terms) => {
        const schedule = staticSchedule(createdOn, {
          ...terms,
          firstAmount: String(terms.firstAmount),
          installmentAmount: String(terms.installmentAmount),
        });
        const installment = parseAmount(terms.installmentAmount);
        for (const planned of schedule) expect(planned.amount).toMatch(/^\d+\.\d{2}$/);
        for (const planned of schedule.slice(1)) expect(parseAmount(planned.amount)).toBe(installment);
        const total = schedule.reduce((sum, planned) => sum + parseAmount(planned.amount), 0n);
        expect(total).toBe(parseAmount(terms.firstAmount) + BigInt(terms.totalPeriods - 1) * installment);
      }),
    );
  });

  it('refuses days the rule does not allow', () => {
    expect(() => debitDate('2026-01-15', { dayOfMonth: 29, monthForSecondInstallment: 0 }, 2)).toThrow(
      RangeError,
    );
    expect(() => debitDate('2026-01-15', { dayOfMonth: 0, monthForSecondInstallment: 0 }, 2)).toThrow(
      RangeError,
    );
    expect(() =>
      staticSchedule('2026-02-30', {
        firstAmount: '1',
        installmentAmount: '1',
        totalPeriods: 2,
        dayOfMonth: 1,
        monthForSecondInstallment: 0,
      }),
    ).toThrow(RangeError);
  });

  it('crosses year ends: created 2026-12-31 with offset 1 debits from January 2027', () => {
    const schedule = staticSchedule('2026-12-31', {
      firstAmount: '100',
      installmentAmount: '99.5',
      totalPeriods: 4,
      dayOfMonth: 28,
      monthForSecondInstallment: 1,
    });
    expect(schedule.map((i) => [i.paymentDate, i.amount])).toEqual([
      ['2026-12-31', '100.00'],
      ['2027-01-28', '99.50'],
      ['2027-02-28', '99.50'],
      ['2027-03-28', '99.50'],
    ]);
  });
});

describe('time zone at month edges', () => {
  const timeZones = [
    'America/Asuncion',
    'UTC',
    'America/Sao_Paulo',
    'America/New_York',
    'Europe/Madrid',
    'Asia/Kolkata',
    'Pacific/Kiritimati',
    'Pacific/Pago_Pago',
  ];

  /** Instants within 36 hours of a UTC month start, where the local month and the UTC month can differ. */
  const nearMonthEdge = fc
    .record({
      year: fc.integer({ min: 2000, max: 2090 }),
      month: fc.integer({ min: 0, max: 11 }),
      minutes: fc.integer({ min: -36 * 60, max: 36 * 60 }),
    })
    .map(({ year, month, minutes }) => new Date(Date.UTC(year, month, 1) + minutes * 60_000));

  it('dates the link payment on the local calendar day of the creation instant', () => {
    fc.assert(
      fc.property(nearMonthEdge, fc.constantFrom(...timeZones), (instant, timeZone) => {
        expect(localDate(instant, timeZone)).toBe(oracleLocalDate(instant, timeZone));
      }),
    );
  });

  it('counts the months of the schedule from the local month, not the UTC one', () => {
    fc.assert(
      fc.property(nearMonthEdge, fc.constantFrom(...timeZones), staticTerms, (instant, timeZone, terms) => {
        const createdOn = localDate(instant, timeZone);
        const schedule = staticSchedule(createdOn, {
          ...terms,
          totalPeriods: Math.max(2, terms.totalPeriods),
          firstAmount: '1',
          installmentAmount: '1',
        });
        const second = schedule[1]?.paymentDate as string;
        const local = oracleLocalDate(instant, timeZone);
        expect(schedule[0]?.paymentDate).toBe(local);
        expect(second).toBe(oracleDebitDate(local, terms.monthForSecondInstallment, terms.dayOfMonth));
      }),
    );
  });

  it('a link created 2026-01-31 23:30 in Asunción (already February 1 in UTC) debits from February with offset 1', () => {
    const instant = new Date('2026-02-01T02:30:00Z');
    expect(instant.toISOString().slice(0, 10)).toBe('2026-02-01');
    const createdOn = localDate(instant, 'America/Asuncion');
    expect(createdOn).toBe('2026-01-31');
    const schedule = staticSchedule(createdOn, {
      firstAmount: '250000',
      installmentAmount: '150000',
      totalPeriods: 3,
      dayOfMonth: 5,
      monthForSecondInstallment: 1,
    });
    expect(schedule.map((i) => i.paymentDate)).toEqual(['2026-01-31', '2026-02-05', '2026-03-05']);
    // Counting from the UTC date would have given March and April.
    expect(
      staticSchedule('2026-02-01', {
        firstAmount: '1',
        installmentAmount: '1',
        totalPeriods: 3,
        dayOfMonth: 5,
        monthForSecondInstallment: 1,
      }).map((i) => i.paymentDate),
    ).toEqual(['2026-02-01', '2026-03-05', '2026-04-05']);
  });

  it('a link created 2026-03-01 00:30 in Madrid (still February in UTC) counts from March', () => {
    const createdOn = localDate(new Date('2026-02-28T23:30:00Z'), 'Europe/Madrid');
    expect(createdOn).toBe('2026-03-01');
    expect(debitDate(createdOn, { dayOfMonth: 10, monthForSecondInstallment: 0 }, 2)).toBe('2026-03-10');
  });
});

describe('DYNAMIC schedule and debit-day moves', () => {
  it('DYNAMIC has installment 1 only, the link payment on the creation day', () => {
    fc.assert(
      fc.property(calendarDay, amountInput, (createdOn, amount) => {
        expect(dynamicSchedule(createdOn, String(amount))).toEqual([
          { number: 1, paymentDate: createdOn, amount: formatAmount(parseAmount(amount)) },
        ]);
      }),
    );
  });

  it('modify-dates keeps each installment in its own month, on the new day', () => {
    fc.assert(
      fc.property(calendarDay, fc.integer({ min: 1, max: 28 }), (paymentDate, day) => {
        const moved = moveToDayOfMonth(paymentDate, day);
        expect(moved.slice(0, 7)).toBe(paymentDate.slice(0, 7));
        expect(Number(moved.slice(8))).toBe(day);
      }),
    );
  });
});
