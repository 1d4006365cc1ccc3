import { rowsOf } from '@payrail/db';
import { type ServiceUnderTest, waitFor } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createEndpoint,
  createMerchant,
  publishEveryKind,
  STORY_ENVELOPES,
  type Receiver,
  startReceiver,
  startWebhookGateway,
} from './support';

// Retries on a compressed schedule: one simulated hour is 100 ms, so the production schedule
// (5 s, 5 min, 30 min, 2 h, 5 h, then 10 h until 3 days) becomes about 7.2 seconds, and "a day" 2.4 s.
const HOUR_MS = 100;
const DAY_MS = 24 * HOUR_MS;
const COMPRESSED = {
  WEBHOOK_RETRY_SCHEDULE: '1ms,8ms,50ms,200ms,500ms,1000ms,1000ms,...',
  WEBHOOK_RETRY_WINDOW: `${3 * DAY_MS}ms`,
};

let gateway: ServiceUnderTest;
beforeAll(async () => {
  gateway = await startWebhookGateway({
    ...COMPRESSED,
    WEBHOOK_TIMEOUT_MS: '1500',
    WEBHOOK_ENDPOINT_CONCURRENCY: '2',
  });
});
afterAll(async () => {
  await gateway?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const envelopeOf = (request: Receiver['requests'][number]) =>
  JSON.parse(request.body) as {
    id: string;
    event: string;
    data: { subscriptionId: number | null; payRequestId: number };
  };

async function loggedEvents(
  token: string,
): Promise<Array<{ id: string; data: { subscriptionId: number | null; payRequestId: number } }>> {
  const page = await call(gateway, 'GET', '/api/events?limit=1000', { token });
  return page.body.events;
}

describe('retries, order and isolation', () => {
  it('a receiver down for a simulated day, then up: every event delivered, in order per subscription, one id per event', async () => {
    const receiver = await startReceiver();
    try {
      const { merchantId, token } = await createMerchant(gateway, 'Outage');
      await createEndpoint(gateway, token, { url: receiver.url, events: ['*'] });
      receiver.state.down = true;
      const stories = [];
      for (let index = 0; index < 4; index += 1)
        stories.push(await publishEveryKind(gateway.bus, merchantId));
      const log = await waitFor(async () => {
        const events = await loggedEvents(token);
        return events.length === 4 * STORY_ENVELOPES ? events : undefined;
      }, 20_000);
      // Down for a simulated day after the last event is in the log (the consumer commits a batch of
      // events at once, so a delivery may exist only a moment before that).
      await sleep(DAY_MS);
      // Down all along: attempts were made and failed, nothing got through.
      const attempted = rowsOf<{ n: number }>(
        await gateway.database.db.execute(
          sql`select count(*)::int as n from gateway.webhook_delivery_attempts a join gateway.webhook_deliveries d on d.id = a.delivery_id where d.merchant_id = ${merchantId}`,
        ),
      );
      expect(attempted[0]?.n).toBeGreaterThan(log.length);
      expect(receiver.requests).toHaveLength(0);
      receiver.state.down = false;

      await waitFor(
        () => new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size === log.length,
        15_000,
      );

      // 100 %: every logged event arrived, and every delivery is recorded delivered.
      const received = receiver.requests.map(envelopeOf);
      expect(new Set(received.map((envelope) => envelope.id))).toEqual(new Set(log.map((event) => event.id)));
      // The receiver may have the last request a moment before the worker records its answer.
      const statuses = await waitFor(async () => {
        const rows = rowsOf<{ status: string; n: number }>(
          await gateway.database.db.execute(
            sql`select status, count(*)::int as n from gateway.webhook_deliveries where merchant_id = ${merchantId} group by status`,
          ),
        );
        return rows.every((row) => row.status === 'delivered') ? rows : undefined;
      }, 5_000).catch(() => undefined);
      expect(statuses).toEqual([{ status: 'delivered', n: log.length }]);
      // None twice with different ids: the same content always carries the same webhook-id.
      const idsByBody = new Map<string, Set<string>>();
      for (const request of receiver.requests) {
        const ids = idsByBody.get(request.body) ?? new Set<string>();
        ids.add(String(request.headers['webhook-id']));
        idsByBody.set(request.body, ids);
      }
      expect([...idsByBody.values()].every((ids) => ids.size === 1)).toBe(true);
      // In order per subscription (and per link): first arrivals follow the log.
      for (const story of stories) {
        for (const belongs of [
          (data: { subscriptionId: number | null; payRequestId: number }) =>
            data.subscriptionId === story.subscriptionId,
          (data: { subscriptionId: number | null; payRequestId: number }) => data.payRequestId === story.paid,
        ]) {
          const expected = log.filter((event) => belongs(event.data)).map((event) => event.id);
          const arrived = [
            ...new Set(received.filter((envelope) => belongs(envelope.data)).map((envelope) => envelope.id)),
          ];
          expect(arrived).toEqual(expected);
          expect(expected.length).toBeGreaterThan(1);
        }
      }
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it("a receiver that hangs does not delay another merchant's deliveries", async () => {
    const stuck = await startReceiver();
    const healthy = await startReceiver();
    try {
      stuck.state.hang = true;
      const slow = await createMerchant(gateway, 'Stuck receiver');
      const fast = await createMerchant(gateway, 'Healthy receiver');
      await createEndpoint(gateway, slow.token, { url: stuck.url, events: ['*'] });
      await createEndpoint(gateway, fast.token, { url: healthy.url, events: ['*'] });
      for (let index = 0; index < 3; index += 1) await publishEveryKind(gateway.bus, slow.merchantId);
      // 3 stories of deliveries for the stuck receiver, each held 1.5 s, two at a time: about 30 s of its queue.
      await waitFor(
        async () =>
          (await call(gateway, 'GET', '/api/events?limit=100', { token: slow.token })).body.events.length ===
          3 * STORY_ENVELOPES,
        20_000,
      );
      await waitFor(() => stuck.load.open === 2);
      const started = Date.now();
      await publishEveryKind(gateway.bus, fast.merchantId);
      await waitFor(() => healthy.requests.length >= STORY_ENVELOPES, 10_000);
      const elapsed = Date.now() - started;
      // Nothing waited behind the stuck receiver's queue (it would take about 30 s to drain).
      expect(elapsed).toBeLessThan(6_000);
      // The stuck receiver never held more than its share of the senders.
      expect(stuck.load.maxOpen).toBe(2);
      expect(stuck.requests.length).toBeLessThan(3 * STORY_ENVELOPES);
    } finally {
      await Promise.all([stuck.close(), healthy.close()]);
    }
  }, 60_000);

  it('an endpoint failing for the whole retry window is disabled, the operator sees it, re-enabling resumes', async () => {
    const receiver = await startReceiver();
    try {
      receiver.state.status = 503;
      const { merchantId, token } = await createMerchant(gateway, 'Failing');
      const { id } = await createEndpoint(gateway, token, {
        url: receiver.url,
        events: ['LINK_EXPIRED', 'LINK_CANCELLED'],
      });
      await publishEveryKind(gateway.bus, merchantId);
      const disabled = await waitFor(async () => {
        const seen = await call(gateway, 'GET', `/admin/merchants/${merchantId}/webhook-endpoints/${id}`, {
          admin: true,
        });
        return seen.body.status === 'disabled' ? seen.body : undefined;
      }, 25_000);
      expect(disabled).toMatchObject({
        status: 'disabled',
        disabledReason: 'failing',
        disabledAt: expect.any(String),
      });
      const failed = await call(gateway, 'GET', `/api/webhook-deliveries?endpointId=${id}&status=failed`, {
        token,
      });
      expect(failed.body.deliveries.length).toBeGreaterThanOrEqual(1);
      expect(failed.body.deliveries[0].attempts.length).toBeGreaterThan(5);
      expect(
        failed.body.deliveries[0].attempts.every(
          (attempt: { statusCode: number }) => attempt.statusCode === 503,
        ),
      ).toBe(true);

      // While disabled, new events wait; once re-enabled (and the receiver fixed) they go.
      receiver.state.status = 200;
      const before = receiver.requests.length;
      await publishEveryKind(gateway.bus, merchantId);
      await sleep(300);
      expect(receiver.requests.length).toBe(before);
      const enabled = await call(gateway, 'PATCH', `/api/webhook-endpoints/${id}`, {
        token,
        body: { enabled: true },
      });
      expect(enabled.body).toMatchObject({ status: 'enabled', disabledReason: null });
      await waitFor(() => receiver.requests.slice(before).filter((r) => r.headers['webhook-id']).length >= 2);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
