import type { IsoDate } from '@payrail/time';
import { SubscriptionError } from './errors';
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
  installmentAmount: string | null;
  totalPeriods: number | null;
  dayOfMonth: number | null;
  monthForSecondInstallment: number | null;
  timezone: string;
  createdOn: IsoDate;
  createdAt: Date;
  activatedAt: Date | null;
  endedAt: Date | null;
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
    throw new SubscriptionError(
      'INVALID_STATE_TRANSITION',
      `Subscription ${subscription.id} cannot go from ${subscription.status} to ${to}`,
    );
  }
  return { ...subscription, status: to };
}

export function activate(subscription: Subscription, at: Date): Subscription {
  return { ...moveTo(subscription, 'active'), activatedAt: at };
}

export function cancelSubscription(subscription: Subscription, at: Date): Subscription {
  return { ...moveTo(subscription, 'cancelled'), endedAt: at };
}

/**
 * An active STATIC subscription with nothing left to collect is completed. A DYNAMIC one stays active:
 * its installments arrive by invoice over time, so having none pending today does not mean it is over
 * (it ends with cancel-all).
 */
export function completeIfFinished(
  subscription: Subscription,
  installments: Installment[],
  at: Date,
): Subscription {
  if (subscription.status !== 'active' || subscription.type !== 'STATIC') return subscription;
  if (installments.some(isOutstanding)) return subscription;
  return { ...moveTo(subscription, 'completed'), endedAt: at };
}

export function assertActive(subscription: Subscription): void {
  if (subscription.status !== 'active') {
    throw new SubscriptionError(
      'SUBSCRIPTION_NOT_ACTIVE',
      `The subscription is ${subscription.status}; installments can be added once the first payment is made`,
    );
  }
}
