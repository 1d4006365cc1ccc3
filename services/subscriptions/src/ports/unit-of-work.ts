import type { BatchItem, DeliveredMessage, MessageHandler } from '@payrail/messaging';
import type { SubscriptionStore } from './subscription-store';

/** The stores a unit of work hands out, all bound to its one transaction. */
export interface TransactionalStores {
  store: SubscriptionStore;
}

/**
 * How a message consumer runs its use case: once per message id, in one transaction that also
 * records the message as handled. A redelivered message does nothing; a failure leaves no trace, so
 * the retry starts clean.
 */
export interface ConsumerUnitOfWork {
  handlerFor(
    consumer: string,
    work: (stores: TransactionalStores, message: DeliveredMessage) => Promise<void>,
  ): MessageHandler;
  /**
   * As `handlerFor`, for up to `maxBatch` messages at once: one transaction and one inbox insert per
   * batch; `work` gets the messages not handled before, each with the context (trace) to run its part in.
   * A failed batch is handled again message by message. The subscription's prefetch must be at least
   * `batchPrefetch(maxBatch)`.
   */
  batchHandlerFor(
    consumer: string,
    maxBatch: number,
    work: (stores: TransactionalStores, items: BatchItem[]) => Promise<void>,
  ): MessageHandler;
}
