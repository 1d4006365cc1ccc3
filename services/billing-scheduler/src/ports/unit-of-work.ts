import type { DeliveredMessage, MessageHandler } from '@payrail/messaging';
import type { ProjectionStore } from './billing-store';

/**
 * How a message consumer runs its use case: once per message id, in one transaction that also records
 * the message as handled (the inbox). A redelivered message does nothing; a failure leaves no trace.
 */
export interface ConsumerUnitOfWork {
  handlerFor(
    consumer: string,
    work: (store: ProjectionStore, message: DeliveredMessage) => Promise<void>,
  ): MessageHandler;
  /**
   * As `handlerFor`, for up to `maxBatch` messages at once: one transaction and one inbox insert per batch,
   * then one call of `work` with the messages not handled before, in the order of `lockOrder` (stable:
   * messages with the same key keep their delivery order), so that two batches take their row locks in
   * the same order; each message's `run` does work in that message's own context (trace). A failed batch
   * is handled again message by message (`work` with one message). The subscription's prefetch must be at
   * least `batchPrefetch(maxBatch)`.
   */
  batchHandlerFor(
    consumer: string,
    options: { maxBatch: number; lockOrder: (message: DeliveredMessage) => number },
    work: (store: ProjectionStore, messages: BatchedMessage[]) => Promise<void>,
  ): MessageHandler;
}

/** A message of a batch, and how to run work in its own context (the trace of the events it writes). */
export interface BatchedMessage {
  message: { type: string; body: string };
  run<T>(work: () => T): T;
}
