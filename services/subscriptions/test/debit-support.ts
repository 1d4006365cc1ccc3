import { randomUUID } from 'node:crypto';
import { createEvent, type EventEnvelope, type MerchantContext } from '@payrail/contracts';
import type { ServiceUnderTest } from '@payrail/testing';
import { asc, eq } from 'drizzle-orm';
import { chargeAttempts } from '../src/adapters/postgres/schema';
import { eventsOfType, type InstallmentRow, type PaidWithCard, type SubscriptionRow } from './support';

/** Events billing-scheduler and processor-gateway send subscriptions in the automatic debit. */

export function aCard(customerId = 1 + Math.floor(Math.random() * 1_000_000)): PaidWithCard {
  return { paymentMethodId: randomUUID(), processor: 'PARAGUAY.PROCESSOR_A', customerId };
}

export function chargeDue(
  merchant: MerchantContext,
  installment: Pick<InstallmentRow, 'id' | 'subscriptionId' | 'paymentDate'>,
  attempt = 1,
  // A run as of the day it is due (as of a later day, the card's cap would count from that day).
  asOf = installment.paymentDate,
): EventEnvelope<'installment.charge-due'> {
  return createEvent(
    'installment.charge-due',
    {
      runId: randomUUID(),
      merchantId: merchant.merchantId,
      subscriptionId: installment.subscriptionId,
      installmentId: installment.id,
      attempt,
      dueOn: installment.paymentDate,
      asOf,
    },
    new Date(),
  );
}

/** processor-gateway's answer to a `charge.requested` (its `data`). */
function purpose(requested: EventEnvelope<'charge.requested'>, card: PaidWithCard) {
  const data = requested.data;
  return {
    idempotencyKey: data.idempotencyKey,
    chargeId: randomUUID(),
    merchantId: data.merchantId,
    processor: card.processor,
    amount: data.amount,
    currency: data.currency,
    installmentId: data.installmentId,
    attempt: data.attempt,
    linkId: null,
    paymentMethodId: data.paymentMethodId,
  };
}

export function paymentSucceeded(
  requested: EventEnvelope<'charge.requested'>,
  card: PaidWithCard,
  paidAt = '2026-02-10T15:00:00.000Z',
): EventEnvelope<'payment.succeeded'> {
  return createEvent(
    'payment.succeeded',
    {
      ...purpose(requested, card),
      paidAt,
      authorizationCode: '123456',
      processorReference: `REF-${requested.data.installmentId}`,
    },
    new Date(paidAt),
  );
}

export function paymentFailed(
  requested: EventEnvelope<'charge.requested'>,
  card: PaidWithCard,
  declineCode = '51',
  category: 'soft' | 'hard' = 'soft',
): EventEnvelope<'payment.failed'> {
  return createEvent(
    'payment.failed',
    {
      ...purpose(requested, card),
      failedAt: '2026-02-10T15:00:00.000Z',
      retryable: category === 'soft',
      declineCode,
      category,
    },
    new Date(),
  );
}

export function retryScheduled(
  merchant: MerchantContext,
  installment: InstallmentRow,
  failedAttempt: number,
  nextAttemptOn: string,
): EventEnvelope<'installment.retry-scheduled'> {
  return createEvent(
    'installment.retry-scheduled',
    {
      merchantId: merchant.merchantId,
      subscriptionId: installment.subscriptionId,
      installmentId: installment.id,
      failedAttempt,
      nextAttempt: failedAttempt + 1,
      nextAttemptOn,
    },
    new Date(),
  );
}

export function dunningExhausted(
  merchant: MerchantContext,
  installment: InstallmentRow,
  attempts: number,
  reason: 'hard-decline' | 'attempts-exhausted' = 'attempts-exhausted',
  cancelAfterFailedInstallments: number | null = null,
): EventEnvelope<'installment.dunning-exhausted'> {
  return createEvent(
    'installment.dunning-exhausted',
    {
      merchantId: merchant.merchantId,
      subscriptionId: installment.subscriptionId,
      installmentId: installment.id,
      attempts,
      reason,
      cancelAfterFailedInstallments,
    },
    new Date(),
  );
}

export function cardEvent<T extends 'payment-method.saved' | 'payment-method.removed'>(
  type: T,
  merchant: MerchantContext,
  card: PaidWithCard,
): EventEnvelope<T> {
  const at = new Date().toISOString();
  const snapshot = {
    paymentMethodId: card.paymentMethodId,
    merchantId: merchant.merchantId,
    customerId: card.customerId,
    processor: card.processor,
    maskedNumber: '424242******4242',
    last4: '4242',
    brand: 'Visa',
    expiryMonth: 12,
    expiryYear: 2030,
  };
  const data =
    type === 'payment-method.saved' ? { ...snapshot, savedAt: at } : { ...snapshot, removedAt: at };
  return createEvent(type, data as never, new Date(at)) as EventEnvelope<T>;
}

/** The events of a type the service put in its outbox about one installment. */
export async function eventsAbout<T extends EventEnvelope['type']>(
  svc: ServiceUnderTest,
  type: T,
  installmentId: number,
): Promise<Array<EventEnvelope<T>>> {
  return (await eventsOfType(svc, type)).filter(
    (event) => (event.data as { installmentId?: number }).installmentId === installmentId,
  ) as Array<EventEnvelope<T>>;
}

export async function attemptRows(svc: ServiceUnderTest, installmentId: number) {
  return svc.database.db
    .select()
    .from(chargeAttempts)
    .where(eq(chargeAttempts.installmentId, installmentId))
    .orderBy(asc(chargeAttempts.attempt));
}

export type { SubscriptionRow };
