import { type EventType, INSTALLMENT_PAID_OTHERWISE, parseEvent } from '@payrail/contracts';
import type { IsoDate } from '@payrail/time';
import { type InstallmentState, stateAfterReport } from '../domain/due-installment';
import { nextSubscriptionStatus, type SubscriptionStatus } from '../domain/subscription-status';
import type { ProjectedInstallment } from '../ports/installment-projection';
import type { BatchedMessage, BillingStores } from '../ports/unit-of-work';

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

/**
 * What the projection's consumer is bound to: `PROJECTED_EVENTS`, with `installment.paid` narrowed to the
 * installments paid otherwise than by their automatic charge. A charge's success reaches us as its
 * `payment.succeeded` (`record-charge-outcome.ts`), which marks the installment paid already: its
 * `installment.paid` too would be a second delivery, inbox row and write for each charge, changing nothing.
 */
export const PROJECTED_ROUTING_KEYS = PROJECTED_EVENTS.map((type) =>
  type === 'installment.paid' ? INSTALLMENT_PAID_OTHERWISE : type,
);

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

async function recordSubscription(
  stores: Pick<BillingStores, 'subscriptions' | 'installments'>,
  snapshot: SubscriptionSnapshot,
): Promise<void> {
  const reported = {
    subscriptionId: snapshot.subscriptionId,
    merchantId: snapshot.merchantId,
    timezone: snapshot.timezone,
    status: snapshot.status,
  };
  // Locked (written first when new): two batches projecting events of one subscription at once would
  // otherwise both read "none", and the later commit would put back the earlier status (an activation
  // lost behind its own creation, seen at 10,000 subscriptions).
  const current = await stores.subscriptions.lockSubscription(reported);
  await stores.subscriptions.saveSubscription({
    ...reported,
    status: nextSubscriptionStatus(current.status, snapshot.status),
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

type Owner = { subscriptionId: number; merchantId: string };

/** The ids a report locks, in the order it locks them. */
function idsOf(reported: Reported[]): number[] {
  return reported.map((item) => item.installmentId).sort((a, b) => a - b);
}

/** What one report saves, each item against the rows as they were before the report. */
function afterReports(
  known: ReadonlyMap<number, ProjectedInstallment>,
  owner: Owner,
  reported: Reported[],
): ProjectedInstallment[] {
  return reported.map((item) => afterReport(known.get(item.installmentId), item, owner));
}

async function recordInstallments(
  stores: Pick<BillingStores, 'subscriptions' | 'installments'>,
  owner: Owner,
  reported: Reported[],
): Promise<void> {
  const known = new Map(
    (await stores.installments.installmentsForUpdate(idsOf(reported))).map(
      (row) => [row.installmentId, row] as const,
    ),
  );
  for (const installment of afterReports(known, owner, reported))
    await stores.installments.saveInstallment(installment);
}

/**
 * `recordInstallments` for each report, one after the other, in two statements: every row they name read
 * (locked report by report, in the order they come) and every row they save written at once.
 */
async function recordManyInstallments(
  stores: Pick<BillingStores, 'subscriptions' | 'installments'>,
  reports: Array<{ owner: Owner; reported: Reported[] }>,
): Promise<void> {
  if (reports.length === 0) return;
  const known = new Map(
    (
      await stores.installments.installmentsForUpdate(reports.flatMap((report) => idsOf(report.reported)))
    ).map((row) => [row.installmentId, row] as const),
  );
  const saved: ProjectedInstallment[] = [];
  for (const { owner, reported } of reports) {
    const rows = afterReports(known, owner, reported);
    for (const row of rows) known.set(row.installmentId, row);
    saved.push(...rows);
  }
  await stores.installments.saveInstallments(saved);
}

/** A paid or failed installment: what a batch records together. Every other event goes alone. */
function installmentReport(message: { type: string; body: string }) {
  if (message.type !== 'installment.paid' && message.type !== 'installment.failed') return undefined;
  const { data } = parseEvent(message.type, message.body);
  return { owner: data, reported: [data] };
}

/** Applies one of subscriptions' events to the projection (inside the consumer's transaction). */
export async function projectInstallmentEvent(
  stores: Pick<BillingStores, 'subscriptions' | 'installments'>,
  message: { type: string; body: string },
): Promise<void> {
  switch (message.type) {
    case 'subscription.created': {
      const { data } = parseEvent('subscription.created', message.body);
      await recordSubscription(stores, data);
      await recordInstallments(
        stores,
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
      await recordSubscription(stores, data);
      return;
    }
    case 'installments.scheduled':
    case 'installments.updated':
    case 'installments.cancelled': {
      const { data } = parseEvent(message.type, message.body);
      await recordSubscription(stores, data);
      await recordInstallments(stores, data, data.installments);
      return;
    }
    case 'installment.paid':
    case 'installment.failed': {
      const report = installmentReport(message);
      if (report) await recordInstallments(stores, report.owner, report.reported);
      return;
    }
    default:
      throw new Error(`billing-scheduler does not project ${message.type}`);
  }
}

/**
 * Applies a batch of subscriptions' events in the order given, as `projectInstallmentEvent` one after the
 * other would: each stretch of paid and failed installments together (`recordManyInstallments`), any other
 * event alone, in its own context, where it comes.
 */
export async function projectInstallmentEventBatch(
  stores: Pick<BillingStores, 'subscriptions' | 'installments'>,
  messages: BatchedMessage[],
): Promise<void> {
  let stretch: Array<{ owner: Owner; reported: Reported[] }> = [];
  for (const item of messages) {
    const report = installmentReport(item.message);
    if (report) {
      stretch.push(report);
      continue;
    }
    await recordManyInstallments(stores, stretch);
    stretch = [];
    await item.run(() => projectInstallmentEvent(stores, item.message));
  }
  await recordManyInstallments(stores, stretch);
}
