import { createEvent } from '@payrail/contracts';

/** The events of a one-off link, as links publishes them, for the webhook consumer's tests. */
export function linkCreatedEvent(merchantId: string, linkId: number, label: string, at: Date) {
  return createEvent(
    'link.created',
    {
      linkId,
      merchantId,
      slug: `s${linkId}`,
      label,
      amount: '150000.00',
      currency: 'PYG',
      customIdentifier: null,
      customIdentifier2: null,
      paymentMethods: [],
      timezone: 'America/Asuncion',
      createdAt: at.toISOString(),
      createdOn: '2026-11-22',
      recurrence: null,
    },
    at,
  );
}

export function linkPaidEvent(merchantId: string, linkId: number, at: Date) {
  return createEvent(
    'link.paid',
    {
      linkId,
      merchantId,
      amount: '150000.00',
      currency: 'PYG',
      paidAt: at.toISOString(),
      txId: `tx-${linkId}`,
      recurrent: false,
      method: 'CARD',
      processor: null,
      paymentMethodId: null,
      chargeId: null,
      customerId: null,
    },
    at,
  );
}
