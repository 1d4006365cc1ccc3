import { PROCESSORS, type Processor } from '@payrail/contracts';
import { addMonths, dayIn, type IsoDate, localDate, monthOf } from '@payrail/time';
import { LinkStatus, type PaymentLink, statusAt } from './payment-link';

/** The pay page's name of a link status (`data-status` of `pay-status`). */
export type PayPageStatus = 'pending' | 'rejected' | 'paid' | 'expired' | 'cancelled';

/** A link's status as the customer sees it now: a link whose validity has passed is expired. */
export function payPageStatus(link: Pick<PaymentLink, 'statusId' | 'expiresAt'>, now: Date): PayPageStatus {
  switch (statusAt(link, now)) {
    case LinkStatus.PAID:
      return 'paid';
    case LinkStatus.EXPIRED:
      return 'expired';
    case LinkStatus.CANCELLED:
      return 'cancelled';
    case LinkStatus.LAST_ATTEMPT_REJECTED:
      return 'rejected';
    default:
      return 'pending';
  }
}

/** Whether the customer may pay now: pending, or the last attempt was rejected (spec: still payable). */
export function isPayable(link: Pick<PaymentLink, 'statusId' | 'expiresAt'>, now: Date): boolean {
  const status = payPageStatus(link, now);
  return status === 'pending' || status === 'rejected';
}

/**
 * Spec 1.8: the processors a customer may choose are the link's `paymentMethods` that the merchant has
 * enabled, in the merchant's order.
 */
export function processorsForLink(
  link: Pick<PaymentLink, 'paymentMethods'>,
  merchantProcessors: readonly string[],
): Processor[] {
  return PROCESSORS.filter(
    (processor) => merchantProcessors.includes(processor) && link.paymentMethods.includes(processor),
  );
}

/** What the link lets the customer choose: a one-off payment, a subscription (its recurrence), or both. */
export type PayOption = 'single' | 'subscription';

export function payOptions(
  link: Pick<PaymentLink, 'singlePayment' | 'recurrence' | 'creditAndDebitCard'>,
): PayOption[] {
  const options: PayOption[] = [];
  if (link.singlePayment || link.recurrence === null) options.push('single');
  // A subscription charges the customer's card again each month: only by card.
  if (link.recurrence !== null && link.creditAndDebitCard) options.push('subscription');
  return options;
}

/** One row of a subscription's schedule as the pay page shows it; installment 1 is today's payment. */
export interface ScheduledInstallment {
  number: number;
  /** `yyyy-MM-dd` in the merchant's time zone; null for installment 1 (paid now, on this page). */
  date: IsoDate | null;
  amount: string;
}

/**
 * How many installments of an open-ended plan (`totalPeriods: null`, every month until cancelled) the page
 * lists: the first payment and the 12 months after it, as many as subscriptions schedules at the start.
 */
export const OPEN_ENDED_ROWS = 13;

/**
 * The STATIC schedule (design 4): installment 1 is the link payment; installment k ≥ 2 falls on
 * `dayOfMonth` of the month `creation month + monthForSecondInstallment + (k − 2)`, in the merchant's
 * time zone. An open-ended plan has no last installment: its first `OPEN_ENDED_ROWS`.
 */
export function staticSchedule(
  link: Pick<PaymentLink, 'amount' | 'createdAt' | 'recurrence'>,
  timezone: string,
): ScheduledInstallment[] {
  const terms = link.recurrence;
  if (terms?.type !== 'STATIC') return [];
  const created = monthOf(localDate(link.createdAt, timezone));
  const rows: ScheduledInstallment[] = [{ number: 1, date: null, amount: link.amount }];
  const last = terms.totalPeriods ?? OPEN_ENDED_ROWS;
  for (let number = 2; number <= last; number++) {
    const month = addMonths(created, terms.monthForSecondInstallment + number - 2);
    rows.push({ number, date: dayIn(month, terms.dayOfMonth), amount: terms.installmentAmount });
  }
  return rows;
}

/** An installment's status as subscriptions keeps it. */
export type InstallmentState = 'pending' | 'processing' | 'paid' | 'failed' | 'cancelled';

/** A row of the schedule the page shows: an installment as it is now. */
export interface ScheduleRow extends ScheduledInstallment {
  status: InstallmentState;
}

/** The subscription's status, or null while subscriptions has not made it from the link yet. */
export type PlanStatus = 'pending' | 'active' | 'past_due' | 'completed' | 'cancelled' | null;

/** A subscription's schedule as the pay page shows it. */
export interface PageSchedule {
  type: 'STATIC' | 'DYNAMIC';
  status: PlanStatus;
  /** Every month until cancelled (`totalPeriods` null): the rows are the installments made so far. */
  openEnded: boolean;
  rows: ScheduleRow[];
}

/** What the subscription's part of the page says, by the link's and the subscription's state. */
export type ScheduleSituation =
  /** The link is payable: the plan the customer agrees to by subscribing. */
  | 'offer'
  /** The first payment is made; the card is debited on each date to come. */
  | 'collecting'
  | 'completed'
  | 'cancelled'
  /** Nothing to show: the link expired or was cancelled, or was paid without the subscription. */
  | 'none';

export function scheduleSituation(page: PayPageStatus, plan: PlanStatus): ScheduleSituation {
  if (page === 'pending' || page === 'rejected') return 'offer';
  if (page !== 'paid') return 'none';
  switch (plan) {
    case 'active':
    case 'past_due':
      return 'collecting';
    case 'completed':
      return 'completed';
    case 'cancelled':
      return 'cancelled';
    default:
      // No subscription, or one never activated: the link was paid as a one-off payment.
      return 'none';
  }
}

/** The plan as the link's terms make it, before subscriptions has made the subscription: nothing changed yet. */
export function scheduleAsCreated(
  link: Pick<PaymentLink, 'amount' | 'createdAt' | 'recurrence'>,
  timezone: string,
): PageSchedule | undefined {
  const terms = link.recurrence;
  if (!terms) return undefined;
  const rows =
    terms.type === 'STATIC'
      ? staticSchedule(link, timezone)
      : [{ number: 1, date: null, amount: link.amount }];
  return {
    type: terms.type,
    status: null,
    openEnded: terms.type === 'STATIC' && terms.totalPeriods === null,
    rows: rows.map((row) => ({ ...row, status: 'pending' })),
  };
}

/** The subscription as subscriptions answers for it (`SubscriptionOfLink` of libs/contracts). */
export interface CurrentSubscription {
  type: 'STATIC' | 'DYNAMIC';
  status: Exclude<PlanStatus, null>;
  totalPeriods: number | null;
  installments: Array<{ number: number; paymentDate: string; amount: string; status: InstallmentState }>;
}

/**
 * The plan as it is now: every installment with its current date, amount and status. Installment 1 is the
 * link payment: "today" while the link is payable, the day it was paid once it is.
 */
export function scheduleAsItIs(subscription: CurrentSubscription, paidOn: IsoDate | null): PageSchedule {
  return {
    type: subscription.type,
    status: subscription.status,
    openEnded: subscription.type === 'STATIC' && subscription.totalPeriods === null,
    rows: subscription.installments.map((installment) => ({
      number: installment.number,
      date: installment.number === 1 ? paidOn : (installment.paymentDate as IsoDate),
      amount: installment.amount,
      status: installment.number === 1 && paidOn ? 'paid' : installment.status,
    })),
  };
}

/**
 * Installments still to be debited after the first payment: pending, or being charged now. Paid and
 * cancelled ones are done; a failed one (dunning gave up) is not charged again automatically.
 */
export function rowsToCome(rows: readonly ScheduleRow[]): ScheduleRow[] {
  return rows.filter((row) => row.number > 1 && (row.status === 'pending' || row.status === 'processing'));
}
