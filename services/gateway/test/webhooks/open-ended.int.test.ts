import type { ServiceUnderTest } from '@payrail/testing';
import { waitFor } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, freshId, publish, startWebhookGateway } from './support';

// An open-ended subscription (`totalPeriods: null`, every month until cancelled) has no total: every envelope
// of it says `subscriptionTotalPeriods: null`, not the 13 installments it was created with.

let gateway: ServiceUnderTest;
beforeAll(async () => {
  gateway = await startWebhookGateway({ WEBHOOK_DELIVERY_WORKER: 'false' });
});
afterAll(async () => {
  await gateway?.stop();
});

describe('an open-ended subscription in the webhook envelopes', () => {
  it('has subscriptionTotalPeriods null in every envelope, from creation to its cancel', async () => {
    const { merchantId, token } = await createMerchant(gateway);
    const linkId = freshId();
    const subscriptionId = freshId();
    const ids = Array.from({ length: 14 }, () => freshId());
    const snapshot = {
      subscriptionId,
      merchantId,
      linkId,
      type: 'STATIC' as const,
      customIdentifier: 'member-7',
      customIdentifier2: null,
      currency: 'PYG' as const,
      timezone: 'America/Asuncion',
    };
    const dateOf = (number: number) => {
      const month = 10 + number;
      return `${2026 + Math.floor((month - 1) / 12)}-${String(((month - 1) % 12) + 1).padStart(2, '0')}-05`;
    };
    await publish(gateway.bus, 'link.created', {
      linkId,
      merchantId,
      slug: `s${linkId}`,
      label: 'Gym membership',
      amount: '150000.00',
      currency: 'PYG',
      customIdentifier: 'member-7',
      customIdentifier2: null,
      paymentMethods: ['PARAGUAY.PROCESSOR_A'],
      timezone: 'America/Asuncion',
      createdAt: '2026-11-23T12:00:00.000Z',
      createdOn: '2026-11-23',
      recurrence: {
        type: 'STATIC',
        installmentAmount: '150000.00',
        totalPeriods: null,
        dayOfMonth: 5,
        monthForSecondInstallment: 1,
      },
    });
    await publish(gateway.bus, 'subscription.created', {
      ...snapshot,
      status: 'pending',
      totalPeriods: null,
      installments: ids.slice(0, 13).map((installmentId, index) => ({
        installmentId,
        number: index + 1,
        paymentDate: index === 0 ? '2026-11-23' : dateOf(index + 1),
        amount: '150000.00',
      })),
    });
    await publish(gateway.bus, 'installment.paid', {
      merchantId,
      subscriptionId,
      installmentId: ids[0] as number,
      number: 1,
      paymentDate: '2026-11-23',
      amount: '150000.00',
      currency: 'PYG',
      status: 'paid',
      invoiceNumber: null,
      timezone: 'America/Asuncion',
      paidAt: '2026-11-23T12:05:00.000Z',
      method: 'CARD',
      bankReference: null,
      paidCount: 1,
      paidTotal: '150000.00',
      chargeAttempt: null,
      txId: 'A-1',
    });
    await publish(gateway.bus, 'subscription.activated', {
      ...snapshot,
      status: 'active',
      activatedAt: '2026-11-23T12:05:00.000Z',
    });
    await publish(gateway.bus, 'installments.scheduled', {
      ...snapshot,
      status: 'active',
      installments: [
        {
          installmentId: ids[13] as number,
          number: 14,
          paymentDate: dateOf(14),
          amount: '150000.00',
          status: 'pending',
          invoiceNumber: null,
        },
      ],
    });
    await publish(gateway.bus, 'subscription.cancelled', {
      ...snapshot,
      status: 'cancelled',
      reason: 'merchant',
    });

    const envelopes = await waitFor(async () => {
      const page = await call(gateway, 'GET', '/api/events?limit=100', { token });
      const events = page.body.events as Array<{ event: string; data: Record<string, unknown> }>;
      return events.some((event) => event.event === 'SUBSCRIPTION_CANCELLED') ? events : undefined;
    });
    expect(envelopes.map((envelope) => envelope.event)).toEqual([
      'PAYMENT_SUCCESS',
      'SUBSCRIPTION_ACTIVATED',
      'SUBSCRIPTION_CANCELLED',
    ]);
    for (const envelope of envelopes) {
      expect(envelope.data, envelope.event).toMatchObject({ subscriptionId, subscriptionTotalPeriods: null });
    }
  });
});
