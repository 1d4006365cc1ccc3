import type { EventData } from '@payrail/contracts';
import { parseChargeKey } from '../domain/debit';
import { cancelAfterDecline, chargeDeclined, markPaid } from '../domain/installment';
import type { Subscription } from '../domain/subscription';
import type { InMessageContext } from '../ports/subscription-store';
import { applyChanges } from './apply-changes';
import type { UseCaseDeps } from './deps';

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
  const key = parseChargeKey(payment.idempotencyKey);
  if (!key || payment.installmentId === null) return { kind: 'not-ours' };
  return deps.store.transaction(async (store) => {
    const at = deps.clock.now();
    const found = await store.findInstallment(payment.merchantId, key.installmentId);
    if (!found) return { kind: 'not-ours' };
    const settled = await store.settleAttempt(key.installmentId, key.attempt, {
      status: 'succeeded',
      chargeId: payment.chargeId,
      processor: payment.processor,
      settledAt: new Date(payment.paidAt),
      declineCode: null,
      category: null,
    });
    if (!settled) return { kind: 'duplicate' };
    const { subscription, installment } = found;
    if (installment.status === 'paid' || installment.status === 'cancelled') {
      return { kind: 'paid-twice', installmentStatus: installment.status };
    }
    const installments = await store.installmentsOf(subscription.id);
    const result = await applyChanges(store, {
      subscription,
      installments,
      changed: [markPaid(installment, new Date(payment.paidAt))],
      at,
    });
    await store.setNextAttempt(installment.id, null, null);
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
  const key = parseChargeKey(payment.idempotencyKey);
  if (!key || payment.installmentId === null) return { kind: 'not-ours' };
  return deps.store.transaction(async (store) => {
    const at = deps.clock.now();
    const found = await store.findInstallment(payment.merchantId, key.installmentId);
    if (!found) return { kind: 'not-ours' };
    const settled = await store.settleAttempt(key.installmentId, key.attempt, {
      status: 'failed',
      chargeId: payment.chargeId,
      processor: payment.processor,
      settledAt: new Date(payment.failedAt),
      declineCode: payment.declineCode,
      category: payment.category,
    });
    if (!settled) return { kind: 'duplicate' };
    const { subscription, installment } = found;
    const latest = await store.latestAttemptNumber(installment.id);
    if (installment.status !== 'processing' || latest !== key.attempt) {
      return { kind: 'declined', backToPending: false };
    }
    if (subscription.status === 'cancelled') {
      await applyChanges(store, {
        subscription,
        installments: await store.installmentsOf(subscription.id),
        changed: [cancelAfterDecline(installment)],
        at,
      });
      await store.setNextAttempt(installment.id, null, null);
      return { kind: 'cancelled' };
    }
    await store.saveInstallments([{ before: installment, after: chargeDeclined(installment) }], at);
    return { kind: 'declined', backToPending: true };
  });
}

/** One message of a batch: its event's data and the context its work runs in (its trace). */
export interface OfBatch<T> {
  data: T;
  within: InMessageContext;
}

/**
 * `recordChargeSucceeded` for a batch, in one transaction: the subscriptions of the batch's installments
 * locked first, in one statement and in id order (two batches never wait on each other in a cycle), then
 * each payment recorded in delivery order in its own context. Results in the order of `payments`.
 */
export function recordChargesSucceeded(
  deps: UseCaseDeps,
  payments: Array<OfBatch<EventData<'payment.succeeded'>>>,
): Promise<ChargeOutcomeResult[]> {
  return inBatch(deps, payments, recordChargeSucceeded);
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
  return deps.store.transaction(async (store) => {
    const refs = payments.flatMap(({ data }) => {
      const key = parseChargeKey(data.idempotencyKey);
      return key && data.installmentId !== null
        ? [{ merchantId: data.merchantId, installmentId: key.installmentId }]
        : [];
    });
    await store.findInstallmentsForUpdate(refs);
    const results: ChargeOutcomeResult[] = [];
    for (const { data, within } of payments) {
      results.push(await within(() => record({ store, clock: deps.clock }, data)));
    }
    return results;
  });
}
