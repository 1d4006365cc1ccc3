import { describe, expect, it } from 'vitest';
import { attemptTime, decideCharge } from '../src/domain/debit';
import type { Installment } from '../src/domain/installment';
import type { Subscription } from '../src/domain/subscription';

const now = new Date('2026-12-10T13:00:00Z');

const subscription: Subscription = {
  id: 7,
  merchantId: 'm',
  linkId: 70,
  type: 'STATIC',
  status: 'active',
  customIdentifier: 'CI-1',
  customIdentifier2: null,
  currency: 'PYG',
  firstAmount: '200000.00',
  installmentAmount: '150000.00',
  totalPeriods: 4,
  dayOfMonth: 10,
  monthForSecondInstallment: 1,
  periodsScheduled: null,
  timezone: 'America/Asuncion',
  createdOn: '2026-11-15',
  createdAt: now,
  activatedAt: now,
  endedAt: null,
  paymentMethodId: 'card-1',
  processor: 'PARAGUAY.PROCESSOR_A',
  customerId: 5,
};

const installment: Installment = {
  id: 71,
  subscriptionId: 7,
  number: 2,
  paymentDate: '2026-12-10',
  amount: '150000.00',
  status: 'pending',
  invoiceNumber: null,
  paidAt: null,
};

const facts = (overrides: Partial<Parameters<typeof decideCharge>[0]> = {}) =>
  decideCharge({
    subscription,
    installment,
    attempt: 1,
    asOf: '2026-12-10',
    attemptAlreadyRequested: false,
    cardAttemptsInWindow: [],
    now,
    ...overrides,
  });

const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000);

describe('decideCharge: is a due installment still chargeable?', () => {
  it('charges a pending installment of an active or past-due subscription, with its amount as it is now', () => {
    expect(facts()).toEqual({ kind: 'charge', paymentMethodId: 'card-1', amount: '150000.00' });
    expect(facts({ subscription: { ...subscription, status: 'past_due' } }).kind).toBe('charge');
    expect(facts({ installment: { ...installment, amount: '99000.50' } })).toMatchObject({
      amount: '99000.50',
    });
  });

  it('skips with the reason, in order: repeated attempt, not pending, subscription, not due, no card', () => {
    expect(
      facts({ attemptAlreadyRequested: true, installment: { ...installment, status: 'cancelled' } }),
    ).toEqual({
      kind: 'skip',
      reason: 'attempt-already-requested',
      retryOn: null,
    });
    for (const status of ['processing', 'paid', 'failed', 'cancelled'] as const) {
      expect(facts({ installment: { ...installment, status } })).toMatchObject({ reason: 'not-pending' });
    }
    for (const status of ['pending', 'completed', 'cancelled'] as const) {
      expect(facts({ subscription: { ...subscription, status } })).toMatchObject({
        reason: 'subscription-not-active',
      });
    }
    expect(facts({ installment: { ...installment, paymentDate: '2026-12-20' } })).toEqual({
      kind: 'skip',
      reason: 'not-due',
      retryOn: '2026-12-20',
    });
    expect(facts({ subscription: { ...subscription, paymentMethodId: null } })).toMatchObject({
      reason: 'no-payment-method',
    });
  });

  it('the card cap: 5 attempts in 24 hours allow a 6th; 6 do not, until the oldest of the last six turns 24 hours old (in the merchant’s day)', () => {
    const five = [20, 10, 5, 3, 1].map(hoursAgo);
    expect(facts({ cardAttemptsInWindow: five }).kind).toBe('charge');
    // Oldest of six 23 h ago: a slot frees in 1 h, 14:00 UTC = 11:00 in Asunción, the same day.
    const six = [23, 10, 5, 3, 2, 1].map(hoursAgo);
    expect(facts({ cardAttemptsInWindow: six })).toEqual({
      kind: 'skip',
      reason: 'card-attempt-cap',
      retryOn: '2026-12-10',
    });
    // Seven in the window: a slot frees when the second oldest (9 h ago) leaves it, in 15 h: 04:00 UTC on the
    // 11th, 01:00 on the 11th in Asunción (UTC−3).
    const seven = [23.5, 9, 8, 7, 6, 5, 4].map(hoursAgo);
    expect(facts({ cardAttemptsInWindow: seven })).toEqual({
      kind: 'skip',
      reason: 'card-attempt-cap',
      retryOn: '2026-12-11',
    });
  });

  it('the attempt’s time: the clock’s now for a run as of today or a past day, the start of the as-of day (merchant’s zone) for a future one', () => {
    // Production: a run is as of today (or a past day): the attempt is now.
    expect(attemptTime(now, '2026-12-10', 'America/Asuncion')).toEqual(now);
    expect(attemptTime(now, '2026-11-10', 'America/Asuncion')).toEqual(now);
    // Simulated time: as of 10 January, the attempt is at 00:00 that day in Asunción (03:00 UTC).
    expect(attemptTime(now, '2027-01-10', 'America/Asuncion')).toEqual(new Date('2027-01-10T03:00:00Z'));
    expect(attemptTime(now, '2027-01-10', 'UTC')).toEqual(new Date('2027-01-10T00:00:00Z'));
  });

  it('simulated months within one real day: the cap counts them months apart, so a card charged monthly is never capped', () => {
    // Twelve monthly runs made within a few real minutes, each as of the 10th of a later month.
    const attempts: Date[] = [];
    for (let month = 1; month <= 12; month += 1) {
      const asOf = `2027-${String(month).padStart(2, '0')}-10`;
      const at = attemptTime(new Date(now.getTime() + month * 60_000), asOf, subscription.timezone);
      const inWindow = attempts.filter((t) => t.getTime() > at.getTime() - 24 * 3_600_000);
      const decision = facts({
        asOf,
        installment: { ...installment, paymentDate: asOf },
        cardAttemptsInWindow: inWindow,
        now: at,
      });
      expect(decision.kind).toBe('charge');
      attempts.push(at);
    }
    // The real clock's minutes instead would put all twelve in one window: the 7th is capped.
    const byClock = [1, 2, 3, 4, 5, 6].map((minutes) => new Date(now.getTime() + minutes * 60_000));
    expect(facts({ cardAttemptsInWindow: byClock }).kind).toBe('skip');
  });
});
