import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Installment } from '../src/domain/installment';
import {
  isOpenEnded,
  OPEN_ENDED_HORIZON,
  OPEN_ENDED_INITIAL_PERIODS,
  topUpHorizon,
} from '../src/domain/open-ended';
import { staticSchedule } from '../src/domain/schedule';
import { completeIfFinished, type Subscription } from '../src/domain/subscription';

// The rolling horizon of an open-ended plan (`totalPeriods: null`): the 12 installments after the last one
// settled always exist, each new one in the plan's next month, on the terms as they are now.

const at = new Date('2026-01-20T12:00:00Z');

function openEnded(overrides: Partial<Subscription> = {}): Subscription {
  return {
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
    totalPeriods: null,
    dayOfMonth: 10,
    monthForSecondInstallment: 1,
    periodsScheduled: OPEN_ENDED_INITIAL_PERIODS,
    timezone: 'America/Asuncion',
    createdOn: '2026-01-15',
    createdAt: at,
    activatedAt: at,
    endedAt: null,
    paymentMethodId: 'card-1',
    processor: 'PARAGUAY.PROCESSOR_A',
    customerId: 5,
    ...overrides,
  };
}

/** The schedule an open-ended subscription is created with: installment 1 paid, 2..13 pending. */
function created(subscription = openEnded()): Installment[] {
  return staticSchedule(subscription.createdOn, {
    firstAmount: subscription.firstAmount,
    installmentAmount: subscription.installmentAmount as string,
    totalPeriods: OPEN_ENDED_INITIAL_PERIODS,
    dayOfMonth: subscription.dayOfMonth as number,
    monthForSecondInstallment: subscription.monthForSecondInstallment as number,
  }).map((planned) => ({
    ...planned,
    id: 100 + planned.number,
    subscriptionId: subscription.id,
    status: planned.number === 1 ? 'paid' : 'pending',
    invoiceNumber: null,
    paidAt: null,
  }));
}

function withStatus(installments: Installment[], number: number, status: Installment['status']) {
  return installments.map((installment) =>
    installment.number === number ? { ...installment, status } : installment,
  );
}

/** Stores a top-up as the store would: ids after the last. */
function stored(installments: Installment[], subscription: Subscription) {
  const topUp = topUpHorizon(subscription, installments);
  if (!topUp) return { installments, subscription };
  const lastId = Math.max(...installments.map((installment) => installment.id));
  return {
    subscription: topUp.subscription,
    installments: [
      ...installments,
      ...topUp.added.map((draft, index) => ({
        ...draft,
        id: lastId + index + 1,
        subscriptionId: subscription.id,
      })),
    ],
  };
}

describe('open-ended plans', () => {
  it('are STATIC plans without totalPeriods; a fixed plan and a DYNAMIC one are not', () => {
    expect(isOpenEnded(openEnded())).toBe(true);
    expect(isOpenEnded(openEnded({ totalPeriods: 12 }))).toBe(false);
    expect(isOpenEnded(openEnded({ type: 'DYNAMIC', installmentAmount: null }))).toBe(false);
  });

  it('start with installment 1 and the 12 months after it, which is the whole horizon', () => {
    const installments = created();
    expect(installments.map((installment) => installment.paymentDate)).toEqual([
      '2026-01-15',
      ...Array.from({ length: 12 }, (_, k) => {
        const month = 2 + k;
        return month <= 12 ? `2026-${String(month).padStart(2, '0')}-10` : '2027-01-10';
      }),
    ]);
    expect(topUpHorizon(openEnded(), installments)).toBeUndefined();
    expect(
      topUpHorizon(openEnded({ status: 'pending' }), withStatus(installments, 1, 'pending')),
    ).toBeUndefined();
  });

  it('add the next month once an installment is paid: numbered after the last, on the terms as they are', () => {
    const topUp = topUpHorizon(openEnded(), withStatus(created(), 2, 'paid'));
    expect(topUp?.added).toEqual([
      {
        number: 14,
        paymentDate: '2027-02-10',
        amount: '150000.00',
        status: 'pending',
        invoiceNumber: null,
        paidAt: null,
      },
    ]);
    expect(topUp?.subscription.periodsScheduled).toBe(14);
  });

  it('count failed and cancelled installments as settled, a processing one not yet', () => {
    expect(topUpHorizon(openEnded(), withStatus(created(), 3, 'failed'))?.added.map((i) => i.number)).toEqual(
      [14, 15],
    );
    expect(topUpHorizon(openEnded(), withStatus(created(), 5, 'cancelled'))?.added).toHaveLength(4);
    expect(topUpHorizon(openEnded(), withStatus(created(), 2, 'processing'))).toBeUndefined();
  });

  it('follow modify-all and modify-dates (the terms); v1 modify-by-amount and v2 edits of one installment change only it', () => {
    const terms = openEnded({ installmentAmount: '170000.00', dayOfMonth: 20 });
    const topUp = topUpHorizon(terms, withStatus(created(), 2, 'paid'));
    expect(topUp?.added.map((i) => [i.paymentDate, i.amount])).toEqual([['2027-02-20', '170000.00']]);

    // Installment 13 edited on its own: the plan's terms are what the next month follows.
    const edited = created().map((installment) =>
      installment.number === 13
        ? { ...installment, amount: '99000.00', paymentDate: '2027-01-25' }
        : installment,
    );
    expect(
      topUpHorizon(openEnded(), withStatus(edited, 2, 'paid'))?.added.map((i) => [i.paymentDate, i.amount]),
    ).toEqual([['2027-02-10', '150000.00']]);
  });

  it('number the installments a merchant added (v2) but keep the plan’s months', () => {
    const added: Installment = {
      id: 200,
      subscriptionId: 7,
      number: 14,
      paymentDate: '2026-03-01',
      amount: '5000.00',
      status: 'pending',
      invoiceNumber: null,
      paidAt: null,
    };
    const topUp = topUpHorizon(
      openEnded(),
      withStatus(withStatus([...created(), added], 2, 'paid'), 3, 'paid'),
    );
    // Two paid: 15 numbers wanted, 14 exist; the plan's next month is its 14th (February 2027).
    expect(topUp?.added.map((i) => [i.number, i.paymentDate])).toEqual([[15, '2027-02-10']]);
  });

  it('add nothing once cancelled or to a fixed plan', () => {
    const paid = withStatus(created(), 2, 'paid');
    expect(topUpHorizon(openEnded({ status: 'cancelled' }), paid)).toBeUndefined();
    expect(topUpHorizon(openEnded({ totalPeriods: 13, periodsScheduled: null }), paid)).toBeUndefined();
  });

  it('never complete, even with nothing left to collect', () => {
    const allPaid = created().map((installment) => ({ ...installment, status: 'paid' as const }));
    expect(completeIfFinished(openEnded(), allPaid, at).status).toBe('active');
    expect(completeIfFinished(openEnded({ totalPeriods: 13 }), allPaid, at).status).toBe('completed');
  });

  it('keep exactly 12 after the last settled, each number once, one month after another, whatever is settled', () => {
    const settle = fc.record({
      offset: fc.integer({ min: 0, max: OPEN_ENDED_HORIZON - 1 }),
      status: fc.constantFrom('paid' as const, 'failed' as const, 'cancelled' as const),
    });
    fc.assert(
      fc.property(fc.array(settle, { maxLength: 40 }), (steps) => {
        let state = { subscription: openEnded(), installments: created() };
        for (const step of steps) {
          // Settle one of the pending installments of the horizon, then top up as a change would.
          const pending = state.installments.filter((installment) => installment.status === 'pending');
          const target = pending[Math.min(step.offset, pending.length - 1)];
          if (!target) continue;
          state = stored(withStatus(state.installments, target.number, step.status), state.subscription);
        }
        const numbers = state.installments.map((installment) => installment.number);
        expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, k) => k + 1));
        const lastSettled = Math.max(
          1,
          ...state.installments.filter((i) => i.status !== 'pending').map((i) => i.number),
        );
        expect(numbers.length).toBe(lastSettled + OPEN_ENDED_HORIZON);
        const dates = state.installments.map((installment) => installment.paymentDate);
        expect(new Set(dates).size).toBe(dates.length);
        expect([...dates].sort()).toEqual(dates);
        expect(state.subscription.periodsScheduled).toBe(numbers.length);
      }),
    );
  });
});
