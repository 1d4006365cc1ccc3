import { randomUUID } from 'node:crypto';
import { type Database, rowsOf } from '@payrail/db';
import { and, asc, desc, eq, inArray, lt, type SQL, sql } from 'drizzle-orm';
import type {
  DeliveryAttemptRecord,
  WebhookDeliveryRecord,
  WebhookDeliveryStore,
} from '../../ports/webhook-delivery-store';
import { webhookDeliveries, webhookDeliveryAttempts, type webhookEndpoints } from './schema';
import type { SecretSealer } from './secret-sealer';
import type { WebhookEndpointRecord } from '../../ports/webhook-endpoint-store';
import { endpointOf } from './webhook-endpoint-store';

/**
 * An endpoint's last success is written when it moves on by at least this much, not at every delivery:
 * under load every record statement rewrote the row of each endpoint it delivered to (about 0.7 endpoint
 * rows a delivery), and those versions, until vacuumed, made every statement that reads the endpoints
 * slower. The value is only compared with a failing delivery's creation, days before, to switch an
 * endpoint off; that comparison allows for it (an endpoint is switched off only if its last success
 * written is more than this before), so a success up to a second later than the one written never lets
 * an endpoint be switched off wrongly.
 */
const LAST_SUCCESS_STEP = '1 second';

const toDate = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
const toDateOrNull = (value: unknown): Date | null =>
  value === null || value === undefined ? null : toDate(value);

/** A leased delivery as the claim's statement returns it: with its envelope's text and its endpoint's row. */
interface ClaimedRow {
  id: string;
  event_id: string;
  attempt_count: number;
  created_at: unknown;
  body: string;
  endpoint_id: string;
  merchant_id: string;
  url: string;
  method: 'POST' | 'PUT';
  auth_type: 'basic' | 'header' | null;
  auth_label: string | null;
  auth_sealed: string | null;
  events: unknown;
  description: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: unknown;
  enabled: boolean;
  disabled_at: unknown;
  disabled_reason: string | null;
  last_success_at: unknown;
  endpoint_created_at: unknown;
  updated_at: unknown;
}

/** The endpoint's columns of a claimed row, as Drizzle reads the endpoint's row. */
function endpointRowOf(row: ClaimedRow): typeof webhookEndpoints.$inferSelect {
  return {
    id: row.endpoint_id,
    merchantId: row.merchant_id,
    url: row.url,
    method: row.method,
    authType: row.auth_type,
    authLabel: row.auth_label,
    authSealed: row.auth_sealed,
    events: (typeof row.events === 'string' ? JSON.parse(row.events) : row.events) as string[] | null,
    description: row.description,
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed,
    previousSecretExpiresAt: toDateOrNull(row.previous_secret_expires_at),
    enabled: row.enabled,
    disabledAt: toDateOrNull(row.disabled_at),
    disabledReason: row.disabled_reason,
    lastSuccessAt: toDateOrNull(row.last_success_at),
    createdAt: toDate(row.endpoint_created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/**
 * The candidates of a claim, fair in SQL: the endpoints with pending deliveries (a skip scan of
 * webhook_deliveries_endpoint_due_idx, one descent each), of those the enabled ones below their cap, each
 * offering its own oldest due deliveries (at most `perEndpoint`, a scan of the same index), and the oldest
 * of all those offers. An endpoint's backlog (a receiver that hangs) never fills the candidates, and the
 * statement's cost does not grow with the endpoints that have nothing pending. The limits are constants
 * (the planner's estimate stays small, far from JIT): what a busy endpoint may still take is applied by
 * the caller, and the statement offers `surplus` more to make up for it.
 *
 * A delivery is offered only if it is the first pending one of its endpoint and ordering key (by event,
 * then position): a subquery of its own, so its plan is one short descent of webhook_deliveries_order_idx
 * by both keys whatever the statistics say. Written as `not exists (an earlier one)` it was joined, and
 * with statistics taken while little was pending (a burst logged since) the planner walked the endpoint's
 * whole backlog for each candidate (2,500 pending an endpoint: 160,000 buffers a claim instead of 600).
 *
 * Which index serves which part must not depend on the statistics either (a burst outruns them): the two
 * pending indexes have conditions of their own (schema.ts), so the skip scan and the lateral, which name
 * `next_attempt_at` (a pending delivery always has one), can only use webhook_deliveries_endpoint_due_idx,
 * and the ordering check, which names `ordering_key`, only webhook_deliveries_order_idx. When both were
 * usable everywhere, a plan chosen from statistics taken while little was pending was seen to read the
 * check from the due index (the endpoint's pending entries walked for each candidate), and one could read
 * the lateral from the ordering index (the endpoint's whole backlog, the check on each, then a sort).
 *
 * The check is wrapped in `coalesce(…, false)` (the same rows: a null is not true either) for the
 * planner's sake: an equality with a subquery's result is estimated to keep almost no row, so the planner
 * expected to read an endpoint's every due delivery whatever the limit, and with statistics taken during a
 * backlog it read them all in a bitmap heap scan (no order, so no early stop), running the check on each
 * before sorting: 27,000–81,000 buffers a claim at 6,000–12,000 pending instead of about 900 (the
 * ordering index, read by the check, 36–49 million times in bursts of 50,000). Opaque to it, the
 * expression is taken to keep half the rows, and the due index is read in order up to the limit.
 */
export function dueCandidatesStatement(options: {
  now: Date;
  limit: number;
  perEndpoint: number;
  busy: ReadonlyMap<string, number>;
  surplus: number;
}): SQL {
  const { limit, perEndpoint, busy, surplus } = options;
  const at = options.now.toISOString();
  return sql`
    with recursive busy as (
      select key::uuid as endpoint_id, value::int as in_flight
        from jsonb_each_text(${JSON.stringify(Object.fromEntries(busy))}::jsonb)
    ),
    queued as (
      (select d.endpoint_id from gateway.webhook_deliveries d
        where d.status = 'pending' and d.next_attempt_at is not null order by d.endpoint_id limit 1)
      union all
      select (select d.endpoint_id from gateway.webhook_deliveries d
               where d.status = 'pending' and d.next_attempt_at is not null and d.endpoint_id > q.endpoint_id
               order by d.endpoint_id limit 1)
        from queued q
       where q.endpoint_id is not null
    )
    select c.id, e.id as endpoint_id
      from queued q
      join gateway.webhook_endpoints e on e.id = q.endpoint_id
      left join busy b on b.endpoint_id = e.id
     cross join lateral (
       select d.id, d.next_attempt_at, d.position
         from gateway.webhook_deliveries d
        where d.endpoint_id = e.id
          and d.status = 'pending'
          and d.next_attempt_at <= ${at}::timestamptz
          and (d.lease_until is null or d.lease_until < ${at}::timestamptz)
          and coalesce(d.position = (
            select p.position from gateway.webhook_deliveries p
             where p.endpoint_id = d.endpoint_id
               and p.ordering_key = d.ordering_key
               and p.status = 'pending'
             order by p.event_seq, p.position
             limit 1), false)
        order by d.next_attempt_at, d.position
        limit ${perEndpoint}::int
     ) c
     where e.enabled
       and coalesce(b.in_flight, 0) < ${perEndpoint}::int
     order by c.next_attempt_at, c.position
     limit ${limit + surplus}::int`;
}

/**
 * The deliveries and their attempts; a claimed delivery comes with its endpoint (secrets opened by
 * `sealer`) and its envelope's text, and an attempt's outcome updates its endpoint.
 */
export function postgresWebhookDeliveryStore(db: Database, sealer: SecretSealer): WebhookDeliveryStore {
  async function attemptsOf(deliveryIds: string[]): Promise<Map<string, DeliveryAttemptRecord[]>> {
    const byDelivery = new Map<string, DeliveryAttemptRecord[]>();
    if (deliveryIds.length === 0) return byDelivery;
    const rows = await db
      .select()
      .from(webhookDeliveryAttempts)
      .where(inArray(webhookDeliveryAttempts.deliveryId, deliveryIds))
      .orderBy(asc(webhookDeliveryAttempts.id));
    for (const row of rows) {
      const list = byDelivery.get(row.deliveryId) ?? [];
      list.push({
        attemptedAt: row.attemptedAt,
        statusCode: row.statusCode,
        durationMs: row.durationMs,
        response: row.response,
        error: row.error,
      });
      byDelivery.set(row.deliveryId, list);
    }
    return byDelivery;
  }

  async function withAttempts(
    rows: Array<typeof webhookDeliveries.$inferSelect>,
  ): Promise<WebhookDeliveryRecord[]> {
    const attempts = await attemptsOf(rows.map((row) => row.id));
    return rows.map((row) => ({
      ...row,
      position: Number(row.position),
      eventSeq: Number(row.eventSeq),
      attempts: attempts.get(row.id) ?? [],
    }));
  }

  return {
    async insertDeliveries(deliveries) {
      if (deliveries.length === 0) return [];
      const rows = deliveries.map((delivery) => ({
        id: randomUUID(),
        endpointId: delivery.endpointId,
        merchantId: delivery.merchantId,
        eventSeq: delivery.event.seq,
        eventId: delivery.event.id,
        kind: delivery.event.kind,
        orderingKey: delivery.orderingKey ?? delivery.event.orderingKey,
        origin: delivery.origin,
        status: 'pending' as const,
        nextAttemptAt: delivery.now,
        createdAt: delivery.now,
      }));
      await db.insert(webhookDeliveries).values(rows);
      return rows.map((row) => row.id);
    },
    async findDelivery(merchantId, id) {
      const rows = await db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.merchantId, merchantId), eq(webhookDeliveries.id, id)));
      return (await withAttempts(rows))[0] ?? null;
    },
    async listDeliveries(merchantId, filter) {
      const conditions = [eq(webhookDeliveries.merchantId, merchantId)];
      if (filter.endpointId) conditions.push(eq(webhookDeliveries.endpointId, filter.endpointId));
      if (filter.status) conditions.push(eq(webhookDeliveries.status, filter.status));
      if (filter.kind) conditions.push(eq(webhookDeliveries.kind, filter.kind));
      if (filter.before !== undefined) conditions.push(lt(webhookDeliveries.position, filter.before));
      const rows = await db
        .select()
        .from(webhookDeliveries)
        .where(and(...conditions))
        .orderBy(desc(webhookDeliveries.position))
        .limit(filter.limit);
      return withAttempts(rows);
    },

    async claimDue({ now, limit, perEndpoint, busy, leaseUntil }) {
      if (limit <= 0) return [];
      const at = now.toISOString();
      const inFlight = new Map([...busy].filter(([, count]) => count > 0 && count < perEndpoint));
      const surplus = [...inFlight.values()].reduce((sum, count) => sum + count, 0);
      const candidates = rowsOf<{ id: string; endpoint_id: string }>(
        await db.execute(dueCandidatesStatement({ now, limit, perEndpoint, busy, surplus })),
      );
      // Oldest first; of an endpoint with sends in flight only what it has left of its cap.
      const taken = new Map(inFlight);
      const picked: string[] = [];
      for (const candidate of candidates) {
        if (picked.length >= limit) break;
        const count = taken.get(candidate.endpoint_id) ?? 0;
        if (count >= perEndpoint) continue;
        taken.set(candidate.endpoint_id, count + 1);
        picked.push(candidate.id);
      }
      if (picked.length === 0) return [];
      // The condition is checked again on the locked row: of two workers only one takes a delivery. The
      // leased rows come back with their envelope's text and their endpoint's row (one round trip for all
      // three: two statements a claim). The ids go as one array: one statement text whatever the count.
      const claimed = rowsOf<ClaimedRow>(
        await db.execute(sql`
          with claimed as (
            update gateway.webhook_deliveries
               set lease_until = ${leaseUntil.toISOString()}::timestamptz
             where id = any(${`{${picked.join(',')}}`}::uuid[])
               and status = 'pending'
               and (lease_until is null or lease_until < ${at}::timestamptz)
            returning id, event_id, event_seq, attempt_count, created_at, endpoint_id
          )
          select c.id, c.event_id, c.attempt_count, c.created_at, v.body,
                 e.id as endpoint_id, e.merchant_id, e.url, e.method, e.auth_type, e.auth_label, e.auth_sealed,
                 e.events, e.description, e.secret_sealed, e.previous_secret_sealed,
                 e.previous_secret_expires_at, e.enabled, e.disabled_at, e.disabled_reason, e.last_success_at,
                 e.created_at as endpoint_created_at, e.updated_at
            from claimed c
            join gateway.webhook_events v on v.seq = c.event_seq
            join gateway.webhook_endpoints e on e.id = c.endpoint_id`),
      );
      // Each endpoint's row made into a record once per claim (its secrets opened once).
      const endpoints = new Map<string, WebhookEndpointRecord>();
      return claimed.map((row) => {
        let endpoint = endpoints.get(row.endpoint_id);
        if (!endpoint) {
          endpoint = endpointOf(endpointRowOf(row), sealer);
          endpoints.set(row.endpoint_id, endpoint);
        }
        return {
          id: row.id,
          eventId: row.event_id,
          eventBody: row.body,
          attemptCount: row.attempt_count,
          createdAt: toDate(row.created_at),
          endpoint,
        };
      });
    },

    async releaseClaims(claims) {
      if (claims.length === 0) return;
      await db.execute(sql`
        update gateway.webhook_deliveries d
           set lease_until = null
          from jsonb_to_recordset(${JSON.stringify(
            claims.map((claim) => ({ id: claim.id, lease_until: claim.leaseUntil.toISOString() })),
          )}::jsonb) as x(id uuid, lease_until timestamptz)
         where d.id = x.id and d.status = 'pending' and d.lease_until = x.lease_until`);
    },

    /**
     * One statement, so one round trip to PostgreSQL a delivery (it was five: begin, three writes, commit),
     * and as atomic: the attempt, the delivery's new state and, by its outcome, the endpoint's last success
     * or its switching off (failing for the whole retry window, and nothing delivered to it since).
     */
    async recordAttempt(deliveryId, attempt, outcome) {
      const at = outcome.at.toISOString();
      const status = outcome.kind === 'retry' ? 'pending' : outcome.kind;
      const failingSince =
        outcome.kind === 'failed' ? outcome.disableEndpointIfFailingSince.toISOString() : null;
      const rows = rowsOf<{ found: number; disabled: number }>(
        await db.execute(sql`
          with attempt as (
            insert into gateway.webhook_delivery_attempts
              (delivery_id, attempted_at, status_code, duration_ms, response, error)
            values (${deliveryId}::uuid, ${attempt.attemptedAt.toISOString()}::timestamptz,
              ${attempt.statusCode}::int, ${attempt.durationMs}::int, ${attempt.response}::text,
              ${attempt.error}::text)
          ), delivery as (
            update gateway.webhook_deliveries
               set attempt_count = attempt_count + 1,
                   lease_until = null,
                   status = ${status}::text,
                   next_attempt_at = ${outcome.kind === 'retry' ? at : null}::timestamptz,
                   delivered_at = ${outcome.kind === 'delivered' ? at : null}::timestamptz
             where id = ${deliveryId}::uuid
            returning endpoint_id
          ), succeeded as (
            update gateway.webhook_endpoints e
               set last_success_at = ${at}::timestamptz
              from delivery
             where ${outcome.kind === 'delivered'}::boolean and e.id = delivery.endpoint_id
               and (e.last_success_at is null
                    or e.last_success_at <= ${at}::timestamptz - ${LAST_SUCCESS_STEP}::interval)
          ), disabled as (
            update gateway.webhook_endpoints e
               set enabled = false, disabled_at = ${at}::timestamptz, disabled_reason = 'failing',
                   updated_at = ${at}::timestamptz
              from delivery
             where ${outcome.kind === 'failed'}::boolean and e.id = delivery.endpoint_id and e.enabled
               and (e.last_success_at is null
                    or e.last_success_at < ${failingSince}::timestamptz - ${LAST_SUCCESS_STEP}::interval)
            returning e.id
          )
          select (select count(*) from delivery)::int as found, (select count(*) from disabled)::int as disabled`),
      );
      return { endpointDisabled: (rows[0]?.disabled ?? 0) > 0 };
    },

    /**
     * The deliveries a worker saw answered 2xx while its last write was running, in one statement (a group
     * commit: under load one round trip for many deliveries; alone, no wait).
     */
    async recordDelivered(items) {
      if (items.length === 0) return;
      await db.execute(sql`
        with input as (
          select x.delivery_id, x.attempted_at, x.status_code, x.duration_ms, x.response, x.error, x.at
            from jsonb_to_recordset(${JSON.stringify(
              items.map((item) => ({
                delivery_id: item.deliveryId,
                attempted_at: item.attempt.attemptedAt.toISOString(),
                status_code: item.attempt.statusCode,
                duration_ms: item.attempt.durationMs,
                response: item.attempt.response,
                error: item.attempt.error,
                at: item.at.toISOString(),
              })),
            )}::jsonb) as x(delivery_id uuid, attempted_at timestamptz, status_code int, duration_ms int,
                            response text, error text, at timestamptz)
        ), attempt as (
          insert into gateway.webhook_delivery_attempts
            (delivery_id, attempted_at, status_code, duration_ms, response, error)
          select delivery_id, attempted_at, status_code, duration_ms, response, error from input
        ), delivery as (
          update gateway.webhook_deliveries d
             set attempt_count = d.attempt_count + 1,
                 lease_until = null,
                 status = 'delivered',
                 next_attempt_at = null,
                 delivered_at = i.at
            from input i
           where d.id = i.delivery_id
          returning d.endpoint_id, i.at
        )
        update gateway.webhook_endpoints e
           set last_success_at = s.at
          from (select endpoint_id, max(at) as at from delivery group by endpoint_id) s
         where e.id = s.endpoint_id
           and (e.last_success_at is null or e.last_success_at <= s.at - ${LAST_SUCCESS_STEP}::interval)`);
    },
  };
}
