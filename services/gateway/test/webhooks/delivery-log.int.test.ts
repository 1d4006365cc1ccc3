import { type ServiceUnderTest, waitFor } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createEndpoint,
  createMerchant,
  publish,
  publishEveryKind,
  STORY_ENVELOPES,
  SUBSCRIPTION_STORY,
  type Receiver,
  startReceiver,
  startWebhookGateway,
} from './support';

// The delivery log (each attempt: time, status, duration, first 1 KB), a single retry and a range
// replay, all through the API.

let gateway: ServiceUnderTest;
let receiver: Receiver;
beforeAll(async () => {
  [gateway, receiver] = await Promise.all([
    startWebhookGateway({ WEBHOOK_RETRY_SCHEDULE: '20ms,20ms' }),
    startReceiver(),
  ]);
});
afterAll(async () => {
  await Promise.all([gateway?.stop(), receiver?.close()]);
});

describe('delivery log, retry and replay', () => {
  it('logs each attempt, retries one delivery on request, and replays a time range in order', async () => {
    const { merchantId, token } = await createMerchant(gateway);
    const { id: endpointId } = await createEndpoint(gateway, token, { url: receiver.url, events: ['*'] });
    const other = await createMerchant(gateway, 'Other');

    // The receiver refuses with a long answer: three attempts, then the delivery has failed.
    receiver.state.status = 500;
    await publish(gateway.bus, 'link.created', {
      linkId: 90_001,
      merchantId,
      slug: 'x90001',
      label: 'Lamp',
      amount: '70000.00',
      currency: 'PYG',
      customIdentifier: null,
      customIdentifier2: null,
      paymentMethods: ['PARAGUAY.PROCESSOR_A'],
      timezone: 'America/Asuncion',
      createdAt: '2026-11-23T12:00:00.000Z',
      createdOn: '2026-11-23',
      recurrence: null,
    });
    await publish(gateway.bus, 'link.expired', {
      linkId: 90_001,
      merchantId,
      amount: '70000.00',
      currency: 'PYG',
      expiredAt: '2026-11-24T12:00:00.000Z',
    });
    const failed = await waitFor(async () => {
      const page = await call(
        gateway,
        'GET',
        `/api/webhook-deliveries?status=failed&endpointId=${endpointId}`,
        { token },
      );
      return page.body.deliveries[0];
    });
    expect(failed).toMatchObject({ endpointId, event: 'LINK_EXPIRED', status: 'failed', origin: 'event' });
    expect(failed.attempts).toHaveLength(3);
    for (const attempt of failed.attempts) {
      expect(attempt).toMatchObject({ statusCode: 500, response: 'refused with 500', error: null });
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(attempt.attemptedAt)).toBeGreaterThan(0);
    }
    expect(receiver.requests).toHaveLength(3);

    // Out of retries with nothing delivered since: the endpoint was switched off. The merchant fixes the
    // receiver, switches it on, and asks for that one delivery again: the same event, same id, once more.
    const endpoint = await call(gateway, 'GET', `/api/webhook-endpoints/${endpointId}`, { token });
    expect(endpoint.body).toMatchObject({ status: 'disabled', disabledReason: 'failing' });
    receiver.state.status = 200;
    const enabled = await call(gateway, 'PATCH', `/api/webhook-endpoints/${endpointId}`, {
      token,
      body: { enabled: true },
    });
    expect(enabled.body.status).toBe('enabled');
    const retried = await call(gateway, 'POST', `/api/webhook-deliveries/${failed.id}/retry`, { token });
    expect(retried.status).toBe(202);
    expect(retried.body.eventId).toBe(failed.eventId);
    await waitFor(() => receiver.requests.length === 4);
    expect(receiver.requests[3]?.headers['webhook-id']).toBe(failed.eventId);
    expect(receiver.requests[3]?.body).toBe(receiver.requests[0]?.body);
    const retry = await waitFor(async () => {
      const page = await call(gateway, 'GET', `/api/webhook-deliveries?status=delivered`, { token });
      return page.body.deliveries.find((delivery: { id: string }) => delivery.id === retried.body.deliveryId);
    });
    expect(retry).toMatchObject({ origin: 'retry', status: 'delivered', attempts: [{ statusCode: 200 }] });

    // Another merchant sees none of it.
    expect(
      (await call(gateway, 'GET', '/api/webhook-deliveries', { token: other.token })).body.deliveries,
    ).toEqual([]);
    expect(
      (await call(gateway, 'POST', `/api/webhook-deliveries/${failed.id}/retry`, { token: other.token }))
        .status,
    ).toBe(404);

    // Range replay: the story's events, again, in log order, each with its original id.
    const from = new Date().toISOString();
    await publishEveryKind(gateway.bus, merchantId);
    const log = await waitFor(async () => {
      const events = (await call(gateway, 'GET', '/api/events?limit=100', { token })).body.events;
      return events.length === 1 + STORY_ENVELOPES ? events : undefined;
    });
    await waitFor(() => receiver.requests.length === 4 + STORY_ENVELOPES);
    // The envelopes' times are the events' own (2026-11-23T12:00 and later, as published): replay
    // the range that holds the story but not the expired lamp.
    const storyEvents = log.slice(1);
    const replayFrom = storyEvents[0].createdAt;
    const replayTo = new Date(Date.parse(storyEvents.at(-1).createdAt) + 1).toISOString();
    expect(from).toBeDefined();
    const replayed = await call(gateway, 'POST', `/api/webhook-endpoints/${endpointId}/replay`, {
      token,
      body: { from: replayFrom, to: replayTo },
    });
    expect(replayed.status).toBe(202);
    expect(replayed.body.replayed).toBe(STORY_ENVELOPES);
    await waitFor(() => receiver.requests.length === 4 + 2 * STORY_ENVELOPES);
    const replayedIds = receiver.requests.slice(4 + STORY_ENVELOPES).map((r) => r.headers['webhook-id']);
    expect(new Set(replayedIds)).toEqual(new Set(storyEvents.map((event: { id: string }) => event.id)));
    // Per subscription and per link, in log order.
    const subscriptionEvents = storyEvents.slice(0, SUBSCRIPTION_STORY.length);
    const order = (ids: unknown[]) =>
      ids.filter((id) => subscriptionEvents.some((event: { id: string }) => event.id === id));
    expect(order(replayedIds)).toEqual(subscriptionEvents.map((event: { id: string }) => event.id));

    // Paging the log: newest first, a cursor for the rest, filters.
    const first = await call(gateway, 'GET', '/api/webhook-deliveries?limit=10', { token });
    expect(first.body.deliveries).toHaveLength(10);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call(
      gateway,
      'GET',
      `/api/webhook-deliveries?limit=100&cursor=${first.body.nextCursor}`,
      { token },
    );
    const all = [...first.body.deliveries, ...second.body.deliveries].map(
      (delivery: { id: string }) => delivery.id,
    );
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(1 + 1 + 2 * STORY_ENVELOPES);
    expect(second.body.nextCursor).toBeNull();
    const replays = await call(gateway, 'GET', '/api/webhook-deliveries?limit=100&event=PAYMENT_SUCCESS', {
      token,
    });
    expect(
      replays.body.deliveries.every((delivery: { event: string }) => delivery.event === 'PAYMENT_SUCCESS'),
    ).toBe(true);
    // The story's four payments, delivered and replayed.
    expect(replays.body.deliveries).toHaveLength(8);

    // A range with `to` before `from` is refused, nothing queued.
    const backwards = await call(gateway, 'POST', `/api/webhook-endpoints/${endpointId}/replay`, {
      token,
      body: { from: replayTo, to: replayFrom },
    });
    expect(backwards.status).toBe(400);
    expect(backwards.body.errors[0].path).toBe('to');
  });

  it('keeps the first 1 KB of a long answer', async () => {
    const chatty = await startReceiver();
    try {
      chatty.state.status = 299;
      chatty.state.answer = 'é'.repeat(2000);
      const { token } = await createMerchant(gateway, 'Chatty');
      const { id } = await createEndpoint(gateway, token, { url: chatty.url });
      const test = await call(gateway, 'POST', `/api/webhook-endpoints/${id}/test`, { token });
      const delivery = await waitFor(async () => {
        const page = await call(gateway, 'GET', `/api/webhook-deliveries?endpointId=${id}`, { token });
        return page.body.deliveries.find(
          (d: { eventId: string; status: string }) =>
            d.eventId === test.body.eventId && d.status === 'delivered',
        );
      });
      expect(delivery.origin).toBe('test');
      expect(delivery.attempts[0].statusCode).toBe(299);
      // 1024 bytes of two-byte characters: 512 of them, none cut in half.
      expect(delivery.attempts[0].response).toBe('é'.repeat(512));
    } finally {
      await chatty.close();
    }
  });
});
