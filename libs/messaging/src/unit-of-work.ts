import type { Database, Transaction } from '@payrail/db';
import type { DeliveredMessage, MessageHandler } from './bus';
import { idempotentConsumer, type InboxTable } from './inbox';
import { type BatchItem, idempotentBatchConsumer } from './inbox-batch';

export interface UnitOfWorkBatchOptions<Stores = unknown> {
  /** Most messages in one transaction; the subscription's prefetch must be at least `batchPrefetch(maxBatch)`. */
  maxBatch: number;
  /**
   * The order a batch's messages are handed to `work` in (stable: messages with the same key keep their
   * delivery order), so that two batches take their row locks in the same order. Default: delivery order.
   */
  lockOrder?: (message: DeliveredMessage) => number;
  /** One batch at a time, the messages of a failed one handled again one after the other, in order. */
  ordered?: boolean;
  /**
   * How a message alone is handled (a batch of one, each message of a failed batch), when the consumer has
   * a cheaper path for it; it must keep the inbox itself. Default: `work` with that one message.
   */
  single?: MessageHandler;
  /**
   * Reads for the batch sent with its inbox insert, in the same round trip (see
   * `IdempotentBatchConsumerOptions.preload`): every message of the batch, duplicates included, so only
   * reads. Its result is `work`'s third argument (undefined where the unit of work has no such path).
   */
  preload?: (stores: Stores, messages: DeliveredMessage[]) => Promise<unknown>;
}

/**
 * How every consumer runs its use case (issue 26: one consumer shape): in one transaction with the inbox
 * row of its message and the outbox rows its events become, through the service's stores bound to that
 * transaction. A redelivered message (its inbox row is there) does nothing; a failure leaves no trace.
 */
export interface UnitOfWork<Stores> {
  /** Each message alone: `work` with the stores of the message's transaction. */
  handlerFor(
    consumer: string,
    work: (stores: Stores, message: DeliveredMessage) => Promise<void>,
  ): MessageHandler;
  /**
   * As `handlerFor`, for up to `maxBatch` messages at once: one transaction and one inbox insert per batch,
   * then one call of `work` with the messages not handled before (in `lockOrder`); each message's `run`
   * does work in that message's own context (trace). A failed batch is handled again message by message,
   * so a poison message fails (and is dead-lettered) alone.
   */
  batchHandlerFor(
    consumer: string,
    options: UnitOfWorkBatchOptions<Stores>,
    work: (stores: Stores, items: BatchItem[], preloaded?: unknown) => Promise<void>,
  ): MessageHandler;
}

export interface PostgresUnitOfWorkOptions<Stores> {
  db: Database;
  /** The service's inbox (`inboxTable(schema)`). */
  inbox: InboxTable;
  /** The service's stores bound to one transaction (its outbox among them). */
  stores: (tx: Transaction) => Stores;
}

/** The unit of work on the service's PostgreSQL: inbox row, the stores' writes and outbox rows commit together. */
export function postgresUnitOfWork<Stores>(options: PostgresUnitOfWorkOptions<Stores>): UnitOfWork<Stores> {
  const { db, inbox, stores } = options;
  return {
    handlerFor(consumer, work) {
      return idempotentConsumer({ db, inbox, consumer, handle: (tx, message) => work(stores(tx), message) });
    },
    batchHandlerFor(consumer, { maxBatch, lockOrder, ordered, single, preload }, work) {
      return idempotentBatchConsumer({
        db,
        inbox,
        consumer,
        maxBatch,
        ordered,
        handleOne: single,
        preload: preload && ((tx, messages) => preload(stores(tx), messages)),
        handle(tx, items, preloaded) {
          if (!lockOrder) return work(stores(tx), items, preloaded);
          const sorted = items
            .map((item, index) => ({ item, index, key: lockOrder(item.message) }))
            .sort((a, b) => a.key - b.key || a.index - b.index)
            .map(({ item }) => item);
          return work(stores(tx), sorted, preloaded);
        },
      });
    },
  };
}
