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
}
