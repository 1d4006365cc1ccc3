import type { BankTransferDetails, EventData, PaymentMethodKind } from '@payrail/contracts';
import { type Installment, markPaid } from '../domain/installment';
import { activate, type PaymentCard, type Subscription } from '../domain/subscription';
import type { SubscriptionStores } from '../ports/unit-of-work';
import { applyChanges } from './apply-changes';
import type { UseCaseDeps } from './deps';
import type { PaymentSource } from './events';

export type PaymentOutcome =
  /** The subscription is active and installment 1 paid. */
  | { kind: 'activated'; subscription: Subscription }
  /** No subscription for the link yet: one-off link, or its `link.created` is still to come. */
  | { kind: 'recorded' }
  /** Already active (a redelivery), or cancelled before the payment came. */
  | { kind: 'ignored'; subscription: Subscription };

/**
 * `link.paid`: the first payment activates the subscription and settles installment 1; the card that paid
 * is the subscription's card for the installments after it.
 */
export async function activateSubscriptionOnPayment(
  deps: UseCaseDeps,
  payment: EventData<'link.paid'>,
): Promise<PaymentOutcome> {
  const at = deps.clock.now();
  const paidAt = new Date(payment.paidAt);
  return deps.stores.transaction(async (stores) => {
    // With the link's `link.created`, if it comes at the same time: one of the two sees the other's row.
    await stores.earlyPayments.lockLink(payment.merchantId, payment.linkId);
    const subscription = await stores.subscriptions.findByLink(payment.merchantId, payment.linkId);
    if (!subscription) {
      await stores.earlyPayments.recordEarlyPayment({
        linkId: payment.linkId,
        merchantId: payment.merchantId,
        amount: payment.amount,
        paidAt,
        method: payment.method,
        txId: payment.txId,
        details: {
          processorReference: payment.processorReference,
          authorizationCode: payment.authorizationCode,
          bankReference: payment.bankReference,
          bankTransfer: payment.bankTransfer,
        },
        card: cardOf(payment),
      });
      return { kind: 'recorded' };
    }
    if (subscription.status !== 'pending') return { kind: 'ignored', subscription };
    const source = paymentSourceOf(payment);
    return {
      kind: 'activated',
      subscription: await activateWithPayment(stores, subscription, paidAt, at, source, cardOf(payment)),
    };
  });
}

/**
 * The card of the first payment, which later installments are charged to: the vault's payment method the
 * pay page reported. None for a transfer, or a message from before the pay page reported it.
 */
export function cardOf(payment: EventData<'link.paid'>): PaymentCard | null {
  if (payment.method !== 'CARD' || !payment.paymentMethodId) return null;
  return {
    paymentMethodId: payment.paymentMethodId,
    processor: payment.processor,
    customerId: payment.customerId,
  };
}

/**
 * How the link was paid, for installment 1's `installment.paid`: the same money movement (`txId`) and the
 * references beside it. An older `link.paid` of a transfer carries the bank's reference as its `txId` and
 * no `bankReference`.
 */
export function paymentSourceOf(payment: {
  method: PaymentMethodKind;
  txId: string | null;
  processorReference?: string | null;
  authorizationCode?: string | null;
  bankReference?: string | null;
  bankTransfer?: BankTransferDetails | null;
}): PaymentSource {
  const transfer = payment.method === 'BANK_TRANSFER';
  return {
    method: payment.method,
    bankReference: transfer ? (payment.bankReference ?? payment.txId) : null,
    txId: payment.txId,
    processorReference: payment.processorReference ?? null,
    authorizationCode: payment.authorizationCode ?? null,
    bankTransfer: payment.bankTransfer ?? null,
  };
}

/** Shared with creation, for a payment that arrived before its `link.created`. */
export async function activateWithPayment(
  stores: SubscriptionStores,
  subscription: Subscription,
  paidAt: Date,
  at: Date,
  payment: PaymentSource,
  card: PaymentCard | null,
): Promise<Subscription> {
  const installments = await stores.installments.installmentsOf(subscription.id);
  const first = installments.find((installment) => installment.number === 1) as Installment;
  const result = await applyChanges(stores, {
    subscription,
    installments,
    changed: first.status === 'pending' ? [markPaid(first, paidAt)] : [],
    nextSubscription: activate(subscription, paidAt, card),
    at,
    payment,
  });
  return result.subscription;
}
