import { type Database, rowsOf, textArrayLiteral, type Transaction } from '@payrail/db';
import { sql } from 'drizzle-orm';
import { context, contextFromHeaders, SpanKind, SpanStatusCode, trace, tracer } from '@payrail/observability';
import type { DeliveredMessage, MessageHandler } from './bus';
import { batchingHandler } from './batch';
import { idempotentConsumer, type InboxTable } from './inbox';

/** One message of a batch, with its own consumer span: `run` makes that span the active one. */
export interface BatchItem {
  message: DeliveredMessage;
  /** Runs `work` in the message's span context (trace headers of the events it writes, log lines). */
  run<T>(work: () => T): T;
}

export interface IdempotentBatchConsumerOptions {
  db: Database;
  inbox: InboxTable;
  consumer: string;
  /** Most messages in one transaction. Default 50. */
  maxBatch?: number;
  /** How long the first message waits for more. Default 5 ms. */
  gatherMs?: number;
  /** One batch at a time, in delivery order (see `BatchingOptions.ordered`). */
  ordered?: boolean;
  /**
   * Handles a message alone (a batch of one, each message of a failed batch) in place of `handle` in an
   * `idempotentConsumer`: for a consumer with a cheaper path for one message. It must keep the inbox.
   */
  handleOne?: MessageHandler;
  /**
   * Reads what the batch will need, sent with the inbox insert (one round trip for both: the statements
   * are pipelined on the transaction's connection, so the transaction does not wait between them on the
   * service's event loop). It sees every message of the batch, those handled before among them, so it must
   * only read; its result is handed to `handle`.
   */
  preload?: (tx: Transaction, messages: DeliveredMessage[]) => Promise<unknown>;
  /**
   * Runs inside the one transaction that records the batch in the inbox, with the messages not handled
   * before (duplicates are left out), in delivery order. Also called with a single item when a message is
   * handled on its own (a batch of one, or each message of a failed batch), then without `preloaded`.
   */
  handle: (tx: Transaction, items: BatchItem[], preloaded?: unknown) => Promise<void>;
}

/** The subscription's prefetch should be at least `batchPrefetch(maxBatch)`. */
export const BATCH_DEFAULTS = { maxBatch: 50, gatherMs: 5 } as const;

/**
 * As `idempotentConsumer`, for a batch of deliveries: one transaction, one multi-row inbox insert, one
 * call of `handle`; each message keeps its own consumer span, child of its publisher's. Should the batch
 * fail, every message is handled again alone through `idempotentConsumer`, so a poison message fails
 * (and is retried, then dead-lettered) on its own.
 */
export function idempotentBatchConsumer(options: IdempotentBatchConsumerOptions): MessageHandler {
  const { db, inbox, consumer, handle, preload } = options;
  const handleOne =
    options.handleOne ??
    idempotentConsumer({
      db,
      inbox,
      consumer,
      // idempotentConsumer made the message's span active already.
      handle: (tx, message) => handle(tx, [{ message, run: (work) => work() }]),
    });

  async function handleBatch(messages: DeliveredMessage[]): Promise<void> {
    const spans = messages.map((message) => startConsumerSpan(consumer, message, messages.length));
    const items = messages.map((message, index) => {
      const active = spans[index]?.context ?? context.active();
      return { message, run: <T>(work: () => T): T => context.with(active, work) };
    });
    try {
      await db.transaction(async (tx) => {
        // One statement for the whole batch, the same text whatever its size (prepared once, no SQL built
        // per row); a message id already there (handled before) is left out.
        const ids = [...new Set(messages.map((message) => message.id))];
        // Sent first (`then` runs the query); the preload's statements follow it on the same connection.
        const insertion = tx
          .execute(sql`
            insert into ${inbox} (consumer, message_id)
            select ${consumer}, id from unnest(${textArrayLiteral(ids)}::text[]) as id
            on conflict do nothing
            returning message_id`)
          .then((result) => rowsOf<{ message_id: string }>(result));
        const [inserted, preloaded] = await Promise.all([insertion, preload?.(tx, messages)]);
        const fresh = new Set(inserted.map((row) => row.message_id));
        const todo: BatchItem[] = [];
        items.forEach((item, index) => {
          // A message id twice in one batch (a re-publish) is handled once, as the inbox would across batches.
          if (fresh.delete(item.message.id)) todo.push(item);
          else spans[index]?.span.setAttribute('messaging.duplicate', true);
        });
        if (todo.length > 0) await handle(tx, todo, preloaded);
      });
      for (const { span } of spans) span.end();
    } catch (error) {
      // The per-message retry that follows has spans of its own; these say why the batch gave way.
      for (const { span } of spans) {
        span.setAttribute('messaging.batch.failed', true);
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'batch failed; handled alone' });
        span.end();
      }
      throw error;
    }
  }

  return batchingHandler({
    maxBatch: options.maxBatch ?? BATCH_DEFAULTS.maxBatch,
    gatherMs: options.gatherMs ?? BATCH_DEFAULTS.gatherMs,
    handleBatch,
    handleOne,
    ordered: options.ordered,
  });
}

function startConsumerSpan(consumer: string, message: DeliveredMessage, batchSize: number) {
  const parent = contextFromHeaders(message.headers);
  const span = tracer(consumer).startSpan(
    `${message.type} process`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.consumer.group.name': consumer,
        'messaging.message.id': message.id,
        'messaging.attempt': message.attempt,
        'messaging.batch.message_count': batchSize,
      },
    },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}
