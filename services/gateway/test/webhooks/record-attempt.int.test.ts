import { rowsOf } from '@payrail/db';
import { type ServiceUnderTest, TEST_INTERNAL_SECRET } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretSealer } from '../../src/adapters/postgres/secret-sealer';
import { postgresWebhookDeliveryStore } from '../../src/adapters/postgres/webhook-delivery-store';
import { createEndpoint, createMerchant, startWebhookGateway } from './support';

// An attempt's outcome, written in one statement: the attempt row, the delivery's new state, and by the
// outcome the endpoint's last success or its switching off (failing for the whole retry window, with
// nothing delivered to it since the failing delivery was made).

interface DeliveryRow {
  status: string;
  attempt_count: number;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  lease_until: Date | null;
}
interface EndpointRow {
  enabled: boolean;
  last_success_at: Date | null;
  disabled_reason: string | null;
}

describe('recording a delivery attempt', () => {
  let gateway: ServiceUnderTest;
  beforeAll(async () => {
    gateway = await startWebhookGateway({ WEBHOOK_DELIVERY_WORKER: 'false' });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  const store = () => postgresWebhookDeliveryStore(gateway.database.db, secretSealer(TEST_INTERNAL_SECRET));

  /** A merchant with an endpoint and one pending delivery of an event, leased as a claim leaves it. */
  async function pendingDelivery(name: string) {
    const merchant = await createMerchant(gateway, name);
    const endpoint = await createEndpoint(gateway, merchant.token, {
      url: 'http://127.0.0.1:9/x',
      events: ['*'],
    });
    const [row] = rowsOf<{ id: string }>(
      await gateway.database.db.execute(sql`
        with logged as (
          insert into gateway.webhook_events (id, merchant_id, kind, ordering_key, body, created_at)
          values ('evt_' || gen_random_uuid(), ${merchant.merchantId}::uuid, 'PAYMENT_SUCCESS',
                  'link:' || gen_random_uuid(), '{}', '2026-11-20T10:00:00Z')
          returning seq, id, ordering_key
        )
        insert into gateway.webhook_deliveries
          (id, endpoint_id, merchant_id, event_seq, event_id, kind, ordering_key, origin, status,
           next_attempt_at, lease_until, created_at)
        select gen_random_uuid(), ${endpoint.id}::uuid, ${merchant.merchantId}::uuid, seq, id, 'PAYMENT_SUCCESS',
               ordering_key, 'event', 'pending', '2026-11-20T10:00:00Z', '2030-01-01T00:00:00Z', '2026-11-20T10:00:00Z'
          from logged
        returning id`),
    );
    return { deliveryId: (row as { id: string }).id, endpointId: endpoint.id };
  }

  const deliveryOf = async (id: string) =>
    rowsOf<DeliveryRow>(
      await gateway.database.db.execute(sql`
        select status, attempt_count, next_attempt_at, delivered_at, lease_until
          from gateway.webhook_deliveries where id = ${id}::uuid`),
    )[0] as DeliveryRow;
  const endpointOf = async (id: string) =>
    rowsOf<EndpointRow>(
      await gateway.database.db.execute(sql`
        select enabled, last_success_at, disabled_reason from gateway.webhook_endpoints where id = ${id}::uuid`),
    )[0] as EndpointRow;
  const attemptsOf = async (id: string) =>
    rowsOf<{
      status_code: number | null;
      duration_ms: number;
      response: string | null;
      error: string | null;
    }>(
      await gateway.database.db.execute(sql`
        select status_code, duration_ms, response, error from gateway.webhook_delivery_attempts
         where delivery_id = ${id}::uuid order by id`),
    );
  const time = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

  it('delivered: the attempt, the delivery delivered and its lease gone, the endpoint’s last success', async () => {
    const { deliveryId, endpointId } = await pendingDelivery('Delivered');
    const at = new Date('2026-11-20T10:00:01.250Z');
    const result = await store().recordAttempt(
      deliveryId,
      {
        attemptedAt: new Date('2026-11-20T10:00:01Z'),
        statusCode: 200,
        durationMs: 250,
        response: 'ok',
        error: null,
      },
      { kind: 'delivered', at },
    );
    expect(result).toEqual({ endpointDisabled: false });
    const delivery = await deliveryOf(deliveryId);
    expect(delivery).toMatchObject({
      status: 'delivered',
      attempt_count: 1,
      next_attempt_at: null,
      lease_until: null,
    });
    expect(time(delivery.delivered_at)).toBe(at.toISOString());
    expect(await attemptsOf(deliveryId)).toEqual([
      { status_code: 200, duration_ms: 250, response: 'ok', error: null },
    ]);
    const endpoint = await endpointOf(endpointId);
    expect(endpoint.enabled).toBe(true);
    expect(time(endpoint.last_success_at)).toBe(at.toISOString());
  });

  it('retry: pending again at its next time, the endpoint untouched', async () => {
    const { deliveryId, endpointId } = await pendingDelivery('Retry');
    const next = new Date('2026-11-20T10:05:00Z');
    const result = await store().recordAttempt(
      deliveryId,
      {
        attemptedAt: new Date('2026-11-20T10:00:01Z'),
        statusCode: null,
        durationMs: 10_000,
        response: null,
        error: 'timeout',
      },
      { kind: 'retry', at: next },
    );
    expect(result).toEqual({ endpointDisabled: false });
    const delivery = await deliveryOf(deliveryId);
    expect(delivery).toMatchObject({
      status: 'pending',
      attempt_count: 1,
      delivered_at: null,
      lease_until: null,
    });
    expect(time(delivery.next_attempt_at)).toBe(next.toISOString());
    expect(await attemptsOf(deliveryId)).toEqual([
      { status_code: null, duration_ms: 10_000, response: null, error: 'timeout' },
    ]);
    expect(await endpointOf(endpointId)).toMatchObject({ enabled: true, last_success_at: null });
  });

  it('failed with a success since the failing delivery was made: the endpoint stays on', async () => {
    const { deliveryId, endpointId } = await pendingDelivery('Recovered since');
    await gateway.database.db.execute(sql`
      update gateway.webhook_endpoints set last_success_at = '2026-11-21T00:00:00Z' where id = ${endpointId}::uuid`);
    const result = await store().recordAttempt(
      deliveryId,
      {
        attemptedAt: new Date('2026-11-23T10:00:00Z'),
        statusCode: 500,
        durationMs: 5,
        response: 'no',
        error: null,
      },
      {
        kind: 'failed',
        at: new Date('2026-11-23T10:00:00Z'),
        disableEndpointIfFailingSince: new Date('2026-11-20T10:00:00Z'),
      },
    );
    expect(result).toEqual({ endpointDisabled: false });
    expect((await deliveryOf(deliveryId)).status).toBe('failed');
    expect(await endpointOf(endpointId)).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it('failed with no success since: the endpoint is switched off as failing, once', async () => {
    const { deliveryId, endpointId } = await pendingDelivery('Failing');
    await gateway.database.db.execute(sql`
      update gateway.webhook_endpoints set last_success_at = '2026-11-19T00:00:00Z' where id = ${endpointId}::uuid`);
    const outcome = {
      kind: 'failed' as const,
      at: new Date('2026-11-23T10:00:00Z'),
      disableEndpointIfFailingSince: new Date('2026-11-20T10:00:00Z'),
    };
    const attempt = { attemptedAt: outcome.at, statusCode: 503, durationMs: 5, response: null, error: null };
    expect(await store().recordAttempt(deliveryId, attempt, outcome)).toEqual({ endpointDisabled: true });
    expect(await endpointOf(endpointId)).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    // A second failure finds it off already: not switched off twice.
    const second = await pendingDelivery('Failing again');
    await gateway.database.db.execute(sql`
      update gateway.webhook_deliveries set endpoint_id = ${endpointId}::uuid where id = ${second.deliveryId}::uuid`);
    expect(await store().recordAttempt(second.deliveryId, attempt, outcome)).toEqual({
      endpointDisabled: false,
    });
  });

  it('an unknown delivery: nothing recorded, nothing switched off', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    await expect(
      store().recordAttempt(
        unknown,
        { attemptedAt: new Date(), statusCode: 500, durationMs: 1, response: null, error: null },
        { kind: 'failed', at: new Date(), disableEndpointIfFailingSince: new Date() },
      ),
    ).rejects.toThrow();
    expect(await attemptsOf(unknown)).toEqual([]);
  });

  it('several delivered at once: each attempt and delivery, each endpoint’s latest success', async () => {
    const first = await pendingDelivery('Batch one');
    const second = await pendingDelivery('Batch two');
    const third = await pendingDelivery('Batch three');
    // Two of the deliveries are of one endpoint.
    await gateway.database.db.execute(sql`
      update gateway.webhook_deliveries set endpoint_id = ${first.endpointId}::uuid where id = ${third.deliveryId}::uuid`);
    const attempt = (second: number) => ({
      attemptedAt: new Date(`2026-11-20T10:00:0${second}Z`),
      statusCode: 200 + second,
      durationMs: second,
      response: `ok ${second}`,
      error: null,
    });
    await store().recordDelivered([
      { deliveryId: first.deliveryId, attempt: attempt(1), at: new Date('2026-11-20T10:00:01.500Z') },
      { deliveryId: second.deliveryId, attempt: attempt(2), at: new Date('2026-11-20T10:00:02.500Z') },
      { deliveryId: third.deliveryId, attempt: attempt(3), at: new Date('2026-11-20T10:00:03.500Z') },
    ]);
    for (const [deliveryId, n] of [
      [first.deliveryId, 1],
      [second.deliveryId, 2],
      [third.deliveryId, 3],
    ] as const) {
      const delivery = await deliveryOf(deliveryId);
      expect(delivery).toMatchObject({
        status: 'delivered',
        attempt_count: 1,
        next_attempt_at: null,
        lease_until: null,
      });
      expect(time(delivery.delivered_at)).toBe(`2026-11-20T10:00:0${n}.500Z`);
      expect(await attemptsOf(deliveryId)).toEqual([
        { status_code: 200 + n, duration_ms: n, response: `ok ${n}`, error: null },
      ]);
    }
    expect(time((await endpointOf(first.endpointId)).last_success_at)).toBe('2026-11-20T10:00:03.500Z');
    expect(time((await endpointOf(second.endpointId)).last_success_at)).toBe('2026-11-20T10:00:02.500Z');
  });

  it('a success less than a second after the last one written leaves the endpoint’s row as it is', async () => {
    const first = await pendingDelivery('Often delivered');
    const second = await pendingDelivery('Often delivered, second');
    const third = await pendingDelivery('Often delivered, third');
    for (const { deliveryId } of [second, third])
      await gateway.database.db.execute(sql`
        update gateway.webhook_deliveries set endpoint_id = ${first.endpointId}::uuid where id = ${deliveryId}::uuid`);
    const version = async () =>
      rowsOf<{ version: string }>(
        await gateway.database.db.execute(sql`
          select xmin::text as version from gateway.webhook_endpoints where id = ${first.endpointId}::uuid`),
      )[0]?.version;
    const delivered = (deliveryId: string, at: string) =>
      store().recordDelivered([
        {
          deliveryId,
          attempt: { attemptedAt: new Date(at), statusCode: 200, durationMs: 1, response: 'ok', error: null },
          at: new Date(at),
        },
      ]);
    await delivered(first.deliveryId, '2026-11-20T10:00:01.000Z');
    const written = await version();
    // 0.9 s later: delivered, and the endpoint's row not rewritten.
    await delivered(second.deliveryId, '2026-11-20T10:00:01.900Z');
    expect((await deliveryOf(second.deliveryId)).status).toBe('delivered');
    expect(await version()).toBe(written);
    expect(time((await endpointOf(first.endpointId)).last_success_at)).toBe('2026-11-20T10:00:01.000Z');
    // A second after the one written: moved on.
    await delivered(third.deliveryId, '2026-11-20T10:00:02.000Z');
    expect(time((await endpointOf(first.endpointId)).last_success_at)).toBe('2026-11-20T10:00:02.000Z');
  });

  it('failed less than a second after the last success written: the endpoint stays on', async () => {
    const { deliveryId, endpointId } = await pendingDelivery('Succeeded just before');
    // A later success, within the second, may not have been written: the endpoint is not switched off.
    await gateway.database.db.execute(sql`
      update gateway.webhook_endpoints set last_success_at = '2026-11-20T09:59:59.500Z' where id = ${endpointId}::uuid`);
    const outcome = {
      kind: 'failed' as const,
      at: new Date('2026-11-23T10:00:00Z'),
      disableEndpointIfFailingSince: new Date('2026-11-20T10:00:00Z'),
    };
    const attempt = { attemptedAt: outcome.at, statusCode: 503, durationMs: 5, response: null, error: null };
    expect(await store().recordAttempt(deliveryId, attempt, outcome)).toEqual({ endpointDisabled: false });
    expect(await endpointOf(endpointId)).toMatchObject({ enabled: true });
  });

  it('several delivered at once, one of them unknown: nothing of the statement is written', async () => {
    const known = await pendingDelivery('Batch with an unknown');
    await expect(
      store().recordDelivered([
        {
          deliveryId: known.deliveryId,
          attempt: { attemptedAt: new Date(), statusCode: 200, durationMs: 1, response: null, error: null },
          at: new Date(),
        },
        {
          deliveryId: '00000000-0000-4000-8000-000000000001',
          attempt: { attemptedAt: new Date(), statusCode: 200, durationMs: 1, response: null, error: null },
          at: new Date(),
        },
      ]),
    ).rejects.toThrow();
    expect((await deliveryOf(known.deliveryId)).status).toBe('pending');
    expect(await attemptsOf(known.deliveryId)).toEqual([]);
  });
});
