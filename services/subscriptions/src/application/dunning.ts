import type { EventData } from '@payrail/contracts';
import { cancelsAfterDunning } from '../domain/dunning';
import { cancelAfterDecline, failAfterDunning } from '../domain/installment';
import { planCancelAll } from '../domain/operations';
import { cancelSubscription, isCollecting, markPastDue } from '../domain/subscription';
import { applyChanges } from './apply-changes';
import type { UseCaseDeps } from './deps';
import { installmentFailed, subscriptionPastDue } from './events';

/**
 * `installment.retry-scheduled` (billing-scheduler's dunning policy): the day of the next attempt, kept on
 * the installment and on the attempt that failed, for the audit and the v2 list.
 */
export async function recordScheduledRetry(
  deps: UseCaseDeps,
  retry: EventData<'installment.retry-scheduled'>,
): Promise<boolean> {
  return deps.stores.transaction(async (stores) => {
    const found = await stores.installments.findInstallment(retry.merchantId, retry.installmentId);
    if (!found) return false;
    // A retry scheduled for an installment meanwhile paid, cancelled or failed is moot, and so is one for
    // the in-flight charge of a subscription cancelled meanwhile (nothing more is charged on it).
    if (found.installment.status !== 'pending' && found.installment.status !== 'processing') return false;
    if (!isCollecting(found.subscription)) return false;
    await stores.attempts.setNextAttempt(retry.installmentId, retry.failedAttempt, retry.nextAttemptOn);
    return true;
  });
}

/**
 * `installment.dunning-exhausted`: billing-scheduler gave up (a hard decline, or the last retry failed).
 * The installment is `failed` (`installment.failed`) and the subscription, if it was being collected,
 * `past_due` (`subscription.past-due`) until that installment is paid. When the merchant's policy cancels
 * after N failed installments (`cancelAfterFailedInstallments`, carried by the event) and this one makes N
 * in a row, the subscription is cancelled instead, as cancel-all would cancel it: its pending installments
 * cancelled (`installments.cancelled`), `subscription.cancelled` with reason `dunning`. An installment paid
 * or cancelled meanwhile stays as it is. On a subscription cancelled while its charge was in flight there is
 * nothing to give up on: the installment is cancelled (`cancelAfterDecline`), as when `payment.failed`
 * reaches us first, not `failed`.
 */
export async function failInstallmentAfterDunning(
  deps: UseCaseDeps,
  exhausted: EventData<'installment.dunning-exhausted'>,
): Promise<boolean> {
  return deps.stores.transaction(async (stores) => {
    const at = deps.clock.now();
    const found = await stores.installments.findInstallment(exhausted.merchantId, exhausted.installmentId);
    if (!found) return false;
    const { subscription, installment } = found;
    if (installment.status !== 'pending' && installment.status !== 'processing') return false;
    const installments = await stores.installments.installmentsOf(subscription.id);
    if (subscription.status === 'cancelled') {
      await applyChanges(stores, {
        subscription,
        installments,
        changed: [cancelAfterDecline(installment)],
        at,
      });
      await stores.attempts.setNextAttempt(installment.id, null, null);
      return true;
    }
    const failed = failAfterDunning(installment);
    const attempts = await stores.attempts.attemptsOf(installment.id);
    const last = attempts.at(-1);
    // Announced before what it leads to (past due, or the cancellation).
    await stores.outbox.enqueue([
      installmentFailed(
        subscription,
        failed,
        {
          attempts: Math.max(exhausted.attempts, attempts.length, 1),
          declineCode: last?.declineCode ?? null,
          category: last?.category ?? null,
        },
        at,
      ),
    ]);
    const afterFailure = installments.map((each) => (each.id === failed.id ? failed : each));
    const cancels =
      isCollecting(subscription) &&
      cancelsAfterDunning(afterFailure, exhausted.cancelAfterFailedInstallments);
    const result = await applyChanges(stores, {
      subscription,
      installments,
      changed: cancels ? [failed, ...planCancelAll(afterFailure)] : [failed],
      nextSubscription: cancels
        ? cancelSubscription(subscription, at)
        : isCollecting(subscription)
          ? markPastDue(subscription)
          : subscription,
      cancelReason: 'dunning',
      at,
    });
    await stores.attempts.setNextAttempt(installment.id, null, null);
    if (subscription.status !== 'past_due' && result.subscription.status === 'past_due') {
      await stores.outbox.enqueue([subscriptionPastDue(result.subscription, installment.id, at)]);
    }
    return true;
  });
}
