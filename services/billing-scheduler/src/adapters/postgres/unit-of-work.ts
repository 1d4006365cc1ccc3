import type { Database } from '@payrail/db';
import { idempotentBatchConsumer, idempotentConsumer, type InboxTable } from '@payrail/messaging';
import type { ConsumerUnitOfWork } from '../../ports/unit-of-work';
import { postgresProjectionStore } from './billing-store';

/** The inbox row and the use case's writes (and outbox rows) commit together, or not at all. */
export function postgresConsumerUnitOfWork(db: Database, inbox: InboxTable): ConsumerUnitOfWork {
  return {
    handlerFor(consumer, work) {
      return idempotentConsumer({
        db,
        inbox,
        consumer,
        handle: (tx, message) => work(postgresProjectionStore(tx), message),
      });
    },
    batchHandlerFor(consumer, { maxBatch, lockOrder }, work) {
      return idempotentBatchConsumer({
        db,
        inbox,
        consumer,
        maxBatch,
        async handle(tx, items) {
          const store = postgresProjectionStore(tx);
          const ordered = items
            .map((item, index) => ({ item, index, key: lockOrder(item.message) }))
            .sort((a, b) => a.key - b.key || a.index - b.index);
          await work(
            store,
            ordered.map(({ item }) => item),
          );
        },
      });
    },
  };
}
