import {
  createEvent,
  type EventData,
  type EventType,
  parseEvent,
  parseInstallmentChargeKey,
} from '@payrail/contracts';
import { addDays, type Clock, type IsoDate, localDate } from '@payrail/time';
import { afterFailedAttempt } from '../domain/dunning-policy';
import type { ProjectedInstallment } from '../ports/installment-projection';
import type { RunItemMark } from '../ports/run-store';
import type { BatchedMessage, BillingStores } from '../ports/unit-of-work';
import { dunningPolicyOf } from './dunning-policies';

/** What happened to the charges billing-scheduler asked for: run progress, and dunning after a decline. */
export const CHARGE_OUTCOME_EVENTS = [
  'charge.requested',
  'payment.succeeded',
  'payment.failed',
  'installment.charge-skipped',
] as const satisfies readonly EventType[];

/** The claimed attempt an outcome is about, or undefined when it is stale (another attempt, or settled). */
function openAttempt(
  row: ProjectedInstallment | undefined,
  attempt: number,
): ProjectedInstallment | undefined {
  return row && row.state === 'claimed' && row.attempt === attempt ? row : undefined;
}

async function timezoneOf(stores: BillingStores, row: ProjectedInstallment): Promise<string> {
  return (await stores.subscriptions.subscription(row.subscriptionId))?.timezone ?? 'UTC';
}

/** The as-of day of the row's last attempt (today in its zone when unknown). */
async function attemptDay(stores: BillingStores, row: ProjectedInstallment, clock: Clock): Promise<IsoDate> {
  return row.lastAttemptOn ?? localDate(clock.now(), await timezoneOf(stores, row));
}

/** What dunning needs of a declined attempt. */
type Decline = Pick<EventData<'payment.failed'>, 'category' | 'retryable' | 'blockedUntil'>;

async function onPaymentFailed(
  stores: BillingStores,
  clock: Clock,
  data: Decline,
  installmentId: number,
  attempt: number,
): Promise<void> {
  await stores.runs.markOutcome(installmentId, attempt, 'failed');
  const row = openAttempt(await stores.installments.installmentForUpdate(installmentId), attempt);
  if (!row) return;
  const attemptOn = await attemptDay(stores, row, clock);
  const timezone = await timezoneOf(stores, row);
  const policy = await dunningPolicyOf(stores.policies, row.merchantId);
  const decision = afterFailedAttempt(policy, {
    attempt,
    category: data.category,
    retryable: data.retryable,
    firstAttemptOn: row.firstAttemptOn ?? attemptOn,
    attemptOn,
    blockedUntil: data.blockedUntil ? localDate(new Date(data.blockedUntil), timezone) : null,
  });
  const now = clock.now();
  const owner = { merchantId: row.merchantId, subscriptionId: row.subscriptionId, installmentId };
  if (decision.kind === 'retry') {
    await stores.installments.saveInstallment({
      ...row,
      state: 'scheduled',
      attempt: decision.nextAttempt,
      dueOn: decision.on,
    });
    await stores.outbox.enqueue([
      createEvent(
        'installment.retry-scheduled',
        { ...owner, failedAttempt: attempt, nextAttempt: decision.nextAttempt, nextAttemptOn: decision.on },
        now,
      ),
    ]);
    return;
  }
  await stores.installments.saveInstallment({ ...row, state: 'failed' });
  await stores.outbox.enqueue([
    createEvent(
      'installment.dunning-exhausted',
      {
        ...owner,
        attempts: decision.attempts,
        reason: decision.reason,
        // Subscriptions counts the failed installments in a row and cancels at this many.
        cancelAfterFailedInstallments: policy.cancelAfterFailedInstallments,
      },
      now,
    ),
  ]);
}

async function onChargeSkipped(stores: BillingStores, clock: Clock, body: string): Promise<void> {
  const { data } = parseEvent('installment.charge-skipped', body);
  await stores.runs.markOutcome(data.installmentId, data.attempt, 'skipped', data.runId);
  const row = openAttempt(await stores.installments.installmentForUpdate(data.installmentId), data.attempt);
  if (!row) return;
  const attemptOn = await attemptDay(stores, row, clock);
  switch (data.reason) {
    case 'card-attempt-cap':
      // The card's 24-hour cap: the same attempt again once the cap allows it.
      await stores.installments.saveInstallment({
        ...row,
        state: 'scheduled',
        dueOn: data.retryOn ?? addDays(attemptOn, 1),
      });
      return;
    case 'not-due':
      // The merchant moved it to a later day after the claim: asked again on that day.
      await stores.installments.saveInstallment({
        ...row,
        state: 'scheduled',
        dueOn: data.retryOn ?? addDays(attemptOn, 1),
      });
      return;
    case 'no-payment-method':
      // A card may be saved meanwhile: asked again the next day.
      await stores.installments.saveInstallment({ ...row, state: 'scheduled', dueOn: addDays(attemptOn, 1) });
      return;
    case 'subscription-not-active':
      // Claimed again only once the subscription is active (its event updates the projection).
      await stores.installments.saveInstallment({ ...row, state: 'scheduled' });
      return;
    case 'not-pending':
    case 'attempt-already-requested':
      await settleFromSkip(stores, clock, row, data);
      return;
  }
}

/**
 * Not pending, or the attempt already requested: usually a charge-due asked again (a reclaim) after the
 * answer that settles the row was lost. How subscriptions says things stand settles it now, and the runs
 * still waiting for the attempt count how it ended. An installment or attempt still in flight waits for its
 * outcome (or the next reclaim); so does a skip that says nothing (an older subscriptions).
 */
async function settleFromSkip(
  stores: BillingStores,
  clock: Clock,
  row: ProjectedInstallment,
  skip: EventData<'installment.charge-skipped'>,
): Promise<void> {
  const { installmentStatus, attemptStatus } = skip;
  if (installmentStatus === 'paid' || installmentStatus === 'cancelled' || installmentStatus === 'failed') {
    // A charge still in flight (paid by a transfer meanwhile) is counted by its own outcome.
    if (attemptStatus !== 'requested') {
      const counted = attemptStatus === 'succeeded' || attemptStatus === 'failed' ? attemptStatus : 'skipped';
      await stores.runs.markOutcome(row.installmentId, row.attempt, counted);
    }
    await stores.installments.saveInstallment({ ...row, state: installmentStatus });
    return;
  }
  if (installmentStatus === 'pending' && attemptStatus === 'failed' && skip.declineCategory) {
    // The decline reached subscriptions but not us: dunning decides as it would have (the processors
    // retry soft declines and outages only; a block's end, unknown now, means the next day).
    const category = skip.declineCategory;
    const retryable = category === 'soft' || category === 'processor-down';
    await onPaymentFailed(
      stores,
      clock,
      { category, retryable, blockedUntil: null },
      row.installmentId,
      row.attempt,
    );
  }
}

/**
 * The outcomes of every charge, requested then paid: what a batch applies together. Another kind of
 * message (a decline, a skip) goes alone.
 */
type CommonOutcome =
  | { kind: 'requested'; installmentId: number; attempt: number }
  | { kind: 'succeeded'; installmentId: number; attempt: number }
  /** A payment of a link's charge: not ours. */
  | { kind: 'none' };

function commonOutcome(message: { type: string; body: string }): CommonOutcome | undefined {
  switch (message.type) {
    case 'charge.requested': {
      const { data } = parseEvent('charge.requested', message.body);
      return { kind: 'requested', installmentId: data.installmentId, attempt: data.attempt };
    }
    case 'payment.succeeded': {
      const { data } = parseEvent('payment.succeeded', message.body);
      const key = parseInstallmentChargeKey(data.idempotencyKey);
      return key ? { kind: 'succeeded', ...key } : { kind: 'none' };
    }
    default:
      return undefined;
  }
}

/** The row once its charge succeeded, or undefined when nothing changes. */
function paidAfterSuccess(row: ProjectedInstallment | undefined): ProjectedInstallment | undefined {
  return row && row.state !== 'paid' ? { ...row, state: 'paid' } : undefined;
}

async function recordCommonOutcome(stores: BillingStores, outcome: CommonOutcome): Promise<void> {
  switch (outcome.kind) {
    case 'requested':
      await stores.runs.markRequested(outcome.installmentId, outcome.attempt);
      return;
    case 'succeeded': {
      await stores.runs.markOutcome(outcome.installmentId, outcome.attempt, 'succeeded');
      const paid = paidAfterSuccess(await stores.installments.installmentForUpdate(outcome.installmentId));
      if (paid) await stores.installments.saveInstallment(paid);
      return;
    }
    case 'none':
      return;
  }
}

/**
 * `recordCommonOutcome` for each, one after the other, in three statements: every run item marked, then
 * the installments paid read (locked in the order given) and written at once. The same as one by one: a
 * mark touches only run items, and whether an installment is paid depends on nothing but the installment.
 */
async function recordCommonOutcomes(stores: BillingStores, outcomes: CommonOutcome[]): Promise<void> {
  const marks: RunItemMark[] = [];
  const paidIds: number[] = [];
  for (const outcome of outcomes) {
    if (outcome.kind === 'none') continue;
    const { installmentId, attempt } = outcome;
    if (outcome.kind === 'requested') {
      marks.push({ installmentId, attempt, requested: true });
    } else {
      marks.push({ installmentId, attempt, outcome: 'succeeded' });
      paidIds.push(installmentId);
    }
  }
  await stores.runs.markRunItems(marks);
  if (paidIds.length === 0) return;
  const rows = new Map(
    (await stores.installments.installmentsForUpdate(paidIds)).map(
      (row) => [row.installmentId, row] as const,
    ),
  );
  const saved: ProjectedInstallment[] = [];
  for (const installmentId of paidIds) {
    const paid = paidAfterSuccess(rows.get(installmentId));
    if (!paid) continue;
    rows.set(installmentId, paid);
    saved.push(paid);
  }
  await stores.installments.saveInstallments(saved);
}

/** Applies one outcome event (inside the consumer's transaction). Charges of links are not ours: ignored. */
export async function recordChargeOutcome(
  stores: BillingStores,
  clock: Clock,
  message: { type: string; body: string },
): Promise<void> {
  const common = commonOutcome(message);
  if (common) {
    await recordCommonOutcome(stores, common);
    return;
  }
  switch (message.type) {
    case 'payment.failed': {
      const { data } = parseEvent('payment.failed', message.body);
      const key = parseInstallmentChargeKey(data.idempotencyKey);
      if (!key) return;
      await onPaymentFailed(stores, clock, data, key.installmentId, key.attempt);
      return;
    }
    case 'installment.charge-skipped':
      await onChargeSkipped(stores, clock, message.body);
      return;
    default:
      throw new Error(`billing-scheduler does not record ${message.type}`);
  }
}

/**
 * Applies a batch's outcome events in the order given, as `recordChargeOutcome` one after the other would:
 * each stretch of requests and successes together (`recordCommonOutcomes`), any other message alone, in
 * its own context, where it comes.
 */
export async function recordChargeOutcomeBatch(
  stores: BillingStores,
  clock: Clock,
  messages: BatchedMessage[],
): Promise<void> {
  let stretch: CommonOutcome[] = [];
  for (const item of messages) {
    const common = commonOutcome(item.message);
    if (common) {
      stretch.push(common);
      continue;
    }
    await recordCommonOutcomes(stores, stretch);
    stretch = [];
    await item.run(() => recordChargeOutcome(stores, clock, item.message));
  }
  await recordCommonOutcomes(stores, stretch);
}
