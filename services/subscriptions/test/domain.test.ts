import { describe, expect, it } from 'vitest';
import { assembleBulkResult, type BulkOperation, planBulk } from '../src/domain/bulk';
import { SubscriptionError } from '../src/domain/errors';
import { criteriaOf, singleMatch } from '../src/domain/identifiers';
import { canMoveTo, cancelAfterDecline, type Installment } from '../src/domain/installment';
import {
  planAdditions,
  planCancelAll,
  planCancelByAmount,
  planCancelByInvoice,
  planModifyAll,
  planMoveToDay,
} from '../src/domain/operations';
import {
  activate,
  cancelSubscription,
  completeIfFinished,
  type Subscription,
} from '../src/domain/subscription';

const at = new Date('2026-01-20T12:00:00Z');

function aSubscription(overrides: Partial<Subscription> = {}): Subscription {
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
    totalPeriods: 4,
    dayOfMonth: 10,
    monthForSecondInstallment: 1,
    periodsScheduled: null,
    timezone: 'America/Asuncion',
    createdOn: '2026-01-15',
    createdAt: at,
    activatedAt: at,
    endedAt: null,
    paymentMethodId: null,
    processor: null,
    customerId: null,
    ...overrides,
  };
}

function anInstallment(number: number, overrides: Partial<Installment> = {}): Installment {
  return {
    id: 100 + number,
    subscriptionId: 7,
    number,
    paymentDate: number === 1 ? '2026-01-15' : `2026-${String(number).padStart(2, '0')}-10`,
    amount: number === 1 ? '200000.00' : '150000.00',
    status: number === 1 ? 'paid' : 'pending',
    invoiceNumber: null,
    paidAt: null,
    ...overrides,
  };
}

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    if (error instanceof SubscriptionError) return error.code;
    throw error;
  }
  return undefined;
}

const schedule = [1, 2, 3, 4].map((n) => anInstallment(n));

describe('state machines', () => {
  it('installments: pending → processing → paid | pending (declined) | failed, pending → cancelled | failed, failed → paid | processing (the customer’s new card) only, nothing out of paid or cancelled', () => {
    expect(canMoveTo('pending', 'processing')).toBe(true);
    expect(canMoveTo('processing', 'paid')).toBe(true);
    expect(canMoveTo('processing', 'pending')).toBe(true);
    expect(canMoveTo('processing', 'failed')).toBe(true);
    expect(canMoveTo('pending', 'cancelled')).toBe(true);
    expect(canMoveTo('pending', 'failed')).toBe(true);
    expect(canMoveTo('processing', 'cancelled')).toBe(false);
    expect(canMoveTo('failed', 'paid')).toBe(true);
    expect(canMoveTo('failed', 'processing')).toBe(true);
    for (const to of ['pending', 'failed', 'cancelled'] as const) expect(canMoveTo('failed', to)).toBe(false);
    for (const final of ['paid', 'cancelled'] as const) {
      for (const to of ['pending', 'processing', 'paid', 'failed', 'cancelled'] as const)
        expect(canMoveTo(final, to)).toBe(false);
    }
  });

  it('a charge declined after its subscription was cancelled: processing → pending → cancelled (never straight), nothing out of paid, failed or cancelled', () => {
    const declined = cancelAfterDecline(anInstallment(2, { status: 'processing' }));
    expect(declined).toEqual(anInstallment(2, { status: 'cancelled' }));
    expect(cancelAfterDecline(anInstallment(3)).status).toBe('cancelled');
    for (const final of ['paid', 'failed', 'cancelled'] as const) {
      expect(codeOf(() => cancelAfterDecline(anInstallment(2, { status: final })))).toBe(
        'INVALID_STATE_TRANSITION',
      );
    }
  });

  it('subscriptions: pending → active → completed | cancelled; pending → cancelled', () => {
    const pending = aSubscription({ status: 'pending', activatedAt: null });
    expect(activate(pending, at).status).toBe('active');
    expect(cancelSubscription(pending, at)).toMatchObject({ status: 'cancelled', endedAt: at });
    expect(codeOf(() => activate(aSubscription(), at))).toBe('INVALID_STATE_TRANSITION');
    expect(codeOf(() => cancelSubscription(aSubscription({ status: 'completed' }), at))).toBe(
      'INVALID_STATE_TRANSITION',
    );
  });

  it('completes an active STATIC subscription with nothing outstanding, never a DYNAMIC one', () => {
    const done = schedule.map((i) => (i.number === 1 ? i : { ...i, status: 'cancelled' as const }));
    expect(completeIfFinished(aSubscription(), done, at)).toMatchObject({ status: 'completed', endedAt: at });
    expect(completeIfFinished(aSubscription({ type: 'DYNAMIC' }), done, at).status).toBe('active');
    const processing = done.map((i) => (i.number === 4 ? { ...i, status: 'processing' as const } : i));
    expect(completeIfFinished(aSubscription(), processing, at).status).toBe('active');
  });
});

describe('v1 operations', () => {
  it('cancel-by-amount takes the earliest first and compares amounts exactly', () => {
    const mixed = [...schedule, anInstallment(5, { paymentDate: '2026-02-01', amount: '150000' })];
    expect(planCancelByAmount(mixed, '150000.00', 2).map((i) => [i.number, i.status])).toEqual([
      [5, 'cancelled'],
      [2, 'cancelled'],
    ]);
    expect(codeOf(() => planCancelByAmount(schedule, '150000.01'))).toBe('NO_MATCHING_PENDING_INSTALLMENTS');
    expect(codeOf(() => planCancelByAmount(schedule, '150000.00', 4))).toBe(
      'NOT_ENOUGH_PENDING_INSTALLMENTS',
    );
  });

  it('never touches installment 1 except through cancel-all', () => {
    const unpaid = schedule.map((i) => ({ ...i, status: 'pending' as const }));
    expect(planModifyAll(unpaid, '1.00').map((i) => i.number)).toEqual([2, 3, 4]);
    expect(planCancelAll(unpaid).map((i) => i.number)).toEqual([1, 2, 3, 4]);
  });

  it('cancel-by-invoice is DYNAMIC only', () => {
    const invoiced = [anInstallment(1), anInstallment(2, { invoiceNumber: 'F-1' })];
    expect(codeOf(() => planCancelByInvoice(aSubscription(), invoiced, 'F-1'))).toBe(
      'SUBSCRIPTION_NOT_DYNAMIC',
    );
    expect(planCancelByInvoice(aSubscription({ type: 'DYNAMIC' }), invoiced, 'F-1')[0]?.status).toBe(
      'cancelled',
    );
    expect(codeOf(() => planCancelByInvoice(aSubscription({ type: 'DYNAMIC' }), invoiced, 'F-9'))).toBe(
      'INSTALLMENT_NOT_FOUND',
    );
  });

  it('modify-dates keeps each month', () => {
    expect(planMoveToDay(schedule, 28).map((i) => i.paymentDate)).toEqual([
      '2026-02-28',
      '2026-03-28',
      '2026-04-28',
    ]);
  });

  it('additions: numbered after the last, invoice required and unique for DYNAMIC, no past dates, active only', () => {
    const dynamic = aSubscription({ type: 'DYNAMIC' });
    const existing = [anInstallment(1), anInstallment(2, { invoiceNumber: 'F-1' })];
    expect(
      planAdditions(
        dynamic,
        existing,
        [{ paymentDate: '2026-05-01', amount: '1.00', invoiceNumber: 'F-2' }],
        '2026-01-20',
      ),
    ).toEqual([
      {
        number: 3,
        paymentDate: '2026-05-01',
        amount: '1.00',
        status: 'pending',
        invoiceNumber: 'F-2',
        paidAt: null,
      },
    ]);
    const add =
      (invoiceNumber: string | null, paymentDate = '2026-05-01', subscription = dynamic) =>
      () =>
        planAdditions(subscription, existing, [{ paymentDate, amount: '1.00', invoiceNumber }], '2026-01-20');
    expect(codeOf(add(null))).toBe('INVOICE_NUMBER_REQUIRED');
    expect(codeOf(add('F-1'))).toBe('INVOICE_NUMBER_TAKEN');
    expect(codeOf(add('F-3', '2026-01-19'))).toBe('PAYMENT_DATE_IN_PAST');
    expect(codeOf(add('F-3', '2026-01-20'))).toBeUndefined();
    expect(codeOf(add('F-3', '2026-05-01', aSubscription({ type: 'DYNAMIC', status: 'pending' })))).toBe(
      'SUBSCRIPTION_NOT_ACTIVE',
    );
    expect(codeOf(add(null, '2026-05-01', aSubscription()))).toBeUndefined();
  });
});

describe('lookup by identifiers', () => {
  it('treats empty identifiers as absent; none is not found, two are ambiguous', () => {
    expect(criteriaOf('', '')).toEqual({ customIdentifier: null, customIdentifier2: null, linkId: null });
    expect(codeOf(() => singleMatch([]))).toBe('SUBSCRIPTION_NOT_FOUND');
    expect(codeOf(() => singleMatch([aSubscription(), aSubscription({ id: 8 })]))).toBe(
      'MULTIPLE_SUBSCRIPTIONS_MATCH',
    );
  });
});

describe('bulk planning and result', () => {
  const operations: BulkOperation[] = [
    {
      customIdentifier: 'A',
      customIdentifier2: null,
      updates: [{ paymentDate: '2026-02-10', amount: '1.00' }],
    },
    {
      customIdentifier: null,
      customIdentifier2: '',
      updates: [{ paymentDate: '2026-02-10', amount: '2.00' }],
    },
    { customIdentifier: 'B', customIdentifier2: null, updates: [] },
    // Names subscription 7 again: its 2026-02-10 is now named twice.
    {
      customIdentifier: 'A2',
      customIdentifier2: null,
      updates: [
        { paymentDate: '2026-02-10', amount: '3.00' },
        { paymentDate: '2026-03-10', amount: '4.00' },
      ],
    },
  ];
  const matches = new Map([
    [0, [aSubscription()]],
    [2, []],
    [3, [aSubscription()]],
  ]);

  it('resolves each operation and refuses dates named twice for one subscription', () => {
    const plan = planBulk(operations, matches);
    expect(plan.resolutions.map((r) => (r.kind === 'found' ? r.subscription.id : r.code))).toEqual([
      7,
      'IDENTIFIER_REQUIRED',
      'SUBSCRIPTION_NOT_FOUND',
      7,
    ]);
    expect(plan.keys).toEqual([[0], [1], [], [2, 3]]);
    expect(plan.updates).toEqual([{ key: 3, subscriptionId: 7, paymentDate: '2026-03-10', amount: '4.00' }]);
    expect([...plan.refused]).toEqual([
      [0, 'DUPLICATE_DATE_IN_REQUEST'],
      [2, 'DUPLICATE_DATE_IN_REQUEST'],
    ]);
  });

  it('counts: processed = subscriptions found; every update either applied or failed', () => {
    const plan = planBulk(operations, matches);
    const result = assembleBulkResult(operations, plan, [
      {
        key: 3,
        pendingMatches: 1,
        allMatches: 1,
        updated: anInstallment(3, { amount: '4.00' }),
        previousAmount: '150000.00',
      },
    ]);
    expect(result.summary).toEqual({
      subscriptionsReceived: 4,
      subscriptionsProcessed: 2,
      updatesApplied: 1,
      updatesFailed: 3,
    });
    expect(result.results.map((r) => r.status)).toEqual(['success', 'failed', 'failed', 'success']);
  });

  it('classifies what a date matched', () => {
    const plan = planBulk(
      [{ customIdentifier: 'A', customIdentifier2: null, updates: [{ paymentDate: 'd', amount: '1.00' }] }],
      new Map([[0, [aSubscription()]]]),
    );
    const outcome = (pendingMatches: number, allMatches: number) =>
      assembleBulkResult(
        [{ customIdentifier: 'A', customIdentifier2: null, updates: [{ paymentDate: 'd', amount: '1.00' }] }],
        plan,
        [{ key: 0, pendingMatches, allMatches }],
      ).results[0]?.updates[0]?.outcome;
    expect(outcome(0, 0)).toEqual({ kind: 'failed', code: 'INSTALLMENT_NOT_FOUND' });
    expect(outcome(0, 1)).toEqual({ kind: 'failed', code: 'INSTALLMENT_NOT_PENDING' });
    expect(outcome(2, 2)).toEqual({ kind: 'failed', code: 'DUPLICATE_PAYMENT_DATE' });
    expect(outcome(1, 1)).toEqual({ kind: 'failed', code: 'INSTALLMENT_NOT_PENDING' });
  });
});
