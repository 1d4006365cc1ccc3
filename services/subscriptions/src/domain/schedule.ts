import { DAY_OF_MONTH, isDayOfMonth } from '@payrail/contracts';
import { normalizeAmount } from '@payrail/money';
import { addMonths, dayIn, type IsoDate, monthOf } from '@payrail/time';

/** STATIC terms fixed at creation (spec 1.4). Amounts are two-decimal strings. */
export interface StaticTerms {
  /** The link payment: installment 1 (may differ from the rest, e.g. an enrolment fee). */
  firstAmount: string;
  /** Installments 2 and later. */
  installmentAmount: string;
  /** Including the first. */
  totalPeriods: number;
  /** 1..28, so that the day exists in every month. */
  dayOfMonth: number;
  /** 0 = the creation month, 1 = the next one, ... */
  monthForSecondInstallment: number;
}

export interface PlannedInstallment {
  number: number;
  paymentDate: IsoDate;
  amount: string;
}

/** Requests and events are validated against the same rule; this guards the schedule arithmetic itself. */
function assertDayOfMonth(dayOfMonth: number): void {
  if (!isDayOfMonth(dayOfMonth)) {
    throw new RangeError(
      `dayOfMonth must be an integer from ${DAY_OF_MONTH.min} to ${DAY_OF_MONTH.max}, got ${dayOfMonth}`,
    );
  }
}

/**
 * The date of installment `number` ≥ 2 (design section 4): `dayOfMonth` of the month
 * `creation month + monthForSecondInstallment + (number − 2)`. `createdOn` is the creation day in the
 * merchant's time zone, so a link created late on the 31st in Asunción counts from that month even when
 * it is already the 1st in UTC. With offset 0 and a day before the creation day, installment 2 falls
 * before the creation day: the rule says so, and such an installment is due as soon as it is active.
 */
export function debitDate(
  createdOn: IsoDate,
  terms: Pick<StaticTerms, 'dayOfMonth' | 'monthForSecondInstallment'>,
  number: number,
): IsoDate {
  assertDayOfMonth(terms.dayOfMonth);
  if (!Number.isInteger(number) || number < 2)
    throw new RangeError(`debit installments start at 2, got ${number}`);
  if (!Number.isInteger(terms.monthForSecondInstallment) || terms.monthForSecondInstallment < 0) {
    throw new RangeError('monthForSecondInstallment must be an integer >= 0');
  }
  return dayIn(addMonths(monthOf(createdOn), terms.monthForSecondInstallment + number - 2), terms.dayOfMonth);
}

/** The whole STATIC schedule: installment 1 is the link payment, dated the creation day. */
export function staticSchedule(createdOn: IsoDate, terms: StaticTerms): PlannedInstallment[] {
  if (!Number.isInteger(terms.totalPeriods) || terms.totalPeriods < 1) {
    throw new RangeError(`totalPeriods must be an integer >= 1, got ${terms.totalPeriods}`);
  }
  const installmentAmount = normalizeAmount(terms.installmentAmount);
  const schedule: PlannedInstallment[] = [
    { number: 1, paymentDate: createdOn, amount: normalizeAmount(terms.firstAmount) },
  ];
  for (let number = 2; number <= terms.totalPeriods; number += 1) {
    schedule.push({ number, paymentDate: debitDate(createdOn, terms, number), amount: installmentAmount });
  }
  return schedule;
}

/** DYNAMIC: only the link payment; the rest arrive by invoice (`POST /api/subscriptions/installments`). */
export function dynamicSchedule(createdOn: IsoDate, firstAmount: string): PlannedInstallment[] {
  monthOf(createdOn);
  return [{ number: 1, paymentDate: createdOn, amount: normalizeAmount(firstAmount) }];
}

/** `modify-dates`: the same month, another day. */
export function moveToDayOfMonth(paymentDate: IsoDate, dayOfMonth: number): IsoDate {
  assertDayOfMonth(dayOfMonth);
  return dayIn(monthOf(paymentDate), dayOfMonth);
}
