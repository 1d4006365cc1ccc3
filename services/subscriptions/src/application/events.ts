import { type Currency, createEvent, type EventEnvelope } from '@payrail/contracts';
import { type ChangedField, changedFields, type Installment } from '../domain/installment';
import type { Subscription } from '../domain/subscription';

/** Builders of the events this service publishes (see README: events out). */

function subscriptionSnapshot(subscription: Subscription) {
  return {
    subscriptionId: subscription.id,
    merchantId: subscription.merchantId,
    linkId: subscription.linkId,
    type: subscription.type,
    status: subscription.status,
    customIdentifier: subscription.customIdentifier,
    customIdentifier2: subscription.customIdentifier2,
    currency: subscription.currency as Currency,
    timezone: subscription.timezone,
  };
}

function installmentSnapshot(subscription: Subscription, installment: Installment) {
  return {
    merchantId: subscription.merchantId,
    subscriptionId: subscription.id,
    installmentId: installment.id,
    number: installment.number,
    paymentDate: installment.paymentDate,
    amount: installment.amount,
    currency: subscription.currency as Currency,
    status: installment.status,
    invoiceNumber: installment.invoiceNumber,
    timezone: subscription.timezone,
  };
}

export function subscriptionCreated(subscription: Subscription, installments: Installment[], at: Date): EventEnvelope {
  return createEvent(
    'subscription.created',
    {
      ...subscriptionSnapshot(subscription),
      status: 'pending',
      installments: installments.map((installment) => ({
        installmentId: installment.id,
        number: installment.number,
        paymentDate: installment.paymentDate,
        amount: installment.amount,
      })),
    },
    at,
  );
}

/** The event for a subscription that moved to another status, if it did. */
export function subscriptionStatusChanged(before: Subscription, after: Subscription, at: Date): EventEnvelope[] {
  if (before.status === after.status) return [];
  switch (after.status) {
    case 'active':
      return [
        createEvent(
          'subscription.activated',
          { ...subscriptionSnapshot(after), activatedAt: (after.activatedAt ?? at).toISOString() },
          at,
        ),
      ];
    case 'completed':
      return [createEvent('subscription.completed', subscriptionSnapshot(after), at)];
    case 'cancelled':
      return [createEvent('subscription.cancelled', subscriptionSnapshot(after), at)];
    default:
      return [];
  }
}

export function installmentScheduled(subscription: Subscription, installment: Installment, at: Date): EventEnvelope {
  return createEvent('installment.scheduled', installmentSnapshot(subscription, installment), at);
}

/** `installment.cancelled`, `installment.paid` or `installment.updated`, as the change was; none when nothing changed. */
export function installmentChanged(
  subscription: Subscription,
  before: Installment,
  after: Installment,
  at: Date,
): EventEnvelope[] {
  if (before.status !== after.status) {
    if (after.status === 'cancelled') return [createEvent('installment.cancelled', installmentSnapshot(subscription, after), at)];
    if (after.status === 'paid') {
      return [
        createEvent(
          'installment.paid',
          { ...installmentSnapshot(subscription, after), paidAt: (after.paidAt ?? at).toISOString() },
          at,
        ),
      ];
    }
    throw new Error(`No event for an installment going from ${before.status} to ${after.status}`);
  }
  const fields: ChangedField[] = changedFields(before, after);
  if (fields.length === 0) return [];
  return [createEvent('installment.updated', { ...installmentSnapshot(subscription, after), changedFields: fields }, at)];
}
