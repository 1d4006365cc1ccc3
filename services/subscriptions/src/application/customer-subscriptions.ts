import { CARD_ATTEMPT_CAP, installmentChargeKey } from '@payrail/contracts';
import type { ChargeAttempt } from '../domain/debit';
import { SubscriptionNotActive, SubscriptionNotFound } from '../domain/errors';
import { byPaymentDate, type Installment, startCharge } from '../domain/installment';
import { planCancelAll } from '../domain/operations';
import { cancelSubscription, isCollecting, type Subscription, withCard } from '../domain/subscription';
import type { SubscriptionStores } from '../ports/unit-of-work';
import { applyChanges } from './apply-changes';
import type { UseCaseDeps } from './deps';
import { chargeRequested } from './events';

/**
 * The customer's own page (links' `/pay/account`, issue 29): a customer sees and changes only their own
 * subscriptions at one merchant. Another customer's or another merchant's subscription is not found.
 */

/** An installment as the customer's page shows it. */
export interface CustomerInstallment extends Installment {
  /** Its charge was declined and it waits for a retry, or dunning gave up on it. */
  declined: boolean;
  /** The money movement that paid it by card (processor-gateway's charge id, the webhooks' `txId`). */
  chargeId: string | null;
}

export interface CustomerSubscription {
  subscription: Subscription;
  installments: CustomerInstallment[];
}

/** A declined installment: failed after dunning, or pending again after a declined attempt. */
function isDeclined(installment: Installment, lastAttempt: ChargeAttempt | null | undefined): boolean {
  if (installment.number < 2) return false;
  if (installment.status === 'failed') return true;
  return installment.status === 'pending' && lastAttempt?.status === 'failed';
}

async function withInstallments(
  stores: SubscriptionStores,
  subscription: Subscription,
): Promise<CustomerSubscription> {
  const installments = await stores.installments.installmentsOf(subscription.id);
  const summaries = await stores.attempts.attemptSummaries(installments.map((row) => row.id));
  return {
    subscription,
    installments: installments.map((installment) => {
      const last = summaries.get(installment.id)?.lastAttempt;
      return {
        ...installment,
        declined: isDeclined(installment, last),
        chargeId: installment.status === 'paid' && last?.status === 'succeeded' ? last.chargeId : null,
      };
    }),
  };
}

/** Every subscription of the customer at the merchant (not those still waiting for their first payment). */
export async function listCustomerSubscriptions(
  deps: { stores: SubscriptionStores },
  merchantId: string,
  customerId: number,
): Promise<CustomerSubscription[]> {
  const found = await deps.stores.subscriptions.subscriptionsOfCustomer(merchantId, customerId);
  const answer: CustomerSubscription[] = [];
  for (const subscription of found) answer.push(await withInstallments(deps.stores, subscription));
  return answer;
}

/** The customer's subscription, locked; another's is not found. */
async function ownSubscriptionForUpdate(
  stores: SubscriptionStores,
  merchantId: string,
  customerId: number,
  subscriptionId: number,
): Promise<Subscription> {
  const read = await stores.subscriptions.findSubscription(merchantId, subscriptionId);
  const locked = read && (await stores.subscriptions.findByLink(merchantId, read.linkId));
  if (!locked || locked.customerId !== customerId) throw new SubscriptionNotFound(subscriptionId);
  return locked;
}

export interface CardChange {
  merchantId: string;
  customerId: number;
  subscriptionId: number;
  /** A card of the customer's vault at the merchant (links checked it is theirs). */
  paymentMethodId: string;
  processor: string;
}

/**
 * The customer gives a subscription another card: from now on its installments are charged to it. A
 * declined installment (pending again after a declined attempt, or failed after dunning) is charged to the
 * new card at once, with the next attempt number of that installment, as an automatic debit is: moved to
 * `processing` and `charge.requested` written in this transaction, under the subscription's row lock and
 * the card's lock. A second request (a second click, a reload, another tab) finds it `processing` or
 * `paid` and charges nothing. Declined, a pending one goes back to dunning and a failed one is failed
 * again (`declinedTo`); paid, the subscription is active again (`recordChargeSucceeded`). The installments
 * charged, by id.
 */
export async function changeSubscriptionCard(
  deps: UseCaseDeps,
  change: CardChange,
): Promise<{ subscription: CustomerSubscription; charged: number[] }> {
  return deps.stores.transaction(async (stores) => {
    const at = deps.clock.now();
    const subscription = await ownSubscriptionForUpdate(
      stores,
      change.merchantId,
      change.customerId,
      change.subscriptionId,
    );
    if (!isCollecting(subscription)) throw new SubscriptionNotActive(subscription.status, 'card');
    const next = withCard(subscription, {
      paymentMethodId: change.paymentMethodId,
      processor: change.processor,
      customerId: change.customerId,
    });
    if (subscription.paymentMethodId !== next.paymentMethodId || subscription.processor !== next.processor) {
      await stores.subscriptions.saveSubscription(next);
    }
    const installments = (await stores.installments.installmentsOf(subscription.id)).sort(byPaymentDate);
    const summaries = await stores.attempts.attemptSummaries(installments.map((row) => row.id));
    const declined = installments.filter((row) => isDeclined(row, summaries.get(row.id)?.lastAttempt));
    const charged: number[] = [];
    if (declined.length > 0) {
      await stores.cards.lockCard(change.paymentMethodId);
      const recent = await stores.cards.cardAttemptsSince(
        change.paymentMethodId,
        new Date(at.getTime() - CARD_ATTEMPT_CAP.windowMs),
      );
      for (const installment of declined) {
        // The card's cap on attempts in 24 hours holds here too: a customer cannot hammer a card.
        if (recent.length >= CARD_ATTEMPT_CAP.attempts) break;
        const attempt = (await stores.attempts.latestAttemptNumber(installment.id)) + 1;
        const key = installmentChargeKey(installment.id, attempt);
        const charging = startCharge(installment);
        await stores.installments.saveInstallments([{ before: installment, after: charging }], at, {
          clearNextAttempt: installment.status === 'failed',
        });
        await stores.attempts.recordAttempt({
          installmentId: installment.id,
          subscriptionId: subscription.id,
          merchantId: subscription.merchantId,
          attempt,
          idempotencyKey: key,
          runId: null,
          paymentMethodId: change.paymentMethodId,
          processor: change.processor,
          amount: installment.amount,
          currency: subscription.currency,
          status: 'requested',
          requestedAt: at,
          settledAt: null,
          chargeId: null,
          declineCode: null,
          category: null,
          nextAttemptOn: null,
          declinedTo: installment.status === 'failed' ? 'failed' : 'pending',
        });
        await stores.outbox.enqueue([
          chargeRequested(next, charging, attempt, key, change.paymentMethodId, at),
        ]);
        recent.push(at);
        charged.push(installment.id);
      }
    }
    return { subscription: await withInstallments(stores, next), charged };
  });
}

/**
 * The customer cancels their subscription (links allows it only where the merchant's setting does): as the
 * merchant's cancel-all, its pending installments cancelled, `subscription.cancelled` with `reason: customer`.
 */
export async function cancelCustomerSubscription(
  deps: UseCaseDeps,
  request: { merchantId: string; customerId: number; subscriptionId: number },
): Promise<CustomerSubscription> {
  return deps.stores.transaction(async (stores) => {
    const at = deps.clock.now();
    const subscription = await ownSubscriptionForUpdate(
      stores,
      request.merchantId,
      request.customerId,
      request.subscriptionId,
    );
    if (!isCollecting(subscription)) throw new SubscriptionNotActive(subscription.status, 'cancel');
    const installments = await stores.installments.installmentsOf(subscription.id);
    const result = await applyChanges(stores, {
      subscription,
      installments,
      changed: planCancelAll(installments),
      nextSubscription: cancelSubscription(subscription, at),
      at,
      cancelReason: 'customer',
    });
    return withInstallments(stores, result.subscription);
  });
}
