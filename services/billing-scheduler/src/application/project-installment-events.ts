import { type EventType, parseEvent } from '@payrail/contracts';
import type { IsoDate } from '@payrail/time';
import { type InstallmentState, stateAfterReport } from '../domain/due-installment';
import { nextSubscriptionStatus, type SubscriptionStatus } from '../domain/subscription-status';
import type { ProjectedInstallment, ProjectionStore } from '../ports/billing-store';

/** subscriptions' events that shape the projection of chargeable installments. */
export const PROJECTED_EVENTS = [
  'subscription.created',
  'subscription.activated',
  'subscription.completed',
  'subscription.cancelled',
  'subscription.past-due',
  'installments.scheduled',
  'installments.updated',
  'installments.cancelled',
  'installment.paid',
  'installment.failed',
] as const satisfies readonly EventType[];

interface Reported {
  installmentId: number;
  number: number;
  paymentDate: IsoDate;
  status: Parameters<typeof stateAfterReport>[0];
}

interface SubscriptionSnapshot {
  subscriptionId: number;
  merchantId: string;
  status: SubscriptionStatus;
  timezone: string;
}

async function recordSubscription(store: ProjectionStore, snapshot: SubscriptionSnapshot): Promise<void> {
  const current = await store.subscription(snapshot.subscriptionId);
  await store.saveSubscription({
    subscriptionId: snapshot.subscriptionId,
    merchantId: snapshot.merchantId,
    timezone: snapshot.timezone,
    status: nextSubscriptionStatus(current?.status, snapshot.status),
  });
}

/**
 * An installment as subscriptions now reports it. A new one waits for its payment date; a known one that
 * still waits for its first attempt moves with its payment date (a retry keeps its dunning day).
 */
function afterReport(
  current: ProjectedInstallment | undefined,
  reported: Reported,
  owner: { subscriptionId: number; merchantId: string },
): ProjectedInstallment {
  const state: InstallmentState = stateAfterReport(reported.status, current?.state);
  if (!current) {
    return {
      installmentId: reported.installmentId,
      subscriptionId: owner.subscriptionId,
      merchantId: owner.merchantId,
      number: reported.number,
      paymentDate: reported.paymentDate,
      dueOn: reported.paymentDate,
      attempt: 1,
      state,
      firstAttemptOn: null,
      lastRunId: null,
      lastAttemptOn: null,
    };
  }
  const waitsForFirstAttempt = current.attempt === 1 && state === 'scheduled';
  return {
    ...current,
    number: reported.number,
    paymentDate: reported.paymentDate,
    dueOn: waitsForFirstAttempt ? reported.paymentDate : current.dueOn,
    state,
  };
}

async function recordInstallments(
  store: ProjectionStore,
  owner: { subscriptionId: number; merchantId: string },
  reported: Reported[],
): Promise<void> {
  const known = new Map(
    (await store.installmentsForUpdate(reported.map((item) => item.installmentId).sort((a, b) => a - b))).map(
      (row) => [row.installmentId, row],
    ),
  );
  for (const item of reported) {
    await store.saveInstallment(afterReport(known.get(item.installmentId), item, owner));
  }
}

/** Applies one of subscriptions' events to the projection (inside the consumer's transaction). */
export async function projectInstallmentEvent(
  store: ProjectionStore,
  message: { type: string; body: string },
): Promise<void> {
  switch (message.type) {
    case 'subscription.created': {
      const { data } = parseEvent('subscription.created', message.body);
      await recordSubscription(store, data);
      await recordInstallments(
        store,
        data,
        data.installments.map((item) => ({ ...item, status: 'pending' as const })),
      );
      return;
    }
    case 'subscription.activated':
    case 'subscription.completed':
    case 'subscription.cancelled':
    case 'subscription.past-due': {
      const { data } = parseEvent(message.type, message.body);
      await recordSubscription(store, data);
      return;
    }
    case 'installments.scheduled':
    case 'installments.updated':
    case 'installments.cancelled': {
      const { data } = parseEvent(message.type, message.body);
      await recordSubscription(store, data);
      await recordInstallments(store, data, data.installments);
      return;
    }
    case 'installment.paid':
    case 'installment.failed': {
      const { data } = parseEvent(message.type, message.body);
      await recordInstallments(store, data, [data]);
      return;
    }
    default:
      throw new Error(`billing-scheduler does not project ${message.type}`);
  }
}
