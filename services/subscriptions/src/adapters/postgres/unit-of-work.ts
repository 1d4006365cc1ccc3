import type { Database } from '@payrail/db';
import { idempotentBatchConsumer, idempotentConsumer, type InboxTable } from '@payrail/messaging';
import type { ConsumerUnitOfWork } from '../../ports/unit-of-work';
import { postgresSubscriptionStore } from './subscription-store';

/** The inbox row and the use case's writes (and outbox rows) commit together, or not at all. */
export function postgresConsumerUnitOfWork(db: Database, inbox: InboxTable): ConsumerUnitOfWork {
  return {
    handlerFor(consumer, work) {
      return idempotentConsumer({
        db,
        inbox,
        consumer,
        handle: (tx, message) => work({ store: postgresSubscriptionStore(tx) }, message),
      });
    },
    batchHandlerFor(consumer, maxBatch, work) {
      return idempotentBatchConsumer({
        db,
        inbox,
        consumer,
        maxBatch,
        handle: (tx, items) => work({ store: postgresSubscriptionStore(tx) }, items),
      });
    },
  };
}
