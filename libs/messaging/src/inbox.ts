import type { Database, Transaction } from '@payrail/db';
import type { Span } from '@opentelemetry/api';
import { contextFromHeaders, inSpan, SpanKind } from '@payrail/observability';
import { primaryKey, type PgSchema, text, timestamp } from 'drizzle-orm/pg-core';
import type { DeliveredMessage, MessageHandler } from './bus';

/**
 * The inbox: one row per (consumer, message id) handled, written in the handler's own transaction.
 * A redelivered message finds its row and is acknowledged without running the handler again.
 */
export function inboxTable(schema: PgSchema) {
  return schema.table(
    'inbox',
    {
      consumer: text('consumer').notNull(),
      messageId: text('message_id').notNull(),
      processedAt: timestamp('processed_at', { withTimezone: true }).notNull().defaultNow(),
    },
    (table) => [primaryKey({ columns: [table.consumer, table.messageId] })],
  );
}

export type InboxTable = ReturnType<typeof inboxTable>;

export interface IdempotentConsumerOptions {
  db: Database;
  inbox: InboxTable;
  consumer: string;
  /** Runs inside the transaction that records the message in the inbox. */
  handle: (tx: Transaction, message: DeliveredMessage) => Promise<void>;
}

/** The consumer span of one message, continuing the publisher's trace. */
function inConsumerSpan(
  consumer: string,
  message: DeliveredMessage,
  work: (span: Span) => Promise<void>,
): Promise<void> {
  return inSpan(
    consumer,
    `${message.type} process`,
    {
      kind: SpanKind.CONSUMER,
      parent: contextFromHeaders(message.headers),
      attributes: {
        'messaging.consumer.group.name': consumer,
        'messaging.message.id': message.id,
        'messaging.attempt': message.attempt,
      },
    },
    work,
  );
}

/**
 * Wraps a handler so that each message id is handled once per consumer, with a consumer span that
 * continues the publisher's trace. The bus acknowledges after this resolves, i.e. after commit.
 */
export function idempotentConsumer(options: IdempotentConsumerOptions): MessageHandler {
  return (message) =>
    inConsumerSpan(options.consumer, message, (span) =>
      options.db.transaction(async (tx) => {
        const inserted = await tx
          .insert(options.inbox)
          .values({ consumer: options.consumer, messageId: message.id })
          .onConflictDoNothing()
          .returning({ messageId: options.inbox.messageId });
        if (inserted.length === 0) {
          span.setAttribute('messaging.duplicate', true);
          return;
        }
        await options.handle(tx, message);
      }),
    );
}

/**
 * The same for a handler that is a single statement which writes the inbox row itself (a CTE:
 * `insert into inbox ... on conflict do nothing returning`, its change only when that row was new):
 * one round trip instead of a transaction's four. `run` answers whether the message was new.
 */
export function idempotentStatement(options: {
  consumer: string;
  run: (message: DeliveredMessage) => Promise<boolean>;
}): MessageHandler {
  return (message) =>
    inConsumerSpan(options.consumer, message, async (span) => {
      if (!(await options.run(message))) span.setAttribute('messaging.duplicate', true);
    });
}
