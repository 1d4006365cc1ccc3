import type { IsoDate } from '@payrail/time';
import { InvalidStateTransition, SubscriptionNotActive } from './errors';
import { type Installment, isOutstanding } from './installment';
import type { SubscriptionStatus, SubscriptionType } from './status';

export interface Subscription {
  id: number;
  merchantId: string;
  linkId: number;
  type: SubscriptionType;
  status: SubscriptionStatus;
  customIdentifier: string | null;
  customIdentifier2: string | null;
  currency: string;
  firstAmount: string;
  /** STATIC: the amount of installments 2 and later as it is now (`modify-all` changes it). */
  installmentAmount: string | null;
  /** STATIC: including the first; null: DYNAMIC, or an open-ended STATIC plan (every month until cancelled). */
  totalPeriods: number | null;
  /** The current debit day (`modify-dates` changes it); the day of the installments an open-ended plan adds. */
  dayOfMonth: number | null;
  monthForSecondInstallment: number | null;
  /**
   * Open-ended plans: how many of the plan's months have their installment so far (installment 1, the link
   * payment, is the first); the next one added falls in the month after. Null for every other subscription.
   */
  periodsScheduled: number | null;
  timezone: string;
  createdOn: IsoDate;
  createdAt: Date;
  activatedAt: Date | null;
  endedAt: Date | null;
  /** The card later installments are charged to (the vault's payment method); null: none to charge. */
  paymentMethodId: string | null;
  processor: string | null;
  /** The links service's customer who paid the first installment. */
  customerId: number | null;
}

/**
 * A STATIC plan with no `totalPeriods`: every month until cancelled (`totalPeriods: null` at creation). Its
 * installments live on a rolling horizon (`open-ended.ts`).
 */
export function isOpenEnded(subscription: Pick<Subscription, 'type' | 'totalPeriods'>): boolean {
  return subscription.type === 'STATIC' && subscription.totalPeriods === null;
}

/** Where a subscription's installments are charged: the card of its first payment, or a replacement. */
export interface PaymentCard {
  paymentMethodId: string;
  processor: string | null;
  customerId: number | null;
}

/**
 * `pending` until the first payment, then `active`, then `completed` or `cancelled`; `past_due` while an
 * installment failed after dunning, `active` again once it is paid.
 */
const NEXT: Record<SubscriptionStatus, readonly SubscriptionStatus[]> = {
  pending: ['active', 'cancelled'],
  active: ['past_due', 'completed', 'cancelled'],
  past_due: ['active', 'completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

function moveTo(subscription: Subscription, to: SubscriptionStatus): Subscription {
  if (!NEXT[subscription.status].includes(to)) {
    throw new InvalidStateTransition('Subscription', subscription.id, subscription.status, to);
  }
  return { ...subscription, status: to };
}

export function activate(
  subscription: Subscription,
  at: Date,
  card: PaymentCard | null = null,
): Subscription {
  return {
    ...moveTo(subscription, 'active'),
    activatedAt: at,
    paymentMethodId: card?.paymentMethodId ?? null,
    processor: card?.processor ?? null,
    customerId: card?.customerId ?? null,
  };
}

/** Statuses in which the merchant still manages the subscription and its installments are charged. */
export function isOpen(subscription: Subscription): boolean {
  return subscription.status === 'pending' || isCollecting(subscription);
}

/** Active, or past due (an installment failed, the others are still collected). */
export function isCollecting(subscription: Subscription): boolean {
  return subscription.status === 'active' || subscription.status === 'past_due';
}

/** Dunning gave up on an installment: the subscription is past due until it is paid. */
export function markPastDue(subscription: Subscription): Subscription {
  if (subscription.status === 'past_due') return subscription;
  return moveTo(subscription, 'past_due');
}

/**
 * A past-due subscription none of whose installments is `failed` any more (the failed one was paid later,
 * by a retry or a bank transfer) is active again.
 */
export function restoreIfSettled(subscription: Subscription, installments: Installment[]): Subscription {
  if (subscription.status !== 'past_due') return subscription;
  if (installments.some((installment) => installment.status === 'failed')) return subscription;
  return moveTo(subscription, 'active');
}

/** The card is gone from the vault: nothing to charge until a replacement. */
export function withoutCard(subscription: Subscription): Subscription {
  return { ...subscription, paymentMethodId: null, processor: null };
}

export function withCard(subscription: Subscription, card: PaymentCard): Subscription {
  return {
    ...subscription,
    paymentMethodId: card.paymentMethodId,
    processor: card.processor,
    customerId: card.customerId ?? subscription.customerId,
  };
}

export function cancelSubscription(subscription: Subscription, at: Date): Subscription {
  return { ...moveTo(subscription, 'cancelled'), endedAt: at };
}

/**
 * An active STATIC subscription with nothing left to collect is completed. A DYNAMIC one stays active:
 * its installments arrive by invoice over time, so having none pending today does not mean it is over
 * (it ends with cancel-all). So does an open-ended STATIC one (`totalPeriods` null): it never completes.
 */
export function completeIfFinished(
  subscription: Subscription,
  installments: Installment[],
  at: Date,
): Subscription {
  if (subscription.status !== 'active' || subscription.type !== 'STATIC') return subscription;
  if (isOpenEnded(subscription)) return subscription;
  if (installments.some(isOutstanding)) return subscription;
  return { ...moveTo(subscription, 'completed'), endedAt: at };
}

/** Adding installments needs the first payment made: an active or a past-due subscription. */
export function assertActive(subscription: Subscription): void {
  if (!isCollecting(subscription)) {
    throw new SubscriptionNotActive(subscription.status, 'add');
  }
}
