import { describe, expect, it } from 'vitest';
import {
  BULK_LIMITS,
  bulkModifyInstallmentsRequest,
  createPaymentLinkRequest,
  DAY_OF_MONTH,
  isDayOfMonth,
  modifyDatesRequest,
  moneyString,
  recurrenceSchema,
} from '../src/index';

const staticLink = (dayOfMonth: number) => ({
  label: 'Monthly membership',
  amount: 200000,
  handleValue: '+595981123456',
  handleLabel: 'Ana',
  customIdentifier: 'CI-1',
  singlePayment: false,
  creditAndDebitCard: true,
  recurrentPayment: true,
  recurrentPaymentType: 'STATIC',
  installmentAmount: 150000,
  totalPeriods: 12,
  dayOfMonth,
  monthForSecondInstallment: 1,
});

describe('one home per spec rule', () => {
  it('dayOfMonth: link creation, v1 modify-dates, the link.created event and the domain check agree on every day', () => {
    expect(DAY_OF_MONTH).toEqual({ min: 1, max: 28 });
    for (let day = -1; day <= 32; day += 1) {
      const allowed = isDayOfMonth(day);
      expect(allowed).toBe(day >= 1 && day <= 28);
      expect(createPaymentLinkRequest.safeParse(staticLink(day)).success, `link, day ${day}`).toBe(allowed);
      expect(
        modifyDatesRequest.safeParse({ customIdentifier: 'CI-1', dayOfMonth: day }).success,
        `modify dates, day ${day}`,
      ).toBe(allowed);
      expect(
        recurrenceSchema.safeParse({
          type: 'STATIC',
          installmentAmount: '150000.00',
          totalPeriods: 12,
          dayOfMonth: day,
          monthForSecondInstallment: 1,
        }).success,
        `event, day ${day}`,
      ).toBe(allowed);
    }
    expect(isDayOfMonth(5.5)).toBe(false);
  });

  it('bulk: the schema holds at most BULK_LIMITS subscriptions and updates each', () => {
    const update = { payment_date: '2027-01-05', amount: 1 };
    const body = (subscriptions: number, updates: number) => ({
      operations: Array.from({ length: subscriptions }, (_, index) => ({
        custom_identifier: `CI-${index}`,
        updates: Array.from({ length: updates }, () => update),
      })),
    });
    const accepted = (subscriptions: number, updates: number) =>
      bulkModifyInstallmentsRequest.safeParse(body(subscriptions, updates)).success;
    expect(accepted(BULK_LIMITS.subscriptions, 1)).toBe(true);
    expect(accepted(BULK_LIMITS.subscriptions + 1, 1)).toBe(false);
    expect(accepted(1, BULK_LIMITS.updatesPerSubscription)).toBe(true);
    expect(accepted(1, BULK_LIMITS.updatesPerSubscription + 1)).toBe(false);
  });

  it('money on the wire: exactly two decimals, as formatAmount writes it', () => {
    for (const good of ['0.00', '150000.00', '-3.20']) expect(moneyString.safeParse(good).success).toBe(true);
    for (const bad of ['150000', '1.5', '1.505', '1e5', ' 1.00'])
      expect(moneyString.safeParse(bad).success).toBe(false);
  });
});
