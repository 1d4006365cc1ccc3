import { type Currency, createEvent, type EventEnvelope } from '@payrail/contracts';
import type { Charge } from '../domain/charge';
import type { PaymentMethod } from '../domain/payment-method';

/** Builders of the events this service publishes (README: events out). */

function purpose(charge: Charge) {
  return {
    idempotencyKey: charge.idempotencyKey,
    chargeId: charge.id,
    merchantId: charge.merchantId,
    processor: charge.processor,
    amount: charge.amount,
    currency: charge.currency as Currency,
    installmentId: charge.installmentId,
    attempt: charge.attempt,
    linkId: charge.linkId,
    paymentMethodId: charge.paymentMethodId,
    // What the processor knows the charge by: the order reference we sent it (its ledger shows that one).
    processorReference: charge.reference,
  };
}

/**
 * The event announcing a charge that just settled; none for one still open. `blockedUntil`: when the
 * card's block ends, for a `card-blocked` decline; `card`: the vault card an approved charge took.
 */
export function chargeSettled(
  charge: Charge,
  at: Date,
  blockedUntil: Date | null = null,
  card: Pick<PaymentMethod, 'brand' | 'last4'> | null = null,
): EventEnvelope[] {
  if (charge.status === 'succeeded') {
    return [
      createEvent(
        'payment.succeeded',
        {
          ...purpose(charge),
          paidAt: (charge.settledAt ?? at).toISOString(),
          authorizationCode: charge.authorizationCode,
          cardBrand: card?.brand ?? null,
          cardLast4: card?.last4 ?? null,
        },
        at,
      ),
    ];
  }
  if (charge.status === 'failed') {
    return [
      createEvent(
        'payment.failed',
        {
          ...purpose(charge),
          failedAt: (charge.settledAt ?? at).toISOString(),
          retryable: charge.retryable ?? false,
          declineCode: charge.declineCode ?? 'UNKNOWN',
          category: charge.declineCategory ?? 'hard',
          blockedUntil: blockedUntil?.toISOString() ?? null,
        },
        at,
      ),
    ];
  }
  return [];
}

function methodSnapshot(method: PaymentMethod) {
  return {
    paymentMethodId: method.id,
    merchantId: method.merchantId,
    customerId: method.customerId,
    processor: method.processor,
    maskedNumber: method.maskedNumber,
    last4: method.last4,
    brand: method.brand,
    expiryMonth: method.expiryMonth,
    expiryYear: method.expiryYear,
  };
}

export function paymentMethodSaved(method: PaymentMethod, at: Date): EventEnvelope {
  return createEvent(
    'payment-method.saved',
    { ...methodSnapshot(method), savedAt: method.createdAt.toISOString() },
    at,
  );
}

export function paymentMethodRemoved(method: PaymentMethod, at: Date): EventEnvelope {
  return createEvent(
    'payment-method.removed',
    { ...methodSnapshot(method), removedAt: (method.removedAt ?? at).toISOString() },
    at,
  );
}
