import { randomUUID } from 'node:crypto';
import { type Database, rowsOf } from '@payrail/db';
import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type {
  ClaimedDelivery,
  DeliveryAttemptRecord,
  WebhookDeliveryRecord,
  WebhookDeliveryStore,
} from '../../ports/webhook-delivery-store';
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints, webhookEvents } from './schema';
import type { SecretSealer } from './secret-sealer';
import { endpointOf } from './webhook-endpoint-store';

const toDate = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));

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
      // Fair in SQL: the endpoints with pending deliveries (a skip scan of
      // webhook_deliveries_endpoint_due_idx, one descent each), of those the enabled ones below their cap,
      // each offering its own oldest due deliveries (at most `perEndpoint`, a scan of the same index), and
      // the oldest of all those offers. An endpoint's backlog (a receiver that hangs) never fills the
      // candidates, and the statement's cost does not grow with the endpoints that have nothing pending.
      // The limits are constants (the planner's estimate stays small, far from JIT): what a busy endpoint
      // may still take is applied below, and the statement offers enough more to make up for it.
      const inFlight = new Map([...busy].filter(([, count]) => count > 0 && count < perEndpoint));
      const surplus = [...inFlight.values()].reduce((sum, count) => sum + count, 0);
      const candidates = rowsOf<{ id: string; endpoint_id: string }>(
        await db.execute(sql`
          with recursive busy as (
            select key::uuid as endpoint_id, value::int as in_flight
              from jsonb_each_text(${JSON.stringify(Object.fromEntries(busy))}::jsonb)
          ),
          queued as (
            (select d.endpoint_id from gateway.webhook_deliveries d
              where d.status = 'pending' order by d.endpoint_id limit 1)
            union all
            select (select d.endpoint_id from gateway.webhook_deliveries d
                     where d.status = 'pending' and d.endpoint_id > q.endpoint_id
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
                and not exists (
                  select 1 from gateway.webhook_deliveries p
                   where p.endpoint_id = d.endpoint_id
                     and p.ordering_key = d.ordering_key
                     and p.status = 'pending'
                     and (p.event_seq < d.event_seq or (p.event_seq = d.event_seq and p.position < d.position)))
              order by d.next_attempt_at, d.position
              limit ${perEndpoint}::int
           ) c
           where e.enabled
             and coalesce(b.in_flight, 0) < ${perEndpoint}::int
           order by c.next_attempt_at, c.position
           limit ${limit + surplus}::int`),
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
      // The condition is checked again on the locked row: of two workers only one takes a delivery.
      const claimed = rowsOf<{
        id: string;
        event_id: string;
        event_seq: string | number;
        attempt_count: number;
        created_at: unknown;
        endpoint_id: string;
        merchant_id: string;
      }>(
        await db.execute(sql`
          update gateway.webhook_deliveries
             set lease_until = ${leaseUntil.toISOString()}::timestamptz
           where id in (${sql.join(
             picked.map((id) => sql`${id}::uuid`),
             sql`, `,
           )})
             and status = 'pending'
             and (lease_until is null or lease_until < ${now.toISOString()}::timestamptz)
          returning id, event_id, event_seq, attempt_count, created_at, endpoint_id, merchant_id`),
      );
      if (claimed.length === 0) return [];
      const endpointRows = await db
        .select()
        .from(webhookEndpoints)
        .where(inArray(webhookEndpoints.id, [...new Set(claimed.map((row) => row.endpoint_id))]));
      const endpoints = new Map(endpointRows.map((row) => [row.id, endpointOf(row, sealer)]));
      const eventRows = await db
        .select({ seq: webhookEvents.seq, body: webhookEvents.body })
        .from(webhookEvents)
        .where(inArray(webhookEvents.seq, [...new Set(claimed.map((row) => Number(row.event_seq)))]));
      const bodies = new Map(eventRows.map((row) => [Number(row.seq), row.body]));
      const result: ClaimedDelivery[] = [];
      for (const row of claimed) {
        const endpoint = endpoints.get(row.endpoint_id);
        const body = bodies.get(Number(row.event_seq));
        if (!endpoint || body === undefined) continue;
        result.push({
          id: row.id,
          eventId: row.event_id,
          eventBody: body,
          attemptCount: row.attempt_count,
          createdAt: toDate(row.created_at),
          endpoint,
        });
      }
      return result;
    },

    async recordAttempt(deliveryId, attempt, outcome) {
      return db.transaction(async (tx) => {
        await tx.insert(webhookDeliveryAttempts).values({ deliveryId, ...attempt });
        const [delivery] = await tx
          .update(webhookDeliveries)
          .set({
            attemptCount: sql`${webhookDeliveries.attemptCount} + 1`,
            leaseUntil: null,
            status: outcome.kind === 'retry' ? 'pending' : outcome.kind,
            nextAttemptAt: outcome.kind === 'retry' ? outcome.at : null,
            deliveredAt: outcome.kind === 'delivered' ? outcome.at : null,
          })
          .where(eq(webhookDeliveries.id, deliveryId))
          .returning({ endpointId: webhookDeliveries.endpointId });
        if (!delivery) return { endpointDisabled: false };
        if (outcome.kind === 'delivered') {
          await tx
            .update(webhookEndpoints)
            .set({ lastSuccessAt: outcome.at })
            .where(eq(webhookEndpoints.id, delivery.endpointId));
          return { endpointDisabled: false };
        }
        if (outcome.kind !== 'failed') return { endpointDisabled: false };
        // Failing for the whole retry window, and nothing delivered to it since: switch it off.
        const disabled = await tx
          .update(webhookEndpoints)
          .set({ enabled: false, disabledAt: outcome.at, disabledReason: 'failing', updatedAt: outcome.at })
          .where(
            and(
              eq(webhookEndpoints.id, delivery.endpointId),
              eq(webhookEndpoints.enabled, true),
              sql`(${webhookEndpoints.lastSuccessAt} is null or ${webhookEndpoints.lastSuccessAt} < ${outcome.disableEndpointIfFailingSince.toISOString()}::timestamptz)`,
            ),
          )
          .returning({ id: webhookEndpoints.id });
        return { endpointDisabled: disabled.length > 0 };
      });
    },
  };
}
