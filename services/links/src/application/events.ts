import {
  createEvent,
  DECLINE_CATEGORIES,
  type EventEnvelope,
  type MerchantContext,
  PROCESSORS,
  type Processor,
} from '@payrail/contracts';
import { localDate } from '@payrail/time';
import type { PaymentLink } from '../domain/payment-link';
import type { LinkPayment } from '../ports/link-payment-repository';

/** Builders of the events this service publishes (README: events out). */

export function linkCreatedEvent(link: PaymentLink, merchant: MerchantContext, now: Date): EventEnvelope {
  return createEvent(
    'link.created',
    {
      linkId: link.id,
      merchantId: link.merchantId,
      slug: link.slug,
      label: link.label,
      amount: link.amount,
      currency: link.currency as MerchantContext['currency'],
      customIdentifier: link.customIdentifier,
      customIdentifier2: link.customIdentifier2,
      handleValue: link.handleValue,
      handleLabel: link.handleLabel,
      paymentMethods: link.paymentMethods.filter((p): p is Processor =>
        (PROCESSORS as readonly string[]).includes(p),
      ),
      timezone: merchant.timezone,
      createdAt: link.createdAt.toISOString(),
      // The schedule's months are the merchant's calendar months, not UTC's.
      createdOn: localDate(link.createdAt, merchant.timezone),
      recurrence: link.recurrence,
    },
    now,
  );
}

export function linkCancelledEvent(
  link: PaymentLink,
  reason: 'merchant' | 'subscription-cancelled',
  now: Date,
): EventEnvelope {
  return createEvent(
    'link.cancelled',
    {
      linkId: link.id,
      merchantId: link.merchantId,
      amount: link.amount,
      currency: link.currency as MerchantContext['currency'],
      cancelledAt: now.toISOString(),
      reason,
    },
    now,
  );
}

/**
 * A card paid the link on the pay page: the processor, the vault's card, our charge (the money movement's
 * `txId`), what the processor knows it by, and who paid.
 */
export function linkPaidByCardEvent(
  link: PaymentLink,
  attempt: LinkPayment,
  chargeId: string,
  now: Date,
  processor: { processorReference: string | null; authorizationCode: string | null } = {
    processorReference: null,
    authorizationCode: null,
  },
) {
  return createEvent(
    'link.paid',
    {
      linkId: link.id,
      merchantId: link.merchantId,
      amount: link.amount,
      currency: link.currency as MerchantContext['currency'],
      paidAt: (link.paidAt ?? now).toISOString(),
      txId: chargeId,
      // Only a customer who chose the subscription starts it: a one-off payment of a link that offers both
      // is not a subscription.
      recurrent: link.recurrence !== null && attempt.subscription,
      method: 'CARD',
      processor: attempt.processor,
      paymentMethodId: attempt.paymentMethodId,
      chargeId,
      customerId: attempt.customerId,
      processorReference: processor.processorReference,
      authorizationCode: processor.authorizationCode,
      bankReference: null,
      bankTransfer: null,
    },
    now,
  );
}

/** A card attempt on the pay page was declined: statusId 5, still payable. */
export function linkPaymentFailedEvent(
  link: PaymentLink,
  attempt: LinkPayment,
  now: Date,
  processorReference: string | null = null,
): EventEnvelope | undefined {
  // A card the processor refused to register made no charge: the link is 5, with nothing to report.
  if (!attempt.chargeId) return undefined;
  return createEvent(
    'link.payment-failed',
    {
      linkId: link.id,
      merchantId: link.merchantId,
      amount: link.amount,
      currency: link.currency as MerchantContext['currency'],
      failedAt: now.toISOString(),
      processor: attempt.processor,
      chargeId: attempt.chargeId,
      declineCode: attempt.declineCode ?? 'UNKNOWN',
      category: (DECLINE_CATEGORIES as readonly string[]).includes(attempt.declineCategory ?? '')
        ? (attempt.declineCategory as (typeof DECLINE_CATEGORIES)[number])
        : 'hard',
      processorReference,
    },
    now,
  );
}

/** `payWaitHours` passed unpaid: statusId 6. */
export function linkExpiredEvent(link: PaymentLink, now: Date): EventEnvelope {
  return createEvent(
    'link.expired',
    {
      linkId: link.id,
      merchantId: link.merchantId,
      amount: link.amount,
      currency: link.currency as MerchantContext['currency'],
      expiredAt: now.toISOString(),
    },
    now,
  );
}
