import type { EventEnvelope } from '@payrail/contracts';
import { changedFields, type Installment } from '../domain/installment';
import { completeIfFinished, restoreIfSettled, type Subscription } from '../domain/subscription';
import type { SubscriptionCriteria } from '../domain/identifiers';
import type { SubscriptionStores } from '../ports/unit-of-work';
import type { UseCaseDeps } from './deps';
import { findSubscriptionForUpdate } from './find-subscription';
import { topUpHorizon } from '../domain/open-ended';
import {
  type CancelReason,
  installmentsChanged,
  installmentsScheduled,
  type PaymentSource,
  paidTally,
  subscriptionStatusChanged,
} from './events';

export interface ChangeSet {
  subscription: Subscription;
  /** All the subscription's installments as read (locked through the subscription). */
  installments: Installment[];
  /** New versions of some of them. */
  changed: Installment[];
  /** The subscription after the operation itself (e.g. cancelled), before the completion rule. */
  nextSubscription?: Subscription;
  at: Date;
  /** How the installments it pays were paid (default: by card). */
  payment?: PaymentSource;
  /** Why, when the operation cancels the subscription (default: the merchant's cancel-all). */
  cancelReason?: CancelReason;
}

/** What a change set comes to, before anything is stored. */
export interface PlannedChanges {
  /** The installments that really change (a change to the value it already had is no change). */
  real: Array<{ before: Installment; after: Installment }>;
  /** The subscription after the completion and past-due rules; the one given when they change nothing. */
  subscription: Subscription;
  /** Every installment of the subscription, as the changes leave them. */
  installments: Installment[];
  /** Every change announced. */
  events: EventEnvelope[];
}

/**
 * The rules `applyChanges` stores, without a store: makes a past-due subscription active again once no
 * installment of it is failed, completes a STATIC subscription left with nothing to collect, and builds the
 * events announcing every change. Batches decide with it in memory and write many change sets at once.
 */
export function planChanges(changes: ChangeSet): PlannedChanges {
  const { subscription, installments, at } = changes;
  const byId = new Map(installments.map((installment) => [installment.id, installment]));
  const real = changes.changed
    .map((after) => ({ before: byId.get(after.id) as Installment, after }))
    .filter(({ before, after }) => before.status !== after.status || changedFields(before, after).length > 0);

  const updated = new Map(real.map(({ after }) => [after.id, after]));
  const afterAll = installments.map((installment) => updated.get(installment.id) ?? installment);
  const restored = restoreIfSettled(changes.nextSubscription ?? subscription, afterAll);
  const next = completeIfFinished(restored, afterAll, at);
  const events: EventEnvelope[] = [
    ...installmentsChanged(next, real, at, changes.payment, paidTally(afterAll)),
    ...subscriptionStatusChanged(subscription, next, at, changes.cancelReason),
  ];
  return { real, subscription: next, installments: afterAll, events };
}

/**
 * An open-ended subscription's horizon after a change (`topUpHorizon`): the installments it is missing
 * stored, announced as `installments.scheduled` (billing-scheduler and the gateway learn them from it), and
 * the subscription with its periods counted, to be saved by the caller. Nothing for any other subscription.
 * Runs under the subscription's row lock, so two writers never add the same installment; the unique
 * (subscription, number) would refuse it anyway.
 */
export async function scheduleHorizon(
  stores: SubscriptionStores,
  subscription: Subscription,
  installments: Installment[],
  at: Date,
): Promise<{ subscription: Subscription; added: Installment[]; events: EventEnvelope[] }> {
  const topUp = topUpHorizon(subscription, installments);
  if (!topUp) return { subscription, added: [], events: [] };
  const added = await stores.installments.insertInstallments(subscription.id, topUp.added, at);
  return {
    subscription: topUp.subscription,
    added,
    events: installmentsScheduled(topUp.subscription, added, at),
  };
}

/**
 * Stores changed installments and the subscription in one go, with the events announcing every change
 * (`planChanges`: past due back to active, a finished STATIC subscription completed), and tops up an
 * open-ended subscription's horizon (`scheduleHorizon`) with the terms as the change leaves them. Returns
 * the installments that really changed and the subscription as stored.
 */
export async function applyChanges(
  stores: SubscriptionStores,
  changes: ChangeSet,
): Promise<{ changed: Installment[]; subscription: Subscription }> {
  const { real, subscription: planned, installments, events } = planChanges(changes);
  await stores.installments.saveInstallments(real, changes.at);
  const horizon = await scheduleHorizon(stores, planned, installments, changes.at);
  const next = horizon.subscription;
  if (next !== changes.subscription) await stores.subscriptions.saveSubscription(next);
  await stores.outbox.enqueue([...events, ...horizon.events]);
  return { changed: real.map(({ after }) => after), subscription: next };
}

/** What an identifier-based operation decides, given the locked subscription and its installments. */
export type ChangePlan = (
  subscription: Subscription,
  installments: Installment[],
  at: Date,
) => { changed: Installment[]; nextSubscription?: Subscription };

/**
 * The shape every v1 operation shares: find and lock the merchant's subscription by its identifiers,
 * read its installments, let the operation plan its changes, apply them with their events, in one
 * transaction. Returns the installments that really changed.
 */
export async function changeSubscriptionByIdentifiers(
  deps: UseCaseDeps,
  merchantId: string,
  criteria: SubscriptionCriteria,
  plan: ChangePlan,
): Promise<Installment[]> {
  return deps.stores.transaction(async (stores) => {
    const at = deps.clock.now();
    const subscription = await findSubscriptionForUpdate(stores, merchantId, criteria);
    const installments = await stores.installments.installmentsOf(subscription.id);
    const { changed, nextSubscription } = plan(subscription, installments, at);
    return (await applyChanges(stores, { subscription, installments, changed, nextSubscription, at }))
      .changed;
  });
}
