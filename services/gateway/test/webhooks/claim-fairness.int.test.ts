import { rowsOf } from '@payrail/db';
import { type ServiceUnderTest, TEST_INTERNAL_SECRET, waitFor } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretSealer } from '../../src/adapters/postgres/secret-sealer';
import { postgresWebhookDeliveryStore } from '../../src/adapters/postgres/webhook-delivery-store';
import { countingDatabase } from './statement-counter';
import { createEndpoint, createMerchant, startReceiver, startWebhookGateway } from './support';

// One endpoint with a long backlog of due deliveries (a receiver that hangs: its backlog drains at its
// per-endpoint cap per timeout) must not hold up another endpoint's delivery: the worker's claim offers
// each endpoint only what it has left of its cap, never the first rows of one queue over all endpoints.

/** Queues `count` due deliveries for one endpoint, each an event of its own ordering key, due at `at`. */
async function queueDeliveries(
  gateway: ServiceUnderTest,
  endpoint: { id: string; merchantId: string },
  count: number,
  at: Date,
  orderingKey?: string,
): Promise<string[]> {
  const rows = rowsOf<{ id: string }>(
    await gateway.database.db.execute(sql`
      with logged as (
        insert into gateway.webhook_events (id, merchant_id, kind, ordering_key, body, created_at)
        select 'evt_' || gen_random_uuid(), ${endpoint.merchantId}::uuid, 'PAYMENT_SUCCESS',
               coalesce(${orderingKey ?? null}::text, 'link:' || gen_random_uuid()), '{"n":' || g || '}',
               ${at.toISOString()}::timestamptz
          from generate_series(1, ${count}::int) g
        returning seq, id, ordering_key
      )
      insert into gateway.webhook_deliveries
        (id, endpoint_id, merchant_id, event_seq, event_id, kind, ordering_key, origin, status,
         next_attempt_at, created_at)
      select gen_random_uuid(), ${endpoint.id}::uuid, ${endpoint.merchantId}::uuid, seq, id, 'PAYMENT_SUCCESS',
             ordering_key, 'event', 'pending', ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz
        from logged
       order by seq
      returning id`),
  );
  return rows.map((row) => row.id);
}

async function endpointOfNewMerchant(gateway: ServiceUnderTest, name: string, url: string) {
  const merchant = await createMerchant(gateway, name);
  const endpoint = await createEndpoint(gateway, merchant.token, { url, events: ['*'] });
  return { id: endpoint.id, merchantId: merchant.merchantId };
}

describe('the claim of due deliveries, fair between endpoints', () => {
  let gateway: ServiceUnderTest;
  beforeAll(async () => {
    // No worker: the test claims by hand.
    gateway = await startWebhookGateway({ WEBHOOK_DELIVERY_WORKER: 'false' });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it("an endpoint at its cap with 500 due deliveries ahead does not hide another endpoint's", async () => {
    const store = postgresWebhookDeliveryStore(gateway.database.db, secretSealer(TEST_INTERNAL_SECRET));
    const base = new Date('2026-11-24T10:00:00Z');
    const backlogged = await endpointOfNewMerchant(gateway, 'Backlogged', 'http://127.0.0.1:9/a');
    const other = await endpointOfNewMerchant(gateway, 'Other', 'http://127.0.0.1:9/b');
    const backlog = await queueDeliveries(gateway, backlogged, 500, base);
    // Due after every one of the backlog's: last in the order of due time.
    const [single] = await queueDeliveries(gateway, other, 1, new Date(base.getTime() + 1_000));
    // Three more of one ordering key: only the first may be sent while it is pending.
    const chain = await queueDeliveries(
      gateway,
      other,
      3,
      new Date(base.getTime() + 2_000),
      'subscription:7',
    );
    const leaseMs = 60_000;
    let now = new Date(base.getTime() + 10_000);
    /** Each claim after the leases of the one before have lapsed: every delivery is claimable again. */
    const later = () => {
      now = new Date(now.getTime() + 2 * leaseMs);
      return now;
    };
    const claim = (limit: number, busy: Array<[string, number]>, at = later()) =>
      store.claimDue({
        now: at,
        limit,
        perEndpoint: 4,
        busy: new Map(busy),
        leaseUntil: new Date(at.getTime() + leaseMs),
      });

    // The backlogged endpoint at its cap (4 of 4 in flight): the other's deliveries are claimed.
    const whileSaturated = await claim(28, [[backlogged.id, 4]]);
    expect(whileSaturated.map((delivery) => delivery.id).sort()).toEqual([single, chain[0]].sort());
    expect(whileSaturated.every((delivery) => delivery.endpoint.id === other.id)).toBe(true);

    // Nothing in flight: the oldest first, at most 4 of one endpoint, so the other's come in too.
    const free = await claim(32, []);
    expect(
      free
        .filter((delivery) => delivery.endpoint.id === backlogged.id)
        .map((d) => d.id)
        .sort(),
    ).toEqual(backlog.slice(0, 4).sort());
    expect(
      free
        .filter((delivery) => delivery.endpoint.id === other.id)
        .map((d) => d.id)
        .sort(),
    ).toEqual([single, chain[0]].sort());

    // Three of the backlogged endpoint's in flight: one more of it; the limit counts over all endpoints.
    const ids = (claimed: Array<{ id: string }>) => claimed.map((delivery) => delivery.id).sort();
    const oneLeft = await claim(28, [[backlogged.id, 3]]);
    expect(ids(oneLeft)).toEqual(
      ids([{ id: backlog[0] as string }, { id: single as string }, { id: chain[0] as string }]),
    );
    const limited = await claim(2, [[backlogged.id, 3]]);
    expect(ids(limited)).toEqual(ids([{ id: backlog[0] as string }, { id: single as string }]));

    // Two workers claiming at once never take the same delivery (the claim is checked on the locked row).
    const at = later();
    const [first, second] = await Promise.all([claim(32, [], at), claim(32, [], at)]);
    const both = [...first, ...second].map((delivery) => delivery.id);
    expect(both.length).toBeGreaterThan(0);
    expect(new Set(both).size).toBe(both.length);

    // Two statements a claim, whatever it takes: the candidates, then the lease with envelopes and endpoints.
    const counting = countingDatabase(gateway.database.db);
    const counted = postgresWebhookDeliveryStore(counting.db, secretSealer(TEST_INTERNAL_SECRET));
    const countedAt = later();
    const claimed = await counted.claimDue({
      now: countedAt,
      limit: 32,
      perEndpoint: 4,
      busy: new Map(),
      leaseUntil: new Date(countedAt.getTime() + leaseMs),
    });
    expect(counting.counter.statements).toBe(2);
    expect(ids(claimed)).toEqual(ids(free));
    const sent = claimed.find((delivery) => delivery.id === single);
    expect(sent?.eventBody).toMatch(/^\{"n":/);
    expect(sent?.endpoint).toMatchObject({
      id: other.id,
      merchantId: other.merchantId,
      url: 'http://127.0.0.1:9/b',
    });
    expect(sent?.endpoint.secret).toMatch(/^whsec_/);
    expect(sent?.endpoint.createdAt).toBeInstanceOf(Date);
  });
});

describe('claims let go of', () => {
  let gateway: ServiceUnderTest;
  beforeAll(async () => {
    gateway = await startWebhookGateway({ WEBHOOK_DELIVERY_WORKER: 'false' });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('are claimable again at once, unless the lease released is no longer the one they hold', async () => {
    const store = postgresWebhookDeliveryStore(gateway.database.db, secretSealer(TEST_INTERNAL_SECRET));
    const at = new Date('2026-11-24T10:00:00Z');
    const endpoint = await endpointOfNewMerchant(gateway, 'Releasing', 'http://127.0.0.1:9/r');
    const [first, second] = await queueDeliveries(gateway, endpoint, 2, at);
    const now = new Date(at.getTime() + 1_000);
    const leaseUntil = new Date(now.getTime() + 45_000);
    const claim = () => store.claimDue({ now, limit: 8, perEndpoint: 4, busy: new Map(), leaseUntil });
    expect((await claim()).map((delivery) => delivery.id).sort()).toEqual([first, second].sort());
    expect(await claim()).toEqual([]);
    // The first released with its lease; the second with another (as if its lease had lapsed and
    // another worker held it now): that one stays claimed.
    await store.releaseClaims([
      { id: first as string, leaseUntil },
      { id: second as string, leaseUntil: new Date(leaseUntil.getTime() - 1) },
    ]);
    expect((await claim()).map((delivery) => delivery.id)).toEqual([first]);
  });
});

describe('the worker, one receiver hanging with a backlog', () => {
  let gateway: ServiceUnderTest;
  beforeAll(async () => {
    // A hanging receiver holds each of its 4 sends for 20 s: its backlog of 500 would take 40 minutes.
    gateway = await startWebhookGateway({
      WEBHOOK_TIMEOUT_MS: '20000',
      WEBHOOK_ENDPOINT_CONCURRENCY: '4',
      WEBHOOK_CONCURRENCY: '32',
    });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it("another merchant's delivery arrives at once", async () => {
    const stuck = await startReceiver();
    const healthy = await startReceiver();
    const hanging = await endpointOfNewMerchant(gateway, 'Hanging receiver', stuck.url);
    try {
      stuck.state.hang = true;
      const answering = await endpointOfNewMerchant(gateway, 'Answering receiver', healthy.url);
      await queueDeliveries(gateway, hanging, 500, new Date());
      await waitFor(() => stuck.load.open === 4, 10_000);
      const started = Date.now();
      await queueDeliveries(gateway, answering, 1, new Date());
      await waitFor(() => healthy.requests.length === 1, 5_000);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(stuck.load.maxOpen).toBe(4);
    } finally {
      // Switched off before the receiver lets go, so the worker does not go on with the backlog.
      await gateway.database.db.execute(
        sql`update gateway.webhook_endpoints set enabled = false where id = ${hanging.id}::uuid`,
      );
      await Promise.all([stuck.close(), healthy.close()]);
    }
  }, 30_000);
});
