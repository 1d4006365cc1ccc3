import type { EventData } from '@payrail/contracts';
import {
  attemptTime,
  CARD_CAP_WINDOW_MS,
  type ChargeDecision,
  chargeKey,
  decideCharge,
} from '../domain/debit';
import { startCharge } from '../domain/installment';
import type { UseCaseDeps } from './deps';
import { chargeRequested, chargeSkipped } from './events';

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
  return deps.store.transaction(async (store) => {
    const at = deps.clock.now();
    const found = await store.findInstallment(due.merchantId, due.installmentId);
    if (!found || found.subscription.id !== due.subscriptionId) {
      await store.publish([chargeSkipped(due, 'not-pending', null, at)]);
      return { kind: 'skip', reason: 'not-pending', retryOn: null };
    }
    const { subscription, installment } = found;
    // The card's window and the attempt's requestedAt go by the as-of day when it is ahead of the clock
    // (simulated time), so simulated months are months apart.
    const attemptAt = attemptTime(at, due.asOf, subscription.timezone);
    let cardAttemptsInWindow: Date[] = [];
    if (subscription.paymentMethodId !== null) {
      await store.lockCard(subscription.paymentMethodId);
      cardAttemptsInWindow = await store.cardAttemptsSince(
        subscription.paymentMethodId,
        new Date(attemptAt.getTime() - CARD_CAP_WINDOW_MS),
      );
    }
    const decision = decideCharge({
      subscription,
      installment,
      attempt: due.attempt,
      asOf: due.asOf,
      attemptAlreadyRequested: (await store.findAttempt(installment.id, due.attempt)) !== undefined,
      cardAttemptsInWindow,
      now: attemptAt,
    });
    if (decision.kind === 'skip') {
      await store.publish([chargeSkipped(due, decision.reason, decision.retryOn, at)]);
      return decision;
    }
    const key = chargeKey(installment.id, due.attempt);
    const charging = startCharge(installment);
    await store.saveInstallments([{ before: installment, after: charging }], at);
    await store.recordAttempt({
      installmentId: installment.id,
      subscriptionId: subscription.id,
      merchantId: subscription.merchantId,
      attempt: due.attempt,
      idempotencyKey: key,
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
    });
    await store.setNextAttempt(installment.id, null, null);
    await store.publish([
      chargeRequested(subscription, charging, due.attempt, key, decision.paymentMethodId, at),
    ]);
    return decision;
  });
}
