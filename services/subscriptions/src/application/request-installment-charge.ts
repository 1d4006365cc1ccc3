import {
  CARD_ATTEMPT_CAP,
  type EventData,
  type EventEnvelope,
  installmentChargeKey,
} from '@payrail/contracts';
import {
  attemptTime,
  type ChargeAttempt,
  type ChargeDecision,
  decideCharge,
  type SkipReason,
} from '../domain/debit';
import { type Installment, startCharge } from '../domain/installment';
import type { Subscription } from '../domain/subscription';
import type { InMessageContext } from '../ports/event-outbox';
import type { UseCaseDeps } from './deps';
import { chargeRequested, chargeSkipped, NOTHING_KNOWN, type SkipState } from './events';

/**
 * How the installment and the asked attempt stand, for a skip that leaves billing-scheduler waiting (not
 * pending, already requested): a charge-due asked again after its answer was lost then settles the claim.
 * An attempt requested but not read (asked earlier in the same batch) is in flight.
 */
function skipState(
  reason: SkipReason,
  installment: Installment,
  attempt: ChargeAttempt | undefined,
): SkipState {
  if (reason !== 'not-pending' && reason !== 'attempt-already-requested') return NOTHING_KNOWN;
  return {
    installmentStatus: installment.status,
    attemptStatus: attempt?.status ?? (reason === 'attempt-already-requested' ? 'requested' : null),
    declineCategory: attempt?.status === 'failed' ? attempt.category : null,
  };
}

/** The attempt a charge decision records: requested at `attemptAt`, not settled yet. */
function requestedAttempt(
  subscription: Subscription,
  installment: Installment,
  due: EventData<'installment.charge-due'>,
  idempotencyKey: string,
  decision: Extract<ChargeDecision, { kind: 'charge' }>,
  attemptAt: Date,
): ChargeAttempt {
  return {
    installmentId: installment.id,
    subscriptionId: subscription.id,
    merchantId: subscription.merchantId,
    attempt: due.attempt,
    idempotencyKey,
    runId: due.runId,
    paymentMethodId: decision.paymentMethodId,
    processor: subscription.processor,
    amount: decision.amount,
    currency: subscription.currency,
    status: 'requested',
    requestedAt: attemptAt,
    settledAt: null,
    chargeId: null,
    declineCode: null,
    category: null,
    nextAttemptOn: null,
  };
}

/**
 * Automatic debit, step 2 (`installment.charge-due` from billing-scheduler). In one transaction, with the
 * subscription's row locked (every merchant operation locks it first too, so a cancel or a modification
 * and this either run before it or after it, never half-way) and the card's lock held: decide on the
 * installment as it is now; if it is to be charged, move it to `processing`, record the attempt and emit
 * `charge.requested` with its current amount; otherwise emit `installment.charge-skipped` with the reason.
 */
export async function requestInstallmentCharge(
  deps: UseCaseDeps,
  due: EventData<'installment.charge-due'>,
): Promise<ChargeDecision> {
  return deps.stores.transaction(async (stores) => {
    const at = deps.clock.now();
    const found = await stores.installments.findInstallment(due.merchantId, due.installmentId);
    if (!found || found.subscription.id !== due.subscriptionId) {
      await stores.outbox.enqueue([chargeSkipped(due, 'not-pending', null, at)]);
      return { kind: 'skip', reason: 'not-pending', retryOn: null };
    }
    const { subscription, installment } = found;
    // The card's window and the attempt's requestedAt go by the as-of day when it is ahead of the clock
    // (simulated time), so simulated months are months apart.
    const attemptAt = attemptTime(at, due.asOf, subscription.timezone);
    let cardAttemptsInWindow: Date[] = [];
    if (subscription.paymentMethodId !== null) {
      await stores.cards.lockCard(subscription.paymentMethodId);
      cardAttemptsInWindow = await stores.cards.cardAttemptsSince(
        subscription.paymentMethodId,
        new Date(attemptAt.getTime() - CARD_ATTEMPT_CAP.windowMs),
      );
    }
    const askedBefore = await stores.attempts.findAttempt(installment.id, due.attempt);
    const decision = decideCharge({
      subscription,
      installment,
      attempt: due.attempt,
      asOf: due.asOf,
      attemptAlreadyRequested: askedBefore !== undefined,
      cardAttemptsInWindow,
      now: attemptAt,
    });
    if (decision.kind === 'skip') {
      const state = skipState(decision.reason, installment, askedBefore);
      await stores.outbox.enqueue([chargeSkipped(due, decision.reason, decision.retryOn, at, state)]);
      return decision;
    }
    const key = installmentChargeKey(installment.id, due.attempt);
    const charging = startCharge(installment);
    await stores.installments.saveInstallments([{ before: installment, after: charging }], at);
    await stores.attempts.recordAttempt(
      requestedAttempt(subscription, installment, due, key, decision, attemptAt),
    );
    await stores.attempts.setNextAttempt(installment.id, null, null);
    await stores.outbox.enqueue([
      chargeRequested(subscription, charging, due.attempt, key, decision.paymentMethodId, at),
    ]);
    return decision;
  });
}

/** One `installment.charge-due` of a batch, with the context its events are written in (its trace). */
export interface ChargeDueOfBatch {
  due: EventData<'installment.charge-due'>;
  within: InMessageContext;
}

/**
 * `requestInstallmentCharge` for a batch of `installment.charge-due`, in one transaction with a few
 * statements for the whole batch: the subscriptions locked in id order and the cards' locks taken in a
 * stable order (so two batches, or a batch and a merchant's operation, never wait on each other in a
 * cycle), the attempts and the card windows read at once; then each message decided in delivery order, as
 * if one after the other (a card's attempts and an installment's state include what the batch decided
 * before it), and every change written in one statement each. Decisions in the order of `dues`.
 */
export async function requestInstallmentCharges(
  deps: UseCaseDeps,
  dues: ChargeDueOfBatch[],
): Promise<ChargeDecision[]> {
  return deps.stores.transaction(async (stores) => {
    const at = deps.clock.now();
    const found = await stores.installments.findInstallmentsForUpdate(
      dues.map(({ due }) => ({ merchantId: due.merchantId, installmentId: due.installmentId })),
    );
    const facts = dues.map(({ due }) => {
      const entry = found.get(due.installmentId);
      const ours =
        entry &&
        entry.subscription.id === due.subscriptionId &&
        entry.subscription.merchantId === due.merchantId;
      return ours
        ? { ...entry, attemptAt: attemptTime(at, due.asOf, entry.subscription.timezone) }
        : undefined;
    });
    const cards = facts.flatMap((fact) =>
      fact?.subscription.paymentMethodId ? [fact.subscription.paymentMethodId] : [],
    );
    await stores.cards.lockCards(cards);
    const earliest = Math.min(...facts.map((fact) => fact?.attemptAt.getTime() ?? at.getTime()));
    const cardAttempts = await stores.cards.cardsAttemptsSince(
      cards,
      new Date(earliest - CARD_ATTEMPT_CAP.windowMs),
    );
    const requested = await stores.attempts.attemptNumbersOf(dues.map(({ due }) => due.installmentId));
    // A charge-due of an attempt already requested (a reclaim) is answered with how that attempt ended:
    // read for those only, which are rare.
    const askedBefore = new Map<number, ChargeAttempt>();
    for (const [index, { due }] of dues.entries()) {
      if (!facts[index] || !requested.get(due.installmentId)?.has(due.attempt)) continue;
      const attempt = await stores.attempts.findAttempt(due.installmentId, due.attempt);
      if (attempt) askedBefore.set(index, attempt);
    }

    // As they are now, and as the batch changes them.
    const current = new Map<number, Installment>();
    const firstRead = new Map<number, Installment>();
    const decisions: ChargeDecision[] = [];
    const events: Array<{ event: EventEnvelope; within: InMessageContext }> = [];
    const attempts: ChargeAttempt[] = [];
    dues.forEach(({ due, within }, index) => {
      const fact = facts[index];
      if (!fact) {
        events.push({ event: chargeSkipped(due, 'not-pending', null, at), within });
        decisions.push({ kind: 'skip', reason: 'not-pending', retryOn: null });
        return;
      }
      const { subscription, attemptAt } = fact;
      const installment = current.get(fact.installment.id) ?? fact.installment;
      const card = subscription.paymentMethodId;
      const since = attemptAt.getTime() - CARD_ATTEMPT_CAP.windowMs;
      const decision = decideCharge({
        subscription,
        installment,
        attempt: due.attempt,
        asOf: due.asOf,
        attemptAlreadyRequested: requested.get(installment.id)?.has(due.attempt) ?? false,
        cardAttemptsInWindow:
          card === null ? [] : (cardAttempts.get(card) ?? []).filter((time) => time.getTime() > since),
        now: attemptAt,
      });
      decisions.push(decision);
      if (decision.kind === 'skip') {
        const state = skipState(decision.reason, installment, askedBefore.get(index));
        events.push({ event: chargeSkipped(due, decision.reason, decision.retryOn, at, state), within });
        return;
      }
      const key = installmentChargeKey(installment.id, due.attempt);
      const charging = startCharge(installment);
      if (!firstRead.has(installment.id)) firstRead.set(installment.id, installment);
      current.set(installment.id, charging);
      requested.set(installment.id, new Set([...(requested.get(installment.id) ?? []), due.attempt]));
      const times = cardAttempts.get(decision.paymentMethodId) ?? [];
      times.push(attemptAt);
      times.sort((a, b) => a.getTime() - b.getTime());
      cardAttempts.set(decision.paymentMethodId, times);
      attempts.push(requestedAttempt(subscription, installment, due, key, decision, attemptAt));
      events.push({
        event: chargeRequested(subscription, charging, due.attempt, key, decision.paymentMethodId, at),
        within,
      });
    });
    await stores.installments.saveInstallments(
      [...firstRead.entries()].map(([id, before]) => ({ before, after: current.get(id) as Installment })),
      at,
      { clearNextAttempt: true },
    );
    await stores.attempts.recordAttempts(attempts);
    await stores.outbox.enqueueEach(events);
    return decisions;
  });
}
