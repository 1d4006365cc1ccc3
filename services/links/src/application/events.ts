import {
  createEvent,
  type EventEnvelope,
  type MerchantContext,
  PROCESSORS,
  type Processor,
} from '@payrail/contracts';
import { localDate } from '@payrail/time';
import type { PaymentLink } from '../domain/payment-link';

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
