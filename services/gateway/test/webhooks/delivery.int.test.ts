import { WEBHOOK_EVENT_KINDS } from '@payrail/contracts';
import { type ServiceUnderTest, waitFor } from '@payrail/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createEndpoint,
  createMerchant,
  publishEveryKind,
  STORY_ENVELOPES,
  SUBSCRIPTION_STORY,
  type Receiver,
  startReceiver,
  startWebhookGateway,
} from './support';

// Every event kind reaches a real HTTP receiver in the field envelope, signed so that the
// `standardwebhooks` package verifies it, by PUT with Basic auth and by POST with a token header.

let gateway: ServiceUnderTest;
let basicReceiver: Receiver;
let headerReceiver: Receiver;

beforeAll(async () => {
  [gateway, basicReceiver, headerReceiver] = await Promise.all([
    startWebhookGateway(),
    startReceiver(),
    startReceiver(),
  ]);
});
afterAll(async () => {
  await gateway?.stop();
  await Promise.all([basicReceiver?.close(), headerReceiver?.close()]);
});

describe('webhook delivery to a real receiver', () => {
  it('sends every event kind in the envelope, signed, by PUT with Basic auth and by POST with a token header', async () => {
    const { merchantId, token } = await createMerchant(gateway);
    const basic = await createEndpoint(gateway, token, {
      url: basicReceiver.url,
      method: 'PUT',
      auth: { type: 'basic', username: 'payrail', password: 'p4ss:word' },
      events: ['*'],
    });
    const header = await createEndpoint(gateway, token, {
      url: headerReceiver.url,
      method: 'POST',
      auth: { type: 'header', name: 'X-Receiver-Token', value: 'tok_8d1f6a' },
      events: ['*'],
    });
    expect(basic.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);

    const story = await publishEveryKind(gateway.bus, merchantId);
    const expectedCount = STORY_ENVELOPES;
    await waitFor(
      () => basicReceiver.requests.length >= expectedCount && headerReceiver.requests.length >= expectedCount,
    );

    for (const [receiver, endpoint, method] of [
      [basicReceiver, basic, 'PUT'],
      [headerReceiver, header, 'POST'],
    ] as const) {
      expect(receiver.requests).toHaveLength(expectedCount);
      const verifier = new Webhook(endpoint.secret);
      const envelopes = receiver.requests.map((request) => {
        expect(request.method).toBe(method);
        expect(request.headers['content-type']).toBe('application/json');
        // Throws unless the signature over id.timestamp.body is right for this secret.
        const verified = verifier.verify(request.body, {
          'webhook-id': String(request.headers['webhook-id']),
          'webhook-timestamp': String(request.headers['webhook-timestamp']),
          'webhook-signature': String(request.headers['webhook-signature']),
        }) as { id: string; event: string; data: Record<string, unknown> };
        expect(request.headers['webhook-id']).toBe(verified.id);
        return verified;
      });
      if (method === 'PUT') {
        expect(
          receiver.requests.every(
            (r) => r.headers.authorization === `Basic ${Buffer.from('payrail:p4ss:word').toString('base64')}`,
          ),
        ).toBe(true);
      } else {
        expect(receiver.requests.every((r) => r.headers['x-receiver-token'] === 'tok_8d1f6a')).toBe(true);
        expect(receiver.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
      }
      expect(new Set(envelopes.map((envelope) => envelope.event))).toEqual(new Set(WEBHOOK_EVENT_KINDS));
      // One subscription's events in the order they happened.
      const ofSubscription = envelopes.filter(
        (envelope) => envelope.data.subscriptionId === story.subscriptionId,
      );
      expect(ofSubscription.map((envelope) => envelope.event)).toEqual(SUBSCRIPTION_STORY);
      for (const envelope of envelopes) {
        expect(envelope.id).toMatch(/^evt_[0-9a-f]{24}$/);
        for (const field of [
          'txId',
          'payRequestId',
          'currency',
          'customIdentifier',
          'customIdentifier2',
          'label',
          'subscriptionTotalPeriods',
          'subscriptionPayedPeriod',
        ])
          expect(envelope.data, `${envelope.event} ${field}`).toHaveProperty(field);
        // Identifiers are strings for the receiver's strict table; only payments carry a statusId (a
        // refund's is 9: money given back, never 200).
        expect(typeof envelope.data.customIdentifier, envelope.event).toBe('string');
        expect(typeof envelope.data.customIdentifier2, envelope.event).toBe('string');
        const payment = ['PAYMENT_SUCCESS', 'PAYMENT_FAILED', 'PAYMENT_REFUNDED'].includes(envelope.event);
        expect('statusId' in envelope.data, envelope.event).toBe(payment);
        if (envelope.event === 'PAYMENT_REFUNDED') expect(envelope.data.statusId).toBe(9);
      }
    }

    // The field envelope, as receivers parse it: amount a JSON number written with two decimals.
    const firstPayment = basicReceiver.requests.find((request) => request.body.includes('"PAYMENT_SUCCESS"'));
    expect(firstPayment?.body).toContain('"amount":150000.00');
    const payment = JSON.parse(firstPayment?.body ?? '{}');
    expect(payment).toMatchObject({
      event: 'PAYMENT_SUCCESS',
      createdAt: expect.any(String),
      data: {
        txId: story.movements.firstPayment,
        payRequestId: story.linkId,
        currency: 'PYG',
        amount: 150000,
        statusId: 200,
        customIdentifier: '4567890',
        label: 'Gym membership',
        subscriptionId: story.subscriptionId,
        subscriptionTotalPeriods: 3,
        subscriptionPayedPeriod: 1,
        paidCount: 1,
        paidTotal: 150000,
      },
    });
    expect(firstPayment?.body).toContain('"paidTotal":150000.00');
    // A refund's money is written the same way: what went back, and the payment's refunds so far.
    const refunded = basicReceiver.requests.find((request) => request.body.includes('"DEV-000042"'));
    expect(refunded?.body).toContain('"amount":60000.00');
    expect(refunded?.body).toContain('"statusId":9');
    expect(refunded?.body).toContain('"refundedAmount":60000.00');
    const installmentFailed = JSON.parse(
      basicReceiver.requests.find((request) => request.body.includes('"INSTALLMENT_FAILED"'))?.body ?? '{}',
    );
    expect(installmentFailed.data).toMatchObject({
      subscriptionId: story.subscriptionId,
      amount: 160000,
      // One period paid so far; the one that failed is the second.
      subscriptionPayedPeriod: 1,
      installmentNumber: 2,
      attempts: 1,
      declineCode: 'insufficient_funds',
      declineReason: 'hard',
      failedAt: '2026-12-05T09:00:00.000Z',
    });
    expect(installmentFailed.data).not.toHaveProperty('statusId');
    const failed = JSON.parse(
      basicReceiver.requests.find((request) => request.body.includes(`"payRequestId":${story.paid}`))?.body ??
        '{}',
    );
    expect(failed).toMatchObject({
      event: 'PAYMENT_FAILED',
      data: {
        statusId: 5,
        declineCode: 'do_not_honor',
        declineReason: 'soft',
        label: 'T-shirt',
        amount: 50000,
      },
    });
    const expired = basicReceiver.requests
      .map((r) => JSON.parse(r.body))
      .find((e) => e.event === 'LINK_EXPIRED');
    expect(expired.data).toMatchObject({
      payRequestId: story.expired,
      amount: 50000,
      label: 'Expired offer',
    });
    expect(expired.data).not.toHaveProperty('statusId');
    const cancelled = basicReceiver.requests
      .map((r) => JSON.parse(r.body))
      .find((e) => e.event === 'LINK_CANCELLED');
    expect(cancelled.data).toMatchObject({
      payRequestId: story.cancelled,
      amount: 50000,
      reason: 'merchant',
    });
    expect(cancelled.data).not.toHaveProperty('statusId');
    const subscriptionCancelled = basicReceiver.requests
      .map((r) => JSON.parse(r.body))
      .find((e) => e.event === 'SUBSCRIPTION_CANCELLED');
    expect(subscriptionCancelled.data).toMatchObject({
      subscriptionId: story.subscriptionId,
      subscriptionStatus: 'cancelled',
      reason: 'merchant',
    });

    // The same envelopes, byte for byte, in the event log.
    const log = await call(gateway, 'GET', '/api/events?limit=1000', { token });
    expect(log.status).toBe(200);
    expect(log.body.events.map((event: { id: string }) => event.id).sort()).toEqual(
      basicReceiver.requests.map((request) => request.headers['webhook-id']).sort(),
    );
    expect(log.text).toContain(firstPayment?.body);
  });

  it('an endpoint that takes only some kinds gets only those', async () => {
    const receiver = await startReceiver();
    try {
      const { merchantId, token } = await createMerchant(gateway, 'Picky');
      await createEndpoint(gateway, token, { url: receiver.url, events: ['LINK_EXPIRED', 'PAYMENT_FAILED'] });
      await publishEveryKind(gateway.bus, merchantId);
      await waitFor(() => receiver.requests.length >= 3);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.requests.map((r) => JSON.parse(r.body).event).sort()).toEqual([
        'LINK_EXPIRED',
        'PAYMENT_FAILED',
        'PAYMENT_FAILED',
      ]);
    } finally {
      await receiver.close();
    }
  });
});
