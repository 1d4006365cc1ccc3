import {
  type BankTransferDetails,
  type Currency,
  createEvent,
  type DeclineCategory,
  type EventData,
  type EventEnvelope,
  type PaymentMethodKind,
} from '@payrail/contracts';
import { formatAmount, parseAmount } from '@payrail/money';
import { type ChangedField, changedFields, type Installment } from '../domain/installment';
import type { Subscription } from '../domain/subscription';

/**
 * Builders of the events this service publishes (README: events out). Merchant operations announce their
 * installments as one set per subscription (`installments.*`); a payment settles one (`installment.paid`).
 */

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

function installmentItem(installment: Installment) {
  return {
    installmentId: installment.id,
    number: installment.number,
    paymentDate: installment.paymentDate,
    amount: installment.amount,
    status: installment.status,
    invoiceNumber: installment.invoiceNumber,
  };
}

export function subscriptionCreated(
  subscription: Subscription,
  installments: Installment[],
  at: Date,
): EventEnvelope {
  return createEvent(
    'subscription.created',
    {
      ...subscriptionSnapshot(subscription),
      status: 'pending',
      totalPeriods: subscription.totalPeriods,
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

/** Why a subscription was cancelled: the merchant's cancel-all, or the merchant's dunning rule. */
export type CancelReason = EventData<'subscription.cancelled'>['reason'];

/** The event for a subscription that moved to another status, if it did. */
export function subscriptionStatusChanged(
  before: Subscription,
  after: Subscription,
  at: Date,
  cancelReason: CancelReason = 'merchant',
): EventEnvelope[] {
  if (before.status === after.status) return [];
  switch (after.status) {
    // First payment, or back from past due once the failed installment is paid (same event, same snapshot).
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
      return [
        createEvent('subscription.cancelled', { ...subscriptionSnapshot(after), reason: cancelReason }, at),
      ];
    // `subscription.past-due` names its installment: built by `installmentFailed`'s caller.
    default:
      return [];
  }
}

export function installmentsScheduled(
  subscription: Subscription,
  installments: Installment[],
  at: Date,
): EventEnvelope[] {
  if (installments.length === 0) return [];
  return [
    createEvent(
      'installments.scheduled',
      { ...subscriptionSnapshot(subscription), installments: installments.map(installmentItem) },
      at,
    ),
  ];
}

/**
 * Bulk: one `installments.updated` with the installments whose amount changed (each given with the amount
 * it had before); none when no amount changed.
 */
export function amountsUpdated(
  subscription: Subscription,
  updated: Array<{ installment: Installment; previousAmount: string }>,
  at: Date,
): EventEnvelope[] {
  const changed = updated.filter(({ installment, previousAmount }) => installment.amount !== previousAmount);
  if (changed.length === 0) return [];
  return [
    createEvent(
      'installments.updated',
      {
        ...subscriptionSnapshot(subscription),
        // Literals rather than spreads: a bulk request builds 12 000 of these.
        installments: changed.map(({ installment }) => ({
          installmentId: installment.id,
          number: installment.number,
          paymentDate: installment.paymentDate,
          amount: installment.amount,
          status: installment.status,
          invoiceNumber: installment.invoiceNumber,
          changedFields: ['amount' as const],
        })),
      },
      at,
    ),
  ];
}

export interface InstallmentChange {
  before: Installment;
  after: Installment;
}

/** How the money of a paid installment came, for its `installment.paid`: a card, a transfer, our charge. */
export interface PaymentSource {
  method: PaymentMethodKind;
  /** The bank's reference, when a transfer paid it. */
  bankReference: string | null;
  /** The automatic charge's attempt, when one paid it. */
  chargeAttempt?: number;
  /**
   * The money movement that paid it, as processor-gateway knows it: the charge's id (the automatic charge,
   * or the link payment's for installment 1), or the bank transfer's id.
   */
  txId?: string | null;
  /** A card payment: what the processor knows the charge by, and its authorization code. */
  processorReference?: string | null;
  authorizationCode?: string | null;
  /** A bank transfer: the transfer as the merchant notified it. */
  bankTransfer?: BankTransferDetails | null;
}

export const CARD_PAYMENT: PaymentSource = { method: 'CARD', bankReference: null };

/** What `installment.paid` tells of the whole subscription: its paid installments and their sum. */
export interface PaidTally {
  paidCount: number;
  paidTotal: string;
}

export function paidTally(installments: Installment[]): PaidTally {
  let total = 0n;
  let count = 0;
  for (const installment of installments) {
    if (installment.status !== 'paid') continue;
    count += 1;
    total += parseAmount(installment.amount);
  }
  return { paidCount: count, paidTotal: formatAmount(total) };
}

/**
 * The events for changes to installments of one subscription: one `installments.cancelled` with every
 * cancelled one, one `installments.updated` with every one whose amount or date changed, and an
 * `installment.paid` per paid one. A change to the value it already had announces nothing.
 */
export function installmentsChanged(
  subscription: Subscription,
  changes: InstallmentChange[],
  at: Date,
  payment: PaymentSource = CARD_PAYMENT,
  tally: PaidTally | null = null,
): EventEnvelope[] {
  const cancelled: Installment[] = [];
  const updated: Array<Installment & { changedFields: ChangedField[] }> = [];
  const events: EventEnvelope[] = [];
  for (const { before, after } of changes) {
    if (before.status !== after.status) {
      if (after.status === 'cancelled') cancelled.push(after);
      else if (after.status === 'paid') {
        events.push(
          createEvent(
            'installment.paid',
            {
              ...installmentItem(after),
              merchantId: subscription.merchantId,
              subscriptionId: subscription.id,
              currency: subscription.currency as Currency,
              timezone: subscription.timezone,
              paidAt: (after.paidAt ?? at).toISOString(),
              method: payment.method,
              bankReference: payment.bankReference,
              paidCount: tally?.paidCount ?? null,
              paidTotal: tally?.paidTotal ?? null,
              chargeAttempt: payment.chargeAttempt ?? null,
              txId: payment.txId ?? null,
              processorReference: payment.processorReference ?? null,
              authorizationCode: payment.authorizationCode ?? null,
              bankTransfer: payment.bankTransfer ?? null,
            },
            at,
          ),
        );
      } else if (after.status === 'processing' || after.status === 'pending' || after.status === 'failed') {
        // Charging, a declined attempt, dunning giving up: announced by the debit's own events.
      } else throw new Error(`No event for an installment going from ${before.status} to ${after.status}`);
      continue;
    }
    const fields = changedFields(before, after);
    if (fields.length > 0) updated.push({ ...after, changedFields: fields });
  }
  const snapshot = subscriptionSnapshot(subscription);
  if (cancelled.length > 0) {
    events.push(
      createEvent(
        'installments.cancelled',
        { ...snapshot, installments: cancelled.map(installmentItem) },
        at,
      ),
    );
  }
  if (updated.length > 0) {
    events.push(
      createEvent(
        'installments.updated',
        {
          ...snapshot,
          installments: updated.map((installment) => ({
            ...installmentItem(installment),
            changedFields: installment.changedFields,
          })),
        },
        at,
      ),
    );
  }
  return events;
}

/** What a skip for `not-pending` or `attempt-already-requested` says of the installment and the attempt. */
export type SkipState = Pick<
  EventData<'installment.charge-skipped'>,
  'installmentStatus' | 'attemptStatus' | 'declineCategory'
>;

export const NOTHING_KNOWN: SkipState = {
  installmentStatus: null,
  attemptStatus: null,
  declineCategory: null,
};

/**
 * subscriptions declined to charge what billing-scheduler said was due. A skip because it is no longer
 * pending or already requested says how things stand, so that a charge-due asked again after a lost answer
 * settles billing-scheduler's claim.
 */
export function chargeSkipped(
  due: EventData<'installment.charge-due'>,
  reason: EventData<'installment.charge-skipped'>['reason'],
  retryOn: string | null,
  at: Date,
  state: SkipState = NOTHING_KNOWN,
): EventEnvelope {
  return createEvent(
    'installment.charge-skipped',
    {
      runId: due.runId,
      merchantId: due.merchantId,
      subscriptionId: due.subscriptionId,
      installmentId: due.installmentId,
      attempt: due.attempt,
      reason,
      retryOn,
      ...state,
    },
    at,
  );
}

export function chargeRequested(
  subscription: Subscription,
  installment: Installment,
  attempt: number,
  idempotencyKey: string,
  paymentMethodId: string,
  at: Date,
): EventEnvelope {
  return createEvent(
    'charge.requested',
    {
      idempotencyKey,
      merchantId: subscription.merchantId,
      subscriptionId: subscription.id,
      installmentId: installment.id,
      attempt,
      paymentMethodId,
      amount: installment.amount,
      currency: subscription.currency as Currency,
    },
    at,
  );
}

/** Dunning gave up: the installment is `failed` (and the subscription `past_due`, `subscriptionPastDue`). */
export function installmentFailed(
  subscription: Subscription,
  installment: Installment,
  outcome: { attempts: number; declineCode: string | null; category: DeclineCategory | null },
  at: Date,
): EventEnvelope {
  return createEvent(
    'installment.failed',
    {
      ...installmentItem(installment),
      merchantId: subscription.merchantId,
      subscriptionId: subscription.id,
      currency: subscription.currency as Currency,
      timezone: subscription.timezone,
      failedAt: at.toISOString(),
      attempts: outcome.attempts,
      declineCode: outcome.declineCode,
      category: outcome.category,
    },
    at,
  );
}

export function subscriptionPastDue(
  subscription: Subscription,
  installmentId: number,
  at: Date,
): EventEnvelope {
  return createEvent(
    'subscription.past-due',
    { ...subscriptionSnapshot(subscription), installmentId, pastDueAt: at.toISOString() },
    at,
  );
}
