/**
 * The example story every documented example continues, in document order, for the demo merchant of a
 * fresh `npm start` on 2026-11-23. Numeric ids are the ones a fresh start gives (every sequence starts at
 * 1); the replay test (`test-e2e/examples-replay.e2e.test.ts`) pastes the examples in order and checks
 * that each answers as documented, values included.
 *
 * 1. Links 1–5 are created: 1 a single payment (paid later by bank transfer), 2 the STATIC membership
 *    (subscription 1, installments 1–12), 3 the DYNAMIC software contract (subscription 2, installment
 *    13), 4 a language course without identifiers (subscription 3, installments 14–16), 5 a signed-in
 *    user's invoice (cancelled).
 * 2. The customer pays links 2 and 3 on the pay page: subscriptions 1 and 2 become active.
 * 3. The membership's installments are changed step by step (`membershipInstallments`), the software
 *    contract gets two invoices (installments 17 and 18, the second cancelled by its invoice number),
 *    the course is cancelled as a whole before it was ever paid.
 * 4. Bank transfers pay link 1, installment 17 and the membership's installment 2.
 * 5. Webhook endpoints, the operator's API and billing follow.
 */

/** The story's day, in the merchant's time zone: installment 1 of each subscription falls on it. */
export const STORY_DAY = '2026-11-23';
/** The demo merchant of `npm start` (`DEMO_MERCHANT` of the gateway). */
export const DEMO_MERCHANT_ID = '5f0c6d1e-2b7a-4c59-9d3e-7a1b2c3d4e5f';
/** Where `npm start` serves the pay page (its `PUBLIC_BASE_URL`). */
export const STORY_BASE_URL = 'http://localhost:3000';

export const STORY_LINKS = { oneOff: 1, membership: 2, software: 3, course: 4, invoice: 5 } as const;
export const STORY_SUBSCRIPTIONS = { membership: 1, software: 2, course: 3 } as const;

/** The links the customer pays on the pay page before `GET /api/payrequests/{id}`. */
export const PAID_ON_PAY_PAGE = [STORY_LINKS.membership, STORY_LINKS.software] as const;

export const MEMBERSHIP = {
  customIdentifier: '4567890',
  customIdentifier2: 'CONTRACT-2026-117',
  firstAmount: 200000,
  installmentAmount: 150000,
  totalPeriods: 12,
  dayOfMonth: 5,
} as const;

export const SOFTWARE = {
  customIdentifier: '4567891',
  customIdentifier2: 'CONTRACT-2026-118',
  firstAmount: 87500,
  /** The installment made by its first payment. */
  firstInstallmentId: 13,
  /** The invoices `POST /api/subscriptions/installments` adds: installments 17 and 18. */
  invoices: [
    {
      installmentId: 17,
      number: 2,
      paymentDate: '2027-01-15',
      amount: 87500,
      invoiceNumber: 'F-001-0004521',
    },
    {
      installmentId: 18,
      number: 3,
      paymentDate: '2027-02-15',
      amount: 91200,
      invoiceNumber: 'F-001-0004522',
    },
  ],
} as const;

export const COURSE = { amount: 50000, dayOfMonth: 10, firstInstallmentId: 14 } as const;

/** Two decimals, as the API writes money in strings. */
export const money = (amount: number) => amount.toFixed(2);

/** `yyyy-MM-dd` of the given day of the month that is `months` after November 2026. */
function dayOfStoryMonth(months: number, day: number): string {
  const index = 2026 * 12 + 10 + months;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The course's installments 14–16 as created: 50000 each, the 1st on the story's day, then on the 10th. */
export const courseInstallments = [0, 1, 2].map((index) => ({
  installmentId: COURSE.firstInstallmentId + index,
  number: index + 1,
  paymentDate: index === 0 ? STORY_DAY : dayOfStoryMonth(index, COURSE.dayOfMonth),
  amount: COURSE.amount,
}));

/** What happens to the membership's installments, in document order. */
const MEMBERSHIP_STEPS = [
  'created',
  /** Link 2 paid on the pay page: installment 1 paid. */
  'firstPaid',
  /** `PATCH /api/subscriptions/installments/3`: 155000 on 2027-01-12. */
  'oneModified',
  /** `POST /api/subscriptions/installments/4/cancel`. */
  'oneCancelled',
  /** Bulk: installments 5 and 6 (2027-03-05, 2027-04-05) to 160000. */
  'bulk',
  /** Modify by amount: every pending 150000 to 165000. */
  'byAmount',
  /** Modify all: every pending one to 170000. */
  'all',
  /** Modify dates: every pending one to the 10th. */
  'dates',
  /** Installment 2 paid by a bank transfer. */
  'transfer',
] as const;
export type MembershipStep = (typeof MEMBERSHIP_STEPS)[number];

export interface StoryInstallment {
  installmentId: number;
  number: number;
  paymentDate: string;
  amount: number;
  status: 'pending' | 'paid' | 'cancelled';
}

/** The membership's installments 1–12 (ids 1–12) as they are once `after` happened. */
export function membershipInstallments(after: MembershipStep): StoryInstallment[] {
  const reached = (step: MembershipStep) => MEMBERSHIP_STEPS.indexOf(step) <= MEMBERSHIP_STEPS.indexOf(after);
  return Array.from({ length: MEMBERSHIP.totalPeriods }, (_, index) => {
    const number = index + 1;
    let amount: number = number === 1 ? MEMBERSHIP.firstAmount : MEMBERSHIP.installmentAmount;
    let day: number = MEMBERSHIP.dayOfMonth;
    let paymentDate = number === 1 ? STORY_DAY : dayOfStoryMonth(index, day);
    let status: StoryInstallment['status'] = 'pending';
    if (number === 1 && reached('firstPaid')) status = 'paid';
    if (number === 3 && reached('oneModified')) {
      amount = 155000;
      paymentDate = '2027-01-12';
    }
    if (number === 4 && reached('oneCancelled')) status = 'cancelled';
    const open = number > 1 && status === 'pending';
    if (open && (number === 5 || number === 6) && reached('bulk')) amount = 160000;
    if (open && amount === MEMBERSHIP.installmentAmount && reached('byAmount')) amount = 165000;
    if (open && reached('all')) amount = 170000;
    if (open && reached('dates')) {
      day = 10;
      paymentDate = dayOfStoryMonth(index, day);
    }
    if (number === 2 && reached('transfer')) status = 'paid';
    return { installmentId: number, number, paymentDate, amount, status };
  });
}

/** The installments a step changed: the pending ones from the 2nd on that differ from the step before. */
export function changedBy(step: MembershipStep): StoryInstallment[] {
  const before = membershipInstallments(MEMBERSHIP_STEPS[MEMBERSHIP_STEPS.indexOf(step) - 1] ?? step);
  return membershipInstallments(step).filter((installment, index) => {
    const previous = before[index];
    return (
      installment.number > 1 &&
      (installment.amount !== previous?.amount ||
        installment.paymentDate !== previous?.paymentDate ||
        installment.status !== previous?.status)
    );
  });
}

/** An installment as the v1 endpoints answer it. */
export const v1Installment = (installment: {
  installmentId: number;
  paymentDate: string;
  amount: number;
  status: string;
}) => ({
  installmentId: installment.installmentId,
  paymentDate: installment.paymentDate,
  amount: money(installment.amount),
  status: installment.status,
});

/**
 * The story's money movements as processor-gateway names them (its `txId`s: UUIDs, new in every run; the
 * replay learns each where an answer first shows it, the payments ledger's list). Link 1 is paid by the
 * bank transfer `TRF-2026-11-000123`, links 2 and 3 by card on the pay page (PARAGUAY.PROCESSOR_A).
 */
export const STORY_PAYMENTS = {
  oneOffTransfer: '0193b2a0-4c1d-7e2f-8a3b-4c5d6e7f8a01',
  membershipCard: '0193b29e-1a2b-7c3d-9e4f-5a6b7c8d9e02',
  softwareCard: '0193b29e-7f80-7a91-8b2c-3d4e5f6a7b03',
} as const;
