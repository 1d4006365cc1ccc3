import {
  type EventData,
  type EventEnvelope,
  installmentChargeKey,
  parseInstallmentChargeKey,
} from '@payrail/contracts';
import type { AttemptOutcome } from '../domain/debit';
import {
  cancelAfterDecline,
  chargeDeclined,
  failedAgain,
  type Installment,
  markPaid,
} from '../domain/installment';
import { topUpHorizon } from '../domain/open-ended';
import type { Subscription } from '../domain/subscription';
import type { InMessageContext } from '../ports/event-outbox';
import { applyChanges, planChanges } from './apply-changes';
import type { UseCaseDeps } from './deps';
import { installmentsScheduled, type PaymentSource } from './events';

export type ChargeOutcomeResult =
  /** Not an installment's charge (a link's), or not one of ours: nothing to do. */
  | { kind: 'not-ours' }
  /** Already recorded (the same outcome reported twice). */
  | { kind: 'duplicate' }
  | { kind: 'paid'; subscription: Subscription }
  /** The charge succeeded but the installment was already paid or cancelled: money to give back. */
  | { kind: 'paid-twice'; installmentStatus: string }
  | { kind: 'declined'; backToPending: boolean }
  /** Declined after its subscription was cancelled: the installment is cancelled, never tried again. */
  | { kind: 'cancelled' };

/**
 * Automatic debit, step 4 (`payment.succeeded`): the attempt is recorded as succeeded and the installment
 * `paid` (`installment.paid` with the subscription's paid count and total); the last one completes a STATIC
 * subscription, and a past-due subscription is active again once its failed installment is paid. A charge
 * in flight when the subscription was cancelled could not be recalled: its money was taken, so the
 * installment is paid and announced all the same, and the subscription stays cancelled.
 */
export async function recordChargeSucceeded(
  deps: UseCaseDeps,
  payment: EventData<'payment.succeeded'>,
): Promise<ChargeOutcomeResult> {
  const key = parseInstallmentChargeKey(payment.idempotencyKey);
  if (!key || payment.installmentId === null) return { kind: 'not-ours' };
  return deps.stores.transaction(async (stores) => {
    const at = deps.clock.now();
    const found = await stores.installments.findInstallment(payment.merchantId, key.installmentId);
    if (!found) return { kind: 'not-ours' };
    const settled = await stores.attempts.settleAttempt(key.installmentId, key.attempt, succeeded(payment));
    if (!settled) return { kind: 'duplicate' };
    const { subscription, installment } = found;
    if (installment.status === 'paid' || installment.status === 'cancelled') {
      return { kind: 'paid-twice', installmentStatus: installment.status };
    }
    const installments = await stores.installments.installmentsOf(subscription.id);
    const result = await applyChanges(stores, {
      subscription,
      installments,
      changed: [markPaid(installment, new Date(payment.paidAt))],
      at,
      payment: paidByCharge(key.attempt, payment),
    });
    await stores.attempts.setNextAttempt(installment.id, null, null);
    return { kind: 'paid', subscription: result.subscription };
  });
}

/**
 * Automatic debit, step 4 (`payment.failed`): the attempt's outcome (code, category) is recorded and the
 * installment is pending again, awaiting billing-scheduler's dunning decision (`installment.retry-scheduled`
 * or `installment.dunning-exhausted`). Only the installment's latest attempt moves it back: an older
 * attempt's late answer changes nothing but its own record. On a subscription cancelled while the charge
 * was in flight there is no dunning: the installment is cancelled (`cancelAfterDecline`,
 * `installments.cancelled`).
 */
export async function recordChargeFailed(
  deps: UseCaseDeps,
  payment: EventData<'payment.failed'>,
): Promise<ChargeOutcomeResult> {
  const key = parseInstallmentChargeKey(payment.idempotencyKey);
  if (!key || payment.installmentId === null) return { kind: 'not-ours' };
  return deps.stores.transaction(async (stores) => {
    const at = deps.clock.now();
    const found = await stores.installments.findInstallment(payment.merchantId, key.installmentId);
    if (!found) return { kind: 'not-ours' };
    const settled = await stores.attempts.settleAttempt(key.installmentId, key.attempt, {
      status: 'failed',
      chargeId: payment.chargeId,
      processor: payment.processor,
      settledAt: new Date(payment.failedAt),
      declineCode: payment.declineCode,
      category: payment.category,
    });
    if (!settled) return { kind: 'duplicate' };
    const { subscription, installment } = found;
    const latest = await stores.attempts.latestAttemptNumber(installment.id);
    if (installment.status !== 'processing' || latest !== key.attempt) {
      return { kind: 'declined', backToPending: false };
    }
    if (subscription.status === 'cancelled') {
      await applyChanges(stores, {
        subscription,
        installments: await stores.installments.installmentsOf(subscription.id),
        changed: [cancelAfterDecline(installment)],
        at,
      });
      await stores.attempts.setNextAttempt(installment.id, null, null);
      return { kind: 'cancelled' };
    }
    // The customer's new card, charged for an installment that had failed: failed again (dunning had
    // already given up on it; billing-scheduler schedules nothing more).
    const attempt = await stores.attempts.findAttempt(installment.id, key.attempt);
    if (attempt?.declinedTo === 'failed') {
      await stores.installments.saveInstallments(
        [{ before: installment, after: failedAgain(installment) }],
        at,
      );
      return { kind: 'declined', backToPending: false };
    }
    await stores.installments.saveInstallments(
      [{ before: installment, after: chargeDeclined(installment) }],
      at,
    );
    return { kind: 'declined', backToPending: true };
  });
}

/** One message of a batch: its event's data and the context its work runs in (its trace). */
export interface OfBatch<T> {
  data: T;
  within: InMessageContext;
}

/**
 * `recordChargeSucceeded` for a batch, in one transaction with a few statements whatever its size: the
 * subscriptions of the batch's installments locked in one statement and in id order (two batches never wait
 * on each other in a cycle), all their installments and the batch's attempts read at once; then each
 * payment decided in memory in delivery order, as if one after the other (a payment sees what the ones
 * before it decided: the paid count, a duplicate, an installment paid by an earlier attempt), with the rules
 * of `applyChanges` (`planChanges`); the open-ended subscriptions' horizons topped up as the batch leaves
 * them (`topUpHorizon`, one insert for all); and every change written in one statement each, each event in
 * the context (trace) of the payment it answers. Results in the order of `payments`.
 */
export async function recordChargesSucceeded(
  deps: UseCaseDeps,
  payments: Array<OfBatch<EventData<'payment.succeeded'>>>,
): Promise<ChargeOutcomeResult[]> {
  return deps.stores.transaction(async (stores) => {
    const at = deps.clock.now();
    const keys = payments.map(({ data }) =>
      data.installmentId === null ? undefined : parseInstallmentChargeKey(data.idempotencyKey),
    );
    const asked = payments.flatMap(({ data }, index) => {
      const key = keys[index];
      return key ? [{ merchantId: data.merchantId, installmentId: key.installmentId }] : [];
    });
    const locked = await stores.installments.lockSubscriptionsOfInstallments(asked);

    // As they are now, and as the batch changes them.
    const subscriptionOf = new Map(locked.map(({ subscription }) => [subscription.id, subscription]));
    const installmentsOf = new Map(
      locked.map(({ subscription, installments }) => [subscription.id, installments]),
    );
    const installmentById = new Map(
      locked.flatMap(({ installments }) => installments.map((row) => [row.id, row] as const)),
    );
    const ours = (index: number) => {
      const key = keys[index];
      const installment = key && installmentById.get(key.installmentId);
      const subscription = installment && subscriptionOf.get(installment.subscriptionId);
      return key && subscription?.merchantId === payments[index]?.data.merchantId ? key : undefined;
    };
    const attemptStatus = await stores.attempts.attemptStatuses(
      payments.flatMap((_, index) => {
        const key = ours(index);
        return key ? [key] : [];
      }),
    );

    const firstInstallment = new Map<number, Installment>();
    const firstSubscription = new Map<number, Subscription>();
    /** The subscriptions the batch paid an installment of, with the context of the last such payment. */
    const paidOf = new Map<number, InMessageContext>();
    const settlements: Array<{ installmentId: number; attempt: number; outcome: AttemptOutcome }> = [];
    const events: Array<{ event: EventEnvelope; within: InMessageContext }> = [];
    const results = payments.map(({ data, within }, index): ChargeOutcomeResult => {
      const key = ours(index);
      if (!key) return { kind: 'not-ours' };
      const attempt = installmentChargeKey(key.installmentId, key.attempt);
      if (attemptStatus.get(attempt) !== 'requested') return { kind: 'duplicate' };
      attemptStatus.set(attempt, 'succeeded');
      settlements.push({ ...key, outcome: succeeded(data) });
      const installment = installmentById.get(key.installmentId) as Installment;
      if (installment.status === 'paid' || installment.status === 'cancelled') {
        return { kind: 'paid-twice', installmentStatus: installment.status };
      }
      const subscription = subscriptionOf.get(installment.subscriptionId) as Subscription;
      const installments = installmentsOf.get(subscription.id) as Installment[];
      const plan = planChanges({
        subscription,
        installments,
        changed: [markPaid(installment, new Date(data.paidAt))],
        at,
        payment: paidByCharge(key.attempt, data),
      });
      for (const { before, after } of plan.real) {
        if (!firstInstallment.has(after.id)) firstInstallment.set(after.id, before);
        installmentById.set(after.id, after);
      }
      const updated = new Map(plan.real.map(({ after }) => [after.id, after]));
      installmentsOf.set(
        subscription.id,
        installments.map((row) => updated.get(row.id) ?? row),
      );
      if (plan.subscription !== subscription && !firstSubscription.has(subscription.id)) {
        firstSubscription.set(subscription.id, subscription);
      }
      subscriptionOf.set(subscription.id, plan.subscription);
      paidOf.set(subscription.id, within);
      for (const event of plan.events) events.push({ event, within });
      return { kind: 'paid', subscription: plan.subscription };
    });

    // Open-ended subscriptions' horizons, once per subscription as the whole batch leaves it, in one insert;
    // each `installments.scheduled` in the context of the subscription's last payment of the batch.
    const topUps = [...paidOf].flatMap(([subscriptionId, within]) => {
      const topUp = topUpHorizon(
        subscriptionOf.get(subscriptionId) as Subscription,
        installmentsOf.get(subscriptionId) as Installment[],
      );
      if (!topUp) return [];
      if (!firstSubscription.has(subscriptionId)) {
        firstSubscription.set(subscriptionId, subscriptionOf.get(subscriptionId) as Subscription);
      }
      subscriptionOf.set(subscriptionId, topUp.subscription);
      return [{ ...topUp, within }];
    });
    const scheduled =
      topUps.length === 0
        ? []
        : await stores.installments.insertInstallmentsOfMany(
            topUps.flatMap(({ subscription, added }) =>
              added.map((draft) => ({ ...draft, subscriptionId: subscription.id })),
            ),
            at,
          );
    for (const { subscription, within } of topUps) {
      const added = scheduled.filter((installment) => installment.subscriptionId === subscription.id);
      for (const event of installmentsScheduled(subscription, added, at)) events.push({ event, within });
    }

    await stores.attempts.settleAttempts(settlements);
    await stores.installments.saveInstallments(
      [...firstInstallment].map(([id, before]) => ({
        before,
        after: installmentById.get(id) as Installment,
      })),
      at,
      { clearNextAttempt: true },
    );
    await stores.subscriptions.saveSubscriptions(
      [...firstSubscription.keys()].map((id) => subscriptionOf.get(id) as Subscription),
    );
    await stores.outbox.enqueueEach(events);
    return results;
  });
}

/**
 * An installment paid by attempt `attempt` of its automatic charge, as its `installment.paid` says: the
 * attempt, the charge as the money movement the merchant's webhook tells (`txId`: processor-gateway's
 * charge id, one shape for every processor), and what the processor knows it by.
 */
function paidByCharge(attempt: number, payment: EventData<'payment.succeeded'>): PaymentSource {
  return {
    method: 'CARD',
    bankReference: null,
    chargeAttempt: attempt,
    txId: payment.chargeId,
    processorReference: payment.processorReference,
    authorizationCode: payment.authorizationCode,
  };
}

/** What processor-gateway reported of an approved charge, as its attempt keeps it. */
function succeeded(payment: EventData<'payment.succeeded'>): AttemptOutcome {
  return {
    status: 'succeeded',
    chargeId: payment.chargeId,
    processor: payment.processor,
    settledAt: new Date(payment.paidAt),
    declineCode: null,
    category: null,
  };
}

/** `recordChargeFailed` for a batch, as `recordChargesSucceeded`. */
export function recordChargesFailed(
  deps: UseCaseDeps,
  payments: Array<OfBatch<EventData<'payment.failed'>>>,
): Promise<ChargeOutcomeResult[]> {
  return inBatch(deps, payments, recordChargeFailed);
}

async function inBatch<
  T extends { idempotencyKey: string; merchantId: string; installmentId: number | null },
>(
  deps: UseCaseDeps,
  payments: Array<OfBatch<T>>,
  record: (deps: UseCaseDeps, payment: T) => Promise<ChargeOutcomeResult>,
): Promise<ChargeOutcomeResult[]> {
  return deps.stores.transaction(async (stores) => {
    const refs = payments.flatMap(({ data }) => {
      const key = parseInstallmentChargeKey(data.idempotencyKey);
      return key && data.installmentId !== null
        ? [{ merchantId: data.merchantId, installmentId: key.installmentId }]
        : [];
    });
    await stores.installments.findInstallmentsForUpdate(refs);
    const results: ChargeOutcomeResult[] = [];
    for (const { data, within } of payments) {
      results.push(await within(() => record({ stores, clock: deps.clock }, data)));
    }
    return results;
  });
}
