import type { Database, Transaction } from '@payrail/db';
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

/**
 * Wraps a handler so that each message id is handled once per consumer, with a consumer span that
 * continues the publisher's trace. The bus acknowledges after this resolves, i.e. after commit.
 */
export function idempotentConsumer(options: IdempotentConsumerOptions): MessageHandler {
  return (message) =>
    inSpan(
      options.consumer,
      `${message.type} process`,
      {
        kind: SpanKind.CONSUMER,
        parent: contextFromHeaders(message.headers),
        attributes: {
          'messaging.consumer.group.name': options.consumer,
          'messaging.message.id': message.id,
          'messaging.attempt': message.attempt,
        },
      },
      (span) =>
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
