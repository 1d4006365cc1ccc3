import { ALL_WEBHOOK_EVENTS } from '@payrail/contracts';
import { type Database, type Executor, rowsOf, type Transaction, textArrayLiteral } from '@payrail/db';
import { and, asc, eq, inArray, lt, type SQL, sql } from 'drizzle-orm';
import type { LoggedEvent, WebhookEventLog } from '../../ports/webhook-event-log';
import { webhookEvents } from './schema';

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

/** Appending, in the transaction `tx` (the merchant's advisory lock lasts until it ends). */
function logAppends(tx: Executor): Pick<WebhookEventLog, 'appendEvent' | 'appendEvents'> {
  return {
    async appendEvents(events) {
      if (events.length === 0) return 0;
      // Each merchant's lock once, in one order for every batch (two batches never wait on each other).
      // The lock's statement and the append are sent together (one round trip): the server runs them in
      // the order sent, so the append still starts holding the locks.
      const merchants = [...new Set(events.map((event) => event.merchantId))].sort();
      const locked = tx
        .execute(sql`
        select count(pg_advisory_xact_lock(hashtextextended('gateway.webhook_events:' || merchant_id, 0)))
          from (select merchant_id from unnest(${textArrayLiteral(merchants)}::text[]) as merchant_id
                 order by merchant_id) as merchants`)
        .then(() => undefined);
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
      const appending = tx.execute(sql`
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
          select count(*)::int as appended from logged`);
      const [, result] = await Promise.all([locked, appending]);
      const [appended] = rowsOf<{ appended: number }>(result);
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

/** Reading and purging: one statement each, on the database or in a transaction. */
function logReads(db: Executor): Omit<WebhookEventLog, 'appendEvent' | 'appendEvents'> {
  return {
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
  };
}

/** The log in the caller's transaction (the consumer's unit of work): appends under its locks. */
export function webhookEventLogIn(tx: Transaction): WebhookEventLog {
  return { ...logReads(tx), ...logAppends(tx) };
}

/** The log on the database: each append in a transaction of its own (a test event, a test's envelopes). */
export function postgresWebhookEventLog(db: Database): WebhookEventLog {
  return {
    ...logReads(db),
    appendEvent: (event) => db.transaction((tx) => logAppends(tx).appendEvent(event)),
    appendEvents: (events) => db.transaction((tx) => logAppends(tx).appendEvents(events)),
  };
}
