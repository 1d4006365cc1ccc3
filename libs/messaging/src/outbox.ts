import type { EventEnvelope } from '@payrail/contracts';
import { type DatabaseHandle, type Executor, executePrepared } from '@payrail/db';
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
import { eq, isNull, sql } from 'drizzle-orm';
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
 * event announcing it are written in one transaction; the relay publishes afterwards and deletes the rows
 * the broker confirmed: the table holds what is still to publish, not a history. With
 * `OUTBOX_KEEP_PUBLISHED=true` (the test suites, a debugging session) it marks them `published_at` instead
 * and keeps them, as the relays did before: a log of what the service emitted, never pruned.
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

/** The outbox's qualified name and NOTIFY channel, worked out once per table. */
interface OutboxNames {
  /** `"schema"."outbox"`, for hand-written statements. */
  table: string;
  channel: string;
}

const namesOfTable = new WeakMap<OutboxTable, OutboxNames>();

export function outboxNames(outbox: OutboxTable): OutboxNames {
  let names = namesOfTable.get(outbox);
  if (!names) {
    const config = getTableConfig(outbox);
    const schema = config.schema ?? 'public';
    names = {
      table: `${quoteIdentifier(schema)}.${quoteIdentifier(config.name)}`,
      channel: outboxChannel(schema),
    };
    namesOfTable.set(outbox, names);
  }
  return names;
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The trace headers an outbox row keeps, serialised: the active trace context of the writer. */
export function outboxTraceHeaders(): string {
  return JSON.stringify(currentTraceHeaders());
}

const enqueueStatements = new WeakMap<OutboxTable, string>();

/**
 * Writes an event to the outbox inside the caller's transaction, with the active trace context, and
 * wakes the relay (NOTIFY is delivered only when the transaction commits): one prepared statement, one
 * round trip, built without the query builder (the busiest write path of every service).
 */
export async function enqueueEvent(tx: Executor, outbox: OutboxTable, event: EventEnvelope): Promise<void> {
  let statement = enqueueStatements.get(outbox);
  if (!statement) {
    const { table, channel } = outboxNames(outbox);
    statement = `with queued as (
      insert into ${table} (id, type, body, headers) values ($1::uuid, $2::text, $3::text, $4::jsonb)
      returning 1)
    select pg_notify('${channel.replace(/'/g, "''")}', '') from queued`;
    enqueueStatements.set(outbox, statement);
  }
  await executePrepared(tx, 'outbox_enqueue', statement, [
    event.id,
    event.type,
    JSON.stringify(event),
    outboxTraceHeaders(),
  ]);
}

const enqueueManyStatements = new WeakMap<OutboxTable, string>();

/** One event of `enqueueEvents`, with the trace headers (`outboxTraceHeaders()`) of the work it announces. */
export interface QueuedEvent {
  event: EventEnvelope;
  headers: string;
}

/**
 * As `enqueueEvent`, for the events of several pieces of work done in one transaction (a batch), each
 * with its own trace context: one statement whatever their number, the events as one JSON array (each
 * row's body the text of its element, `JSON.stringify(event)`), and one NOTIFY, delivered on commit.
 */
export async function enqueueEvents(tx: Executor, outbox: OutboxTable, events: QueuedEvent[]): Promise<void> {
  if (events.length === 0) return;
  let statement = enqueueManyStatements.get(outbox);
  if (!statement) {
    const { table, channel } = outboxNames(outbox);
    statement = `with queued as (
      insert into ${table} (id, type, body, headers)
      select (e.body ->> 'id')::uuid, e.body ->> 'type', e.body::text, h.headers
      from json_array_elements($1::json) with ordinality as e(body, n)
      join jsonb_array_elements($2::jsonb) with ordinality as h(headers, n) using (n)
      returning 1)
    select pg_notify('${channel.replace(/'/g, "''")}', '') from (select 1 from queued limit 1) as any_queued`;
    enqueueManyStatements.set(outbox, statement);
  }
  let bodies = '[';
  let headers = '[';
  for (let index = 0; index < events.length; index += 1) {
    const queued = events[index] as QueuedEvent;
    if (index > 0) {
      bodies += ',';
      headers += ',';
    }
    bodies += JSON.stringify(queued.event);
    headers += queued.headers;
  }
  await executePrepared(tx, 'outbox_enqueue_many', statement, [`${bodies}]`, `${headers}]`]);
}

/** The relays of this process, by schema: woken in-process, without a NOTIFY (see `wakeOutboxRelay`). */
const localRelays = new Map<string, Set<() => void>>();

/**
 * Wakes this process's relay of a schema for rows already committed (a statement that ran outside any
 * transaction): it sees them at once, with no NOTIFY sent through the database. The relays of other
 * processes are not told; they find any row this process leaves behind at their next poll.
 */
export function wakeOutboxRelay(schemaName: string): void {
  for (const wake of localRelays.get(schemaName) ?? []) wake();
}

export interface OutboxRelayOptions {
  database: DatabaseHandle;
  outbox: OutboxTable;
  /** The service's schema name (for the NOTIFY channel). */
  schemaName: string;
  bus: MessageBus;
  logger: Logger;
  /**
   * Most rows one batch locks and publishes (default 500). Each batch is a transaction, a wait for the
   * broker's confirms and a delete, whatever its size; with 100, subscriptions' relay (two events a charge)
   * fell behind at 1,000 charges/s and held back processor-gateway's work (docs/performance.md).
   */
  batchSize?: number;
  /** Safety net when a NOTIFY is missed. */
  pollIntervalMs?: number;
  /** Delay before retrying a row whose publish failed, by attempt number. */
  backoffMs?: (attempts: number) => number;
  /**
   * After a NOTIFY, how long the relay waits for more rows before it reads a batch: under load one batch
   * then publishes many rows instead of one per transaction. Adds at most this much to an event's delay.
   */
  gatherMs?: number;
  /**
   * Keep published rows, marked `published_at`, instead of deleting them (`OUTBOX_KEEP_PUBLISHED`, parsed by
   * each service's `src/config.ts` through `serviceEnvSchema` of libs/runtime). Default false: each mark is a new version of the whole row, and
   * the rows pile up.
   */
  keepPublished?: boolean;
}

export interface OutboxRelay {
  start(): Promise<void>;
  /** Finishes the current batch, then stops. */
  stop(): Promise<void>;
  /** Publishes one batch; returns how many rows were published. */
  runOnce(): Promise<number>;
}

/** A row the batch has locked, as the relay publishes it. */
interface LockedRow {
  id: string;
  type: string;
  body: string;
  headers: Record<string, string>;
  attempts: number;
}

/** As the driver answers: jsonb parsed or not, integers as numbers or strings. */
interface RawLockedRow {
  id: string;
  type: string;
  body: string;
  headers: Record<string, string> | string;
  attempts: number | string;
}

function lockedRow(raw: RawLockedRow): LockedRow {
  return {
    id: raw.id,
    type: raw.type,
    body: raw.body,
    headers:
      typeof raw.headers === 'string' ? (JSON.parse(raw.headers) as Record<string, string>) : raw.headers,
    attempts: Number(raw.attempts),
  };
}

const defaultBackoff = (attempts: number) => Math.min(60_000, 500 * 2 ** Math.min(attempts, 10));

/**
 * The relay's batch: up to `$1` rows due for publishing, locked. Hand-written and prepared: no query
 * building per batch. SKIP LOCKED: several relay replicas share the rows without publishing one twice at
 * once; a relay that dies mid-batch releases its rows with its connection, so another one publishes them
 * at once. In the order of `outbox_unpublished_idx` (next_attempt_at: a new row's is its created_at), so
 * that a batch reads its rows off the index and stops there; ordered by created_at it sorted the whole
 * backlog for each batch (a run's 10,000 charge-due rows: tens of milliseconds a batch, the relay falling
 * behind as the backlog grew).
 */
export function relaySelectStatement(outbox: OutboxTable): string {
  return `select id, type, body, headers, attempts from ${outboxNames(outbox).table}
    where published_at is null and next_attempt_at <= now()
    order by next_attempt_at
    limit $1::int
    for update skip locked`;
}

export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { database, outbox, bus, logger } = options;
  const batchSize = options.batchSize ?? 500;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const backoffMs = options.backoffMs ?? defaultBackoff;
  const gatherMs = options.gatherMs ?? 10;
  const { table } = outboxNames(outbox);
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let unlisten: (() => Promise<void>) | undefined;

  const selectStatement = relaySelectStatement(outbox);
  // Deleted rather than marked published unless asked: a mark is a new version of the whole row (its body
  // and headers, and a new primary-key entry, since the column is in the partial index's predicate), four
  // a charge, and the published rows made each outbox the largest table of its service.
  const [doneName, doneStatement] = options.keepPublished
    ? ['outbox_mark', `update ${table} set published_at = now() where id = any($1::uuid[])`]
    : ['outbox_delete', `delete from ${table} where id = any($1::uuid[])`];

  const publishRow = (row: LockedRow) =>
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
   * delete (or mark) the confirmed ones in one statement. A row whose publish failed gets its own retry time.
   */
  const runOnce = async (): Promise<number> => {
    return database.db.transaction(async (tx) => {
      const rows = (
        await executePrepared<RawLockedRow>(tx, 'outbox_select', selectStatement, [batchSize])
      ).map(lockedRow);
      if (rows.length === 0) return 0;
      const results = await Promise.allSettled(rows.map((row) => publishRow(row)));
      const confirmed = rows
        .filter((_, index) => results[index]?.status === 'fulfilled')
        .map((row) => row.id);
      // Uuids only: the array literal needs no quoting.
      if (confirmed.length > 0)
        await executePrepared(tx, doneName, doneStatement, [`{${confirmed.join(',')}}`]);
      for (const [index, result] of results.entries()) {
        if (result.status === 'fulfilled') continue;
        const row = rows[index] as LockedRow;
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
  let unregisterLocal: (() => void) | undefined;

  /** Resolves true when a NOTIFY (or `stop()`) woke it, false when the poll interval passed. */
  const sleep = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), ms);
      function done(woken = true) {
        clearTimeout(timer);
        wake = undefined;
        resolve(woken);
      }
      wake = done;
    });

  /** A short pause that `stop()` cuts short; NOTIFYs during it are already part of the coming batch. */
  const gather = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, gatherMs);
      function done() {
        clearTimeout(timer);
        stopping = undefined;
        resolve();
      }
      stopping = done;
    });
  let stopping: (() => void) | undefined;
  /** Set by every NOTIFY; cleared when a batch starts reading. */
  let notified = false;

  const run = async () => {
    let failures = 0;
    let woken = false;
    while (running) {
      try {
        if (woken && gatherMs > 0) await gather();
        woken = false;
        notified = false;
        const published = await runOnce();
        failures = 0;
        if (published === batchSize) continue;
      } catch (error) {
        failures += 1;
        logger.error({ err: error }, 'outbox relay batch failed');
      }
      if (!running) break;
      // A NOTIFY that came while the batch ran may be for a row the batch did not see: no waiting for the poll.
      if (notified && failures === 0) {
        woken = true;
        continue;
      }
      woken = await sleep(failures > 0 ? Math.min(30_000, pollIntervalMs * 2 ** failures) : pollIntervalMs);
    }
  };

  return {
    runOnce,
    async start() {
      if (running) return;
      running = true;
      unregisterProbe = registerOutboxProbe(options.schemaName.replace(/_/g, '-'), probe);
      const onWake = () => {
        notified = true;
        wake?.();
      };
      const locals = localRelays.get(options.schemaName) ?? new Set();
      locals.add(onWake);
      localRelays.set(options.schemaName, locals);
      unregisterLocal = () => locals.delete(onWake);
      try {
        unlisten = await database.listen(outboxChannel(options.schemaName), onWake);
      } catch (error) {
        logger.warn({ err: error }, 'outbox relay could not LISTEN; polling only');
      }
      loop = run();
    },
    async stop() {
      running = false;
      unregisterProbe?.();
      unregisterLocal?.();
      wake?.();
      stopping?.();
      await loop;
      await unlisten?.().catch(() => {});
    },
  };
}
