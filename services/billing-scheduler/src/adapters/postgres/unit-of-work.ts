import type { Database } from '@payrail/db';
import { idempotentConsumer, type InboxTable } from '@payrail/messaging';
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
  };
}
