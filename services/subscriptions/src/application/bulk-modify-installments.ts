import type { EventEnvelope } from '@payrail/contracts';
import {
  assembleBulkResult,
  type BulkOperation,
  type BulkResult,
  bulkCriteria,
  type DateMatch,
  planBulk,
} from '../domain/bulk';
import type { Installment } from '../domain/installment';
import type { Subscription } from '../domain/subscription';
import { amountsUpdated } from './events';
import type { UseCaseDeps } from './deps';

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
 * v2 `PATCH /api/subscriptions/installments/bulk` (spec 4.3). A fixed number of statements whatever the
 * size: one to find and lock every subscription named, one to apply every amount (duplicate and unmatched
 * dates detected in the same statement), one outbox insert with an `installments.updated` per subscription.
 * All in one transaction: a request that fails midway changes nothing.
 */
export async function bulkModifyInstallments(
  deps: UseCaseDeps,
  merchantId: string,
  operations: BulkOperation[],
): Promise<BulkResult> {
  return deps.store.transaction(async (store) => {
    const at = deps.clock.now();
    const matches = await store.findOpenByCriteriaBulk(merchantId, bulkCriteria(operations));
    const plan = planBulk(operations, matches);
    const subscriptionsById = new Map<number, Subscription>();
    for (const resolution of plan.resolutions) {
      if (resolution.kind === 'found')
        subscriptionsById.set(resolution.subscription.id, resolution.subscription);
    }
    const dateMatches = await store.updateAmountsOnDates(plan.updates, at);
    const events = eventsOf(dateMatches, subscriptionsById, at);
    const publishing = store.publish(events);
    const result = assembleBulkResult(operations, plan, dateMatches);
    await publishing;
    return result;
  });
}
