import type { EventEnvelope } from '@payrail/contracts';
import type { DatabaseHandle, Executor } from '@payrail/db';
import {
  context,
  contextFromHeaders,
  currentTraceHeaders,
  inSpan,
  type Logger,
  type OutboxState,
  registerOutboxProbe,
  SpanKind,
} from '@payrail/observability';
import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import {
  getTableConfig,
  index,
  integer,
  jsonb,
  type PgSchema,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import type { MessageBus } from './bus';

/**
 * The transactional outbox table, declared inside each service's own schema. A state change and the
 * event announcing it are written in one transaction; the relay publishes afterwards.
 */
export function outboxTable(schema: PgSchema) {
  return schema.table(
    'outbox',
    {
      id: uuid('id').primaryKey(),
      type: text('type').notNull(),
      body: text('body').notNull(),
      /** W3C trace context of the transaction that wrote the row: the trace survives the relay. */
      headers: jsonb('headers').$type<Record<string, string>>().notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
      publishedAt: timestamp('published_at', { withTimezone: true }),
      attempts: integer('attempts').notNull().default(0),
      nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
      lastError: text('last_error'),
    },
    (table) => [index('outbox_unpublished_idx').on(table.nextAttemptAt).where(sql`published_at is null`)],
  );
}

export type OutboxTable = ReturnType<typeof outboxTable>;

/** The NOTIFY channel the relay of a schema listens on. */
export function outboxChannel(schemaName: string): string {
  return `${schemaName}_outbox`;
}

/**
 * Writes an event to the outbox inside the caller's transaction, with the active trace context, and
 * wakes the relay (NOTIFY is delivered only when the transaction commits): one statement, one round
 * trip, built without the query builder (the busiest write path of every service).
 */
export async function enqueueEvent(tx: Executor, outbox: OutboxTable, event: EventEnvelope): Promise<void> {
  const channel = outboxChannel(getTableConfig(outbox).schema ?? 'public');
  await tx.execute(sql`
    with queued as (
      insert into ${outbox} (id, type, body, headers)
      values (${event.id}, ${event.type}, ${JSON.stringify(event)}, ${JSON.stringify(currentTraceHeaders())}::jsonb)
      returning 1)
    select pg_notify(${channel}, '') from queued`);
}

export interface OutboxRelayOptions {
  database: DatabaseHandle;
  outbox: OutboxTable;
  /** The service's schema name (for the NOTIFY channel). */
  schemaName: string;
  bus: MessageBus;
  logger: Logger;
  batchSize?: number;
  /** Safety net when a NOTIFY is missed. */
  pollIntervalMs?: number;
  /** Delay before retrying a row whose publish failed, by attempt number. */
  backoffMs?: (attempts: number) => number;
}

export interface OutboxRelay {
  start(): Promise<void>;
  /** Finishes the current batch, then stops. */
  stop(): Promise<void>;
  /** Publishes one batch; returns how many rows were published. */
  runOnce(): Promise<number>;
}

const defaultBackoff = (attempts: number) => Math.min(60_000, 500 * 2 ** Math.min(attempts, 10));

export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { database, outbox, bus, logger } = options;
  const batchSize = options.batchSize ?? 100;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const backoffMs = options.backoffMs ?? defaultBackoff;
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let unlisten: (() => Promise<void>) | undefined;

  const publishRow = (row: typeof outbox.$inferSelect) =>
    inSpan(
      'outbox-relay',
      `${row.type} publish`,
      {
        kind: SpanKind.PRODUCER,
        parent: contextFromHeaders(row.headers),
        attributes: { 'messaging.system': 'rabbitmq', 'messaging.message.id': row.id },
      },
      // The producer span's own context goes in the message, so the consumer's span is its child.
      () =>
        bus.publish({
          id: row.id,
          type: row.type,
          body: row.body,
          headers: currentTraceHeaders(context.active()),
        }),
    );

  /**
   * One batch: lock up to `batchSize` due rows, publish them all at once and wait for every confirm, then
   * mark the confirmed ones in one UPDATE. A row whose publish failed gets its own retry time.
   */
  const runOnce = async (): Promise<number> => {
    return database.db.transaction(async (tx) => {
      // SKIP LOCKED: several relay replicas share the rows without publishing one twice at once.
      const rows = await tx
        .select()
        .from(outbox)
        .where(and(isNull(outbox.publishedAt), lte(outbox.nextAttemptAt, sql`now()`)))
        .orderBy(asc(outbox.createdAt))
        .limit(batchSize)
        .for('update', { skipLocked: true });
      if (rows.length === 0) return 0;
      const results = await Promise.allSettled(rows.map((row) => publishRow(row)));
      const confirmed = rows
        .filter((_, index) => results[index]?.status === 'fulfilled')
        .map((row) => row.id);
      if (confirmed.length > 0)
        await tx.update(outbox).set({ publishedAt: sql`now()` }).where(inArray(outbox.id, confirmed));
      for (const [index, result] of results.entries()) {
        if (result.status === 'fulfilled') continue;
        const row = rows[index] as (typeof rows)[number];
        const attempts = row.attempts + 1;
        const error = result.reason as Error;
        logger.warn({ err: error, eventId: row.id, attempts }, 'outbox publish failed; will retry');
        await tx
          .update(outbox)
          .set({
            attempts,
            lastError: error?.message ?? String(error),
            nextAttemptAt: sql`now() + ${`${backoffMs(attempts)} milliseconds`}::interval`,
          })
          .where(eq(outbox.id, row.id));
      }
      return confirmed.length;
    });
  };

  /** What `/metrics` shows of this outbox: rows waiting and the age of the oldest. */
  const probe = async (): Promise<OutboxState> => {
    const [state] = await database.db
      .select({
        backlog: sql<number>`count(*)::int`,
        oldest: sql<number>`coalesce(extract(epoch from now() - min(${outbox.createdAt})), 0)::float8`,
      })
      .from(outbox)
      .where(isNull(outbox.publishedAt));
    return {
      backlog: Number(state?.backlog ?? 0),
      oldestAgeSeconds: Math.max(0, Number(state?.oldest ?? 0)),
    };
  };
  let unregisterProbe: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const run = async () => {
    let failures = 0;
    while (running) {
      try {
        const published = await runOnce();
        failures = 0;
        if (published === batchSize) continue;
      } catch (error) {
        failures += 1;
        logger.error({ err: error }, 'outbox relay batch failed');
      }
      if (!running) break;
      await sleep(failures > 0 ? Math.min(30_000, pollIntervalMs * 2 ** failures) : pollIntervalMs);
    }
  };

  return {
    runOnce,
    async start() {
      if (running) return;
      running = true;
      unregisterProbe = registerOutboxProbe(options.schemaName.replace(/_/g, '-'), probe);
      try {
        unlisten = await database.listen(outboxChannel(options.schemaName), () => wake?.());
      } catch (error) {
        logger.warn({ err: error }, 'outbox relay could not LISTEN; polling only');
      }
      loop = run();
    },
    async stop() {
      running = false;
      unregisterProbe?.();
      wake?.();
      await loop;
      await unlisten?.().catch(() => {});
    },
  };
}
