import type { Database, Transaction } from '@payrail/db';
import { contextFromHeaders, SpanKind, SpanStatusCode, tracer } from '@payrail/observability';
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
  return async (message) => {
    const parent = contextFromHeaders(message.headers);
    await tracer(options.consumer).startActiveSpan(
      `${message.type} process`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.consumer.group.name': options.consumer,
          'messaging.message.id': message.id,
          'messaging.attempt': message.attempt,
        },
      },
      parent,
      async (span) => {
        try {
          await options.db.transaction(async (tx) => {
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
          });
        } catch (error) {
          span.recordException(error as Error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  };
}
