import { randomUUID } from 'node:crypto';
import { rowsOf } from '@payrail/db';
import type { ServiceUnderTest } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresWebhookEventLog, webhookEventLogIn } from '../../src/adapters/postgres/webhook-event-log';
import { purgeExpiredEvents } from '../../src/application/webhooks/delivery-log';
import { call, createEndpoint, createMerchant, startWebhookGateway } from './support';

// The event log for polling clients: 10,000 events appended by concurrent writers while a client
// pages through them; it sees each exactly once, in order, none skipped by a late commit.

let gateway: ServiceUnderTest;
beforeAll(async () => {
  gateway = await startWebhookGateway({ WEBHOOK_DELIVERY_WORKER: 'false' });
});
afterAll(async () => {
  await gateway?.stop();
});

const TOTAL = 10_000;
const WRITERS = 4;
const BATCH = 20;

function envelopeBody(id: string, index: number): string {
  return JSON.stringify({
    id,
    event: 'LINK_EXPIRED',
    createdAt: new Date().toISOString(),
    data: { payRequestId: index, statusId: 6 },
  });
}

describe('GET /api/events', () => {
  it('pages through 10,000 events, written concurrently, without a gap or a repeat', async () => {
    const { merchantId, token } = await createMerchant(gateway);
    const other = await createMerchant(gateway, 'Other');
    const written: string[] = [];
    let next = 0;
    // Each writer commits a batch at a time, as a busy consumer would; batches of concurrent writers
    // commit in any order, which is where a naive cursor would skip rows.
    const writer = async () => {
      while (next < TOTAL) {
        const batch = Array.from({ length: Math.min(BATCH, TOTAL - next) }, () => {
          const index = next;
          next += 1;
          const id = `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
          // Another merchant's events interleave: they are not this merchant's.
          return { id, index, owner: index % 10 === 0 ? other.merchantId : merchantId };
        });
        await gateway.database.db.transaction(async (tx) => {
          const log = webhookEventLogIn(tx);
          for (const { id, index, owner } of batch) {
            await log.appendEvent({
              id,
              merchantId: owner,
              kind: 'LINK_EXPIRED',
              orderingKey: `link:${index}`,
              body: envelopeBody(id, index),
              createdAt: new Date(),
            });
          }
        });
        for (const { id, owner } of batch) if (owner === merchantId) written.push(id);
      }
    };

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    const writing = Promise.all(Array.from({ length: WRITERS }, writer));
    let done = false;
    void writing.then(() => {
      done = true;
    });
    // Poll while the writers write, as a client catching up would, then until nothing is left.
    for (;;) {
      const query: string = cursor ? `?limit=137&after=${cursor}` : '?limit=137';
      const page = await call(gateway, 'GET', `/api/events${query}`, { token });
      expect(page.status).toBe(200);
      pages += 1;
      for (const event of page.body.events) seen.push(event.id);
      cursor = page.body.nextCursor;
      if (page.body.hasMore) continue;
      if (done && page.body.events.length === 0) break;
      // Caught up with the writers: wait a little, as a polling client does.
      if (!done) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await writing;
    expect(written).toHaveLength(TOTAL - TOTAL / 10);
    expect(seen).toHaveLength(written.length);
    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(seen)).toEqual(new Set(written));
    expect(pages).toBeGreaterThan(written.length / 137);
    // The other merchant's events are its own.
    const theirs = await call(gateway, 'GET', '/api/events?limit=1000', { token: other.token });
    expect(theirs.body.events).toHaveLength(TOTAL / 10);
    expect(theirs.body.events.some((event: { id: string }) => seen.includes(event.id))).toBe(false);
  }, 240_000);

  it('filters by type, refuses a malformed cursor, and keeps 30 days', async () => {
    const { merchantId, token } = await createMerchant(gateway, 'Retention');
    await createEndpoint(gateway, token, { url: 'https://hooks.example.com/x' });
    const log = postgresWebhookEventLog(gateway.database.db);
    const append = (kind: string, createdAt: Date) => {
      const id = `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
      return log.appendEvent({ id, merchantId, kind, orderingKey: id, body: envelopeBody(id, 1), createdAt });
    };
    const now = Date.now();
    const old = await append('LINK_EXPIRED', new Date(now - 31 * 86_400_000));
    const recent = await append('LINK_CANCELLED', new Date(now - 29 * 86_400_000));
    await append('LINK_EXPIRED', new Date(now));

    const cancelled = await call(gateway, 'GET', '/api/events?type=LINK_CANCELLED', { token });
    expect(cancelled.body.events.map((event: { id: string }) => event.id)).toEqual([recent?.id]);
    // The page's bytes: the envelope's text as it was logged, in the page's JSON.
    expect(cancelled.text).toBe(`{"events":[${recent?.body}],"nextCursor":"${recent?.seq}","hasMore":false}`);
    const refused = await call(gateway, 'GET', '/api/events?after=abc', { token });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].path).toBe('after');

    const purged = await purgeExpiredEvents({ eventLog: log, clock: { now: () => new Date(now) } });
    expect(purged).toBeGreaterThanOrEqual(1);
    const left = await call(gateway, 'GET', '/api/events', { token });
    const ids = left.body.events.map((event: { id: string }) => event.id);
    expect(ids).not.toContain(old?.id);
    expect(ids).toContain(recent?.id);
    // Its deliveries went with it.
    const deliveries = rowsOf<{ n: number }>(
      await gateway.database.db.execute(
        sql`select count(*)::int as n from gateway.webhook_deliveries where event_id = ${old?.id ?? ''}`,
      ),
    );
    expect(deliveries[0]?.n).toBe(0);
  });
});
