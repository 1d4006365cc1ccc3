import type { EventData } from '@payrail/contracts';
import { OPEN_ENDED_INITIAL_PERIODS } from '../domain/open-ended';
import { dynamicSchedule, staticSchedule } from '../domain/schedule';
import type { Subscription } from '../domain/subscription';
import { activateWithPayment, paymentSourceOf } from './activate-subscription-on-payment';
import { subscriptionCreated } from './events';
import type { UseCaseDeps } from './deps';

/**
 * `link.created` of a recurrent link: a pending subscription with its schedule (STATIC: all of it; an
 * open-ended STATIC plan, `totalPeriods` null: installment 1 and the 12 months after it, its horizon;
 * DYNAMIC: installment 1 only). One-off links, and a link that already has its subscription, change
 * nothing. If the link's payment arrived first, the subscription is activated at once.
 */
export async function createSubscriptionFromLink(
  deps: UseCaseDeps,
  link: EventData<'link.created'>,
): Promise<Subscription | undefined> {
  const terms = link.recurrence;
  if (!terms) return undefined;
  const openEnded = terms.type === 'STATIC' && terms.totalPeriods === null;
  const at = deps.clock.now();
  return deps.stores.transaction(async (stores) => {
    // With the link's payment, if it comes at the same time: one of the two sees the other's row.
    await stores.earlyPayments.lockLink(link.merchantId, link.linkId);
    const subscription = await stores.subscriptions.insertSubscription({
      merchantId: link.merchantId,
      linkId: link.linkId,
      type: terms.type,
      status: 'pending',
      customIdentifier: link.customIdentifier || null,
      customIdentifier2: link.customIdentifier2 || null,
      currency: link.currency,
      firstAmount: link.amount,
      installmentAmount: terms.type === 'STATIC' ? terms.installmentAmount : null,
      totalPeriods: terms.type === 'STATIC' ? terms.totalPeriods : null,
      dayOfMonth: terms.type === 'STATIC' ? terms.dayOfMonth : null,
      monthForSecondInstallment: terms.type === 'STATIC' ? terms.monthForSecondInstallment : null,
      periodsScheduled: openEnded ? OPEN_ENDED_INITIAL_PERIODS : null,
      timezone: link.timezone,
      createdOn: link.createdOn,
      createdAt: new Date(link.createdAt),
      activatedAt: null,
      endedAt: null,
      paymentMethodId: null,
      processor: null,
      customerId: null,
    });
    if (!subscription) return undefined;
    const schedule =
      terms.type === 'STATIC'
        ? staticSchedule(link.createdOn, {
            ...terms,
            firstAmount: link.amount,
            totalPeriods: terms.totalPeriods ?? OPEN_ENDED_INITIAL_PERIODS,
          })
        : dynamicSchedule(link.createdOn, link.amount);
    const installments = await stores.installments.insertInstallments(
      subscription.id,
      schedule.map((planned) => ({ ...planned, status: 'pending', invoiceNumber: null, paidAt: null })),
      at,
    );
    await stores.outbox.enqueue([subscriptionCreated(subscription, installments, at)]);

    const earlyPayment = await stores.earlyPayments.takeEarlyPayment(link.merchantId, link.linkId);
    if (earlyPayment) {
      return activateWithPayment(
        stores,
        subscription,
        earlyPayment.paidAt,
        at,
        paymentSourceOf({ ...earlyPayment, ...earlyPayment.details }),
        earlyPayment.card,
      );
    }
    return subscription;
  });
}
