import { randomUUID } from 'node:crypto';
import { ALL_WEBHOOK_EVENTS, type WebhookEventFilter } from '@payrail/contracts';
import { type Database, type Executor, rowsOf, textArrayLiteral } from '@payrail/db';
import {
  idempotentBatchConsumer,
  idempotentConsumer,
  idempotentStatement,
  type InboxTable,
} from '@payrail/messaging';
import { and, asc, desc, eq, inArray, lt, type SQL, sql } from 'drizzle-orm';
import type {
  ClaimedDelivery,
  DeliveryAttemptRecord,
  LoggedEvent,
  ProjectionKeys,
  WebhookAuth,
  WebhookConsumerUnitOfWork,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookEventWriter,
  WebhookStore,
} from '../../ports/webhook-store';
import {
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookEndpoints,
  webhookEvents,
  webhookInstallments,
  webhookLinks,
  webhookPaidCounts,
  webhookSubscriptions,
} from './schema';
import type { SecretSealer } from './secret-sealer';

type EndpointRow = typeof webhookEndpoints.$inferSelect;

const toDate = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));

function endpointOf(row: EndpointRow, sealer: SecretSealer): WebhookEndpointRecord {
  return {
    id: row.id,
    merchantId: row.merchantId,
    url: row.url,
    method: row.method,
    auth: row.authSealed ? (JSON.parse(sealer.open(row.authSealed)) as WebhookAuth) : null,
    // Null: written by a gateway from before `["*"]` (migration 0004 rewrote the rows there were), every kind.
    events: (row.events as WebhookEventFilter | null) ?? [ALL_WEBHOOK_EVENTS],
    description: row.description,
    secret: sealer.open(row.secretSealed),
    previousSecret: row.previousSecretSealed ? sealer.open(row.previousSecretSealed) : null,
    previousSecretExpiresAt: row.previousSecretExpiresAt,
    enabled: row.enabled,
    disabledAt: row.disabledAt,
    disabledReason: row.disabledReason,
    lastSuccessAt: row.lastSuccessAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function authColumns(auth: WebhookAuth | null, sealer: SecretSealer) {
  if (!auth) return { authType: null, authLabel: null, authSealed: null };
  return {
    authType: auth.type,
    authLabel: auth.type === 'basic' ? auth.username : auth.name,
    authSealed: sealer.seal(JSON.stringify(auth)),
  };
}

/**
 * Whether endpoint `e` takes an envelope of `kind`: named in its `events`, or `["*"]` there (null: a row
 * an older gateway wrote during an upgrade, which meant every kind).
 */
const endpointTakes = (kind: SQL) =>
  sql`(e.events is null or e.events ? ${ALL_WEBHOOK_EVENTS} or e.events ? ${kind})`;

function eventOf(row: typeof webhookEvents.$inferSelect): LoggedEvent {
  return { ...row, seq: Number(row.seq) };
}

/** One advisory-lock key per merchant: the merchant's log entries commit in `seq` order. */
const merchantLogLock = (merchantId: string) =>
  sql`select pg_advisory_xact_lock(hashtextextended(${`gateway.webhook_events:${merchantId}`}, 0))`;

/** The upsert of `saveLink`, for the rows of one statement (each link once: no row updated twice). */
const savedLinkColumns = {
  merchantId: sql`excluded.merchant_id`,
  label: sql`excluded.label`,
  amount: sql`excluded.amount`,
  currency: sql`excluded.currency`,
  customIdentifier: sql`excluded.custom_identifier`,
  customIdentifier2: sql`excluded.custom_identifier2`,
  recurrent: sql`excluded.recurrent`,
  totalPeriods: sql`excluded.total_periods`,
  statusId: sql`excluded.status_id`,
  subscriptionId: sql`coalesce(${webhookLinks.subscriptionId}, excluded.subscription_id)`,
  txId: sql`excluded.tx_id`,
};

/** Integers as one `int[]` parameter: the statement's text is the same whatever their number. */
const intArray = (values: number[]) => `{${values.map((value) => Math.trunc(value)).join(',')}}`;

/**
 * A batch's projection rows, and those they lead to (see `loadProjection`), and the paid counts of every
 * subscription named or met (the keys', the installments', those read); one row of four JSON texts.
 * Each table is read by its key with `= any(array(...))`: an index lookup whatever the planner knows of
 * the tables (`key = any($1) or key in (select ...)` read every row of each, once per batch).
 */
export const loadProjectionStatement = (keys: ProjectionKeys) => sql`
  with i as (
    select * from ${webhookInstallments} where installment_id = any(${intArray(keys.installmentIds)}::int[])
  ),
  s1 as (
    select * from ${webhookSubscriptions}
     where subscription_id = any(array(
       select unnest(${intArray(keys.subscriptionIds)}::int[]) union select subscription_id from i))
  ),
  l as (
    select * from ${webhookLinks}
     where link_id = any(array(select unnest(${intArray(keys.linkIds)}::int[]) union select link_id from s1))
  ),
  s as (
    select * from s1
    union
    select * from ${webhookSubscriptions} where subscription_id = any(array(select subscription_id from l))
  ),
  pc as (
    select * from ${webhookPaidCounts}
     where subscription_id = any(array(
       select unnest(${intArray(keys.subscriptionIds)}::int[]) union select subscription_id from i
       union select subscription_id from s))
  )
  select
    (select coalesce(json_agg(json_build_object(
       'linkId', link_id, 'merchantId', merchant_id, 'label', label, 'amount', amount, 'currency', currency,
       'customIdentifier', custom_identifier, 'customIdentifier2', custom_identifier2, 'recurrent', recurrent,
       'totalPeriods', total_periods, 'statusId', status_id, 'subscriptionId', subscription_id, 'txId', tx_id)),
       '[]') from l)::text as links,
    (select coalesce(json_agg(json_build_object(
       'subscriptionId', subscription_id, 'merchantId', merchant_id, 'linkId', link_id,
       'totalPeriods', total_periods)), '[]') from s)::text as subscriptions,
    (select coalesce(json_agg(json_build_object(
       'installmentId', installment_id, 'subscriptionId', subscription_id, 'number', number, 'txId', tx_id)),
       '[]') from i)::text as installments,
    (select coalesce(json_agg(json_build_object('subscriptionId', subscription_id, 'paidCount', paid_count)),
       '[]') from pc)::text as paid_counts`;

export function webhookEventWriter(tx: Executor): WebhookEventWriter {
  return {
    async saveLink(link) {
      await tx
        .insert(webhookLinks)
        .values(link)
        .onConflictDoUpdate({
          target: webhookLinks.linkId,
          set: {
            ...link,
            subscriptionId: sql`coalesce(${webhookLinks.subscriptionId}, excluded.subscription_id)`,
          },
        });
    },
    async saveLinks(links) {
      if (links.length === 0) return;
      // One statement, the same text whatever the batch's size (prepared once; no SQL built per row). A
      // statement may not update a row twice, so a link met more than once is folded first into what
      // `saveLink` one after the other would leave: the last row's columns, and the first subscription id
      // given (the stored one before all).
      const rows = links.map((link, ord) => ({
        ord,
        link_id: link.linkId,
        merchant_id: link.merchantId,
        label: link.label,
        amount: link.amount,
        currency: link.currency,
        custom_identifier: link.customIdentifier,
        custom_identifier2: link.customIdentifier2,
        recurrent: link.recurrent,
        total_periods: link.totalPeriods,
        status_id: link.statusId,
        subscription_id: link.subscriptionId,
        tx_id: link.txId,
      }));
      await tx.execute(sql`
        with given as (
          select * from json_to_recordset(${JSON.stringify(rows)}::json) as x(
            ord int, link_id int, merchant_id uuid, label text, amount text, currency text,
            custom_identifier text, custom_identifier2 text, recurrent boolean, total_periods int,
            status_id int, subscription_id int, tx_id text)
        ),
        folded as (
          select distinct on (g.link_id) g.*,
                 (select f.subscription_id from given f
                   where f.link_id = g.link_id and f.subscription_id is not null
                   order by f.ord limit 1) as first_subscription_id
          from given g
          order by g.link_id, g.ord desc
        )
        insert into ${webhookLinks}
          (link_id, merchant_id, label, amount, currency, custom_identifier, custom_identifier2, recurrent,
           total_periods, status_id, subscription_id, tx_id)
        select link_id, merchant_id, label, amount, currency, custom_identifier, custom_identifier2, recurrent,
               total_periods, status_id, first_subscription_id, tx_id
        from folded
        on conflict (link_id) do update set
          merchant_id = excluded.merchant_id, label = excluded.label, amount = excluded.amount,
          currency = excluded.currency, custom_identifier = excluded.custom_identifier,
          custom_identifier2 = excluded.custom_identifier2, recurrent = excluded.recurrent,
          total_periods = excluded.total_periods, status_id = excluded.status_id,
          subscription_id = coalesce(${webhookLinks.subscriptionId}, excluded.subscription_id),
          tx_id = excluded.tx_id`);
    },
    async findLink(linkId) {
      const [row] = await tx.select().from(webhookLinks).where(eq(webhookLinks.linkId, linkId));
      return row ?? null;
    },
    async setLinkStatus(linkId, statusId, txId) {
      await tx
        .update(webhookLinks)
        .set(txId === undefined ? { statusId } : { statusId, txId })
        .where(eq(webhookLinks.linkId, linkId));
    },
    async saveSubscription(subscription) {
      await tx
        .insert(webhookSubscriptions)
        .values(subscription)
        .onConflictDoUpdate({ target: webhookSubscriptions.subscriptionId, set: subscription });
      await tx
        .update(webhookLinks)
        .set({ subscriptionId: subscription.subscriptionId })
        .where(eq(webhookLinks.linkId, subscription.linkId));
    },
    async findSubscription(subscriptionId) {
      const [row] = await tx
        .select()
        .from(webhookSubscriptions)
        .where(eq(webhookSubscriptions.subscriptionId, subscriptionId));
      return row ?? null;
    },
    async saveInstallments(installments) {
      if (installments.length === 0) return;
      const rows = installments.map(({ installmentId, subscriptionId, number }) => ({
        installment_id: installmentId,
        subscription_id: subscriptionId,
        number,
      }));
      // One text whatever the count (prepared once per connection); a row already there keeps its tx_id.
      await tx.execute(sql`
        insert into ${webhookInstallments} (installment_id, subscription_id, number)
        select installment_id, subscription_id, number
          from json_to_recordset(${JSON.stringify(rows)}::json)
            as x(installment_id int, subscription_id int, number int)
        on conflict (installment_id) do update set
          subscription_id = excluded.subscription_id, number = excluded.number`);
    },
    async findInstallment(installmentId) {
      const [row] = await tx
        .select()
        .from(webhookInstallments)
        .where(eq(webhookInstallments.installmentId, installmentId));
      return row ?? null;
    },
    async loadProjection(keys) {
      const [row] = rowsOf<{
        links: string;
        subscriptions: string;
        installments: string;
        paid_counts: string;
      }>(await tx.execute(loadProjectionStatement(keys)));
      return {
        links: JSON.parse(row?.links ?? '[]'),
        subscriptions: JSON.parse(row?.subscriptions ?? '[]'),
        installments: JSON.parse(row?.installments ?? '[]'),
        paidCounts: JSON.parse(row?.paid_counts ?? '[]'),
      };
    },
    async findPaidCount(subscriptionId) {
      const [row] = await tx
        .select({ paidCount: webhookPaidCounts.paidCount })
        .from(webhookPaidCounts)
        .where(eq(webhookPaidCounts.subscriptionId, subscriptionId));
      return row?.paidCount ?? 0;
    },
    async savePaidCounts(counts) {
      if (counts.length === 0) return;
      const rows = counts.map(({ subscriptionId, paidCount }) => ({
        subscription_id: subscriptionId,
        paid_count: paidCount,
      }));
      // One text whatever the count; a count never goes down (a late or repeated payment changes nothing).
      await tx.execute(sql`
        insert into ${webhookPaidCounts} (subscription_id, paid_count)
        select subscription_id, max(paid_count)
          from json_to_recordset(${JSON.stringify(rows)}::json) as x(subscription_id int, paid_count int)
         group by subscription_id
        on conflict (subscription_id) do update
          set paid_count = greatest(${webhookPaidCounts.paidCount}, excluded.paid_count)`);
    },
    async appendEvents(events) {
      if (events.length === 0) return 0;
      // Each merchant's lock once, in one order for every batch (two batches never wait on each other).
      const merchants = [...new Set(events.map((event) => event.merchantId))].sort();
      await tx.execute(sql`
        select count(pg_advisory_xact_lock(hashtextextended('gateway.webhook_events:' || merchant_id, 0)))
          from (select merchant_id from unnest(${textArrayLiteral(merchants)}::text[]) as merchant_id
                 order by merchant_id) as merchants`);
      // The envelopes in the order given (their seq in that order), then the deliveries of those appended,
      // envelope after envelope: what `appendEvent` one after the other leaves.
      const rows = events.map((event, ord) => ({
        ord,
        id: event.id,
        merchant_id: event.merchantId,
        kind: event.kind,
        ordering_key: event.orderingKey,
        body: event.body,
        created_at: event.createdAt.toISOString(),
      }));
      const [appended] = rowsOf<{ appended: number }>(
        await tx.execute(sql`
          with given as (
            select * from json_to_recordset(${JSON.stringify(rows)}::json) as x(
              ord int, id text, merchant_id uuid, kind text, ordering_key text, body text, created_at timestamptz)
          ),
          logged as (
            insert into ${webhookEvents} (id, merchant_id, kind, ordering_key, body, created_at)
            select id, merchant_id, kind, ordering_key, body, created_at from given order by ord
            on conflict do nothing
            returning seq, id, merchant_id, kind, ordering_key, created_at
          ),
          queued as (
            insert into gateway.webhook_deliveries
              (id, endpoint_id, merchant_id, event_seq, event_id, kind, ordering_key, origin, status,
               next_attempt_at, created_at)
            select gen_random_uuid(), e.id, e.merchant_id, l.seq, l.id, l.kind, l.ordering_key, 'event',
                   'pending', l.created_at, l.created_at
              from logged l
              join gateway.webhook_endpoints e
                on e.merchant_id = l.merchant_id and ${endpointTakes(sql`l.kind`)}
             where l.kind <> 'WEBHOOK_TEST'
             order by l.seq, e.id
            on conflict do nothing
            returning 1
          )
          select count(*)::int as appended from logged`),
      );
      return appended?.appended ?? 0;
    },
    async appendEvent(event) {
      await tx.execute(merchantLogLock(event.merchantId));
      const [row] = await tx.insert(webhookEvents).values(event).onConflictDoNothing().returning();
      if (!row) return null;
      const logged = eventOf(row);
      // A test event goes to the one endpoint it was asked for (queued by the caller), not to all.
      if (logged.kind === 'WEBHOOK_TEST') return logged;
      // Every endpoint of the merchant that takes this kind gets a delivery, in the same transaction.
      await tx.execute(sql`
        insert into gateway.webhook_deliveries
          (id, endpoint_id, merchant_id, event_seq, event_id, kind, ordering_key, origin, status, next_attempt_at, created_at)
        select gen_random_uuid(), e.id, e.merchant_id, ${logged.seq}, ${logged.id}, ${logged.kind},
               ${logged.orderingKey}, 'event', 'pending', ${event.createdAt.toISOString()}::timestamptz,
               ${event.createdAt.toISOString()}::timestamptz
          from gateway.webhook_endpoints e
         where e.merchant_id = ${event.merchantId}
           and ${endpointTakes(sql`${logged.kind}`)}
        on conflict do nothing`);
      return logged;
    },
  };
}

export function postgresWebhookStore(db: Database, sealer: SecretSealer): WebhookStore {
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
    async insertEndpoint(endpoint) {
      await db.insert(webhookEndpoints).values({
        id: endpoint.id,
        merchantId: endpoint.merchantId,
        url: endpoint.url,
        method: endpoint.method,
        ...authColumns(endpoint.auth, sealer),
        events: endpoint.events,
        description: endpoint.description,
        secretSealed: sealer.seal(endpoint.secret),
        previousSecretSealed: endpoint.previousSecret ? sealer.seal(endpoint.previousSecret) : null,
        previousSecretExpiresAt: endpoint.previousSecretExpiresAt,
        enabled: endpoint.enabled,
        disabledAt: endpoint.disabledAt,
        disabledReason: endpoint.disabledReason,
        lastSuccessAt: endpoint.lastSuccessAt,
        createdAt: endpoint.createdAt,
        updatedAt: endpoint.updatedAt,
      });
    },
    async findEndpoint(merchantId, id) {
      const [row] = await db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.merchantId, merchantId), eq(webhookEndpoints.id, id)));
      return row ? endpointOf(row, sealer) : null;
    },
    async listEndpoints(merchantId) {
      const rows = await db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.merchantId, merchantId))
        .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
      return rows.map((row) => endpointOf(row, sealer));
    },
    async updateEndpoint(merchantId, id, changes) {
      const { auth, secret, previousSecret, ...plain } = changes;
      const set: Partial<typeof webhookEndpoints.$inferInsert> = { ...plain };
      if (auth !== undefined) Object.assign(set, authColumns(auth, sealer));
      if (secret !== undefined) set.secretSealed = sealer.seal(secret);
      if (previousSecret !== undefined)
        set.previousSecretSealed = previousSecret === null ? null : sealer.seal(previousSecret);
      const [row] = await db
        .update(webhookEndpoints)
        .set(set)
        .where(and(eq(webhookEndpoints.merchantId, merchantId), eq(webhookEndpoints.id, id)))
        .returning();
      return row ? endpointOf(row, sealer) : null;
    },
    async deleteEndpoint(merchantId, id) {
      const deleted = await db
        .delete(webhookEndpoints)
        .where(and(eq(webhookEndpoints.merchantId, merchantId), eq(webhookEndpoints.id, id)))
        .returning({ id: webhookEndpoints.id });
      return deleted.length > 0;
    },

    inTransaction(work) {
      return db.transaction((tx) => work(webhookEventWriter(tx)));
    },

    async listEvents(merchantId, { after, limit, kind }) {
      const conditions = [eq(webhookEvents.merchantId, merchantId), sql`${webhookEvents.seq} > ${after}`];
      conditions.push(kind ? eq(webhookEvents.kind, kind) : sql`${webhookEvents.kind} <> 'WEBHOOK_TEST'`);
      const rows = await db
        .select()
        .from(webhookEvents)
        .where(and(...conditions))
        .orderBy(asc(webhookEvents.seq))
        .limit(limit);
      return rows.map(eventOf);
    },
    async eventsBetween(merchantId, from, to, filter) {
      const kinds = filter.includes(ALL_WEBHOOK_EVENTS) ? null : filter;
      const rows = await db
        .select()
        .from(webhookEvents)
        .where(
          and(
            eq(webhookEvents.merchantId, merchantId),
            sql`${webhookEvents.createdAt} >= ${from.toISOString()}::timestamptz`,
            sql`${webhookEvents.createdAt} < ${to.toISOString()}::timestamptz`,
            kinds ? inArray(webhookEvents.kind, kinds) : sql`${webhookEvents.kind} <> 'WEBHOOK_TEST'`,
          ),
        )
        .orderBy(asc(webhookEvents.seq));
      return rows.map(eventOf);
    },
    async purgeEventsBefore(cutoff) {
      const deleted = await db
        .delete(webhookEvents)
        .where(lt(webhookEvents.createdAt, cutoff))
        .returning({ seq: webhookEvents.seq });
      return deleted.length;
    },

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
      const candidates = rowsOf<{ id: string; endpoint_id: string }>(
        await db.execute(sql`
          select c.id, c.endpoint_id
            from gateway.webhook_deliveries c
            join gateway.webhook_endpoints e on e.id = c.endpoint_id
           where c.status = 'pending'
             and c.next_attempt_at <= ${now.toISOString()}::timestamptz
             and (c.lease_until is null or c.lease_until < ${now.toISOString()}::timestamptz)
             and e.enabled
             and not exists (
               select 1 from gateway.webhook_deliveries p
                where p.endpoint_id = c.endpoint_id
                  and p.ordering_key = c.ordering_key
                  and p.status = 'pending'
                  and (p.event_seq < c.event_seq or (p.event_seq = c.event_seq and p.position < c.position)))
           order by c.next_attempt_at, c.position
           limit ${Math.max(limit * 4, 50)}`),
      );
      const taken = new Map(busy);
      const picked: string[] = [];
      for (const candidate of candidates) {
        if (picked.length >= limit) break;
        const inFlight = taken.get(candidate.endpoint_id) ?? 0;
        if (inFlight >= perEndpoint) continue;
        taken.set(candidate.endpoint_id, inFlight + 1);
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

/**
 * The inbox row of a message and its projected link in one statement: the link's upsert (the same as
 * `saveLink`'s) runs only when the inbox row is new. Prepared, so that it is one round trip: a query
 * without a name is described first, a round trip of its own, on every run (postgres.js).
 */
function createdLinkStatement(db: Database, inbox: InboxTable) {
  const value = (name: string) => sql.placeholder(name);
  const fresh = db.$with('fresh', { messageId: sql<string>`message_id` }).as(sql`
    insert into ${inbox} (consumer, message_id) values (${value('consumer')}, ${value('messageId')})
    on conflict do nothing
    returning message_id`);
  return db
    .with(fresh)
    .insert(webhookLinks)
    .select(sql`
      select ${value('linkId')}::integer, ${value('merchantId')}::uuid, ${value('label')}::text,
        ${value('amount')}::text, ${value('currency')}::text, ${value('customIdentifier')}::text,
        ${value('customIdentifier2')}::text, ${value('recurrent')}::boolean, ${value('totalPeriods')}::integer,
        ${value('statusId')}::integer, ${value('subscriptionId')}::integer, ${value('txId')}::text
      from ${fresh}`)
    .onConflictDoUpdate({ target: webhookLinks.linkId, set: savedLinkColumns })
    .returning({ linkId: webhookLinks.linkId })
    .prepare('gateway_save_created_link');
}

/** The consumer's unit of work: the inbox row and the writer's changes in one transaction. */
export function webhookConsumerUnitOfWork(db: Database, inbox: InboxTable): WebhookConsumerUnitOfWork {
  return {
    handlerFor(consumer, work) {
      return idempotentConsumer({
        db,
        inbox,
        consumer,
        handle: (tx, message) => work(webhookEventWriter(tx), message),
      });
    },
    linkSaverFor(consumer, linkOf) {
      const statement = createdLinkStatement(db, inbox);
      return idempotentStatement({
        consumer,
        async run(message) {
          const saved = await statement.execute({ consumer, messageId: message.id, ...linkOf(message) });
          return saved.length > 0;
        },
      });
    },
    batchHandlerFor(consumer, { maxBatch, single }, work) {
      return idempotentBatchConsumer({
        db,
        inbox,
        consumer,
        maxBatch,
        ordered: true,
        handleOne: single,
        handle: (tx, items) => work(webhookEventWriter(tx), items),
      });
    },
  };
}
