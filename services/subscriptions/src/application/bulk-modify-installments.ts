import type { EventEnvelope } from '@payrail/contracts';
import {
  type AmountUpdate,
  assembleBulkResult,
  type BulkOperation,
  type BulkResult,
  bulkCriteria,
  type DateMatch,
  planBulk,
} from '../domain/bulk';
import { amountsNotInCurrency } from '../domain/amounts';
import { AmountNotInCurrency } from '../domain/errors';
import type { Installment } from '../domain/installment';
import type { Subscription } from '../domain/subscription';
import { amountsUpdated } from './events';
import type { UseCaseDeps } from './deps';

/** About a quarter of a full request (200 × 60): enough slices to overlap, few enough statements. */
const UPDATES_PER_SLICE = 3_000;

/**
 * The updates in slices of about `size`, each subscription's updates in one slice (so one event each, as
 * when the request is applied whole), also when two operations name the same subscription.
 */
function slicesBySubscription(updates: AmountUpdate[], size: number): AmountUpdate[][] {
  const bySubscription = new Map<number, AmountUpdate[]>();
  for (const update of updates) {
    const list = bySubscription.get(update.subscriptionId);
    if (list) list.push(update);
    else bySubscription.set(update.subscriptionId, [update]);
  }
  const slices: AmountUpdate[][] = [];
  let current: AmountUpdate[] = [];
  for (const list of bySubscription.values()) {
    if (current.length >= size) {
      slices.push(current);
      current = [];
    }
    for (const update of list) current.push(update);
  }
  if (current.length > 0) slices.push(current);
  return slices;
}

/** One `installments.updated` per subscription, with every installment whose amount really changed. */
function eventsOf(matches: DateMatch[], subscriptions: Map<number, Subscription>, at: Date): EventEnvelope[] {
  const updatedBySubscription = new Map<
    number,
    Array<{ installment: Installment; previousAmount: string }>
  >();
  for (const match of matches) {
    if (!match.updated) continue;
    const list = updatedBySubscription.get(match.updated.subscriptionId) ?? [];
    list.push({ installment: match.updated, previousAmount: match.previousAmount ?? match.updated.amount });
    updatedBySubscription.set(match.updated.subscriptionId, list);
  }
  return [...updatedBySubscription].flatMap(([subscriptionId, updated]) =>
    amountsUpdated(subscriptions.get(subscriptionId) as Subscription, updated, at),
  );
}

/**
 * v2 `PATCH /api/subscriptions/installments/bulk` (spec 4.3). Set-based, a few statements whatever the
 * size: one to find and lock every subscription named, then per slice of about 3,000 updates (whole
 * subscriptions) one to apply its amounts (duplicate and unmatched dates detected in the same statement)
 * and one outbox insert with an `installments.updated` per subscription. The slices' statements are sent
 * together, so the database works on one while the events of the one before are built. All in one
 * transaction: a request that fails midway changes nothing.
 */
export async function bulkModifyInstallments(
  deps: UseCaseDeps,
  merchantId: string,
  operations: BulkOperation[],
): Promise<BulkResult> {
  return deps.stores.transaction(async (stores) => {
    const at = deps.clock.now();
    const matches = await stores.subscriptions.findOpenByCriteriaBulk(merchantId, bulkCriteria(operations));
    const plan = planBulk(operations, matches);
    // Amounts are checked against each subscription's currency before anything changes.
    const misfits = plan.resolutions.flatMap((resolution, index) =>
      resolution.kind === 'found'
        ? amountsNotInCurrency(
            resolution.subscription.currency,
            (operations[index]?.updates ?? []).map((update, position) => ({
              amount: update.amount,
              path: ['operations', index, 'updates', position, 'amount'],
            })),
          )
        : [],
    );
    if (misfits.length > 0) throw new AmountNotInCurrency(misfits);
    const subscriptionsById = new Map<number, Subscription>();
    for (const resolution of plan.resolutions) {
      if (resolution.kind === 'found')
        subscriptionsById.set(resolution.subscription.id, resolution.subscription);
    }
    // The updates in slices of whole subscriptions, every slice's statement sent at once (pipelined on the
    // transaction's connection): the events of a slice are built while the database updates the next.
    const slices = slicesBySubscription(plan.updates, UPDATES_PER_SLICE);
    const updating = slices.map((slice) => stores.installments.updateAmountsOnDates(slice, at));
    // Each is awaited below; none may reject unobserved meanwhile.
    for (const each of updating) each.catch(() => undefined);
    const dateMatches: DateMatch[] = [];
    const publishing: Array<Promise<void>> = [];
    for (const each of updating) {
      const matches = await each;
      for (const match of matches) dateMatches.push(match);
      const queued = stores.outbox.enqueue(eventsOf(matches, subscriptionsById, at));
      queued.catch(() => undefined);
      publishing.push(queued);
    }
    const result = assembleBulkResult(operations, plan, dateMatches);
    for (const each of publishing) await each;
    return result;
  });
}
