export type {
  DeadLetter,
  DeliveredMessage,
  MessageBus,
  MessageHandler,
  OutgoingMessage,
  Subscription,
} from './bus';
export type { BusLogger } from './bus-common';
export { createInProcessBus, type InProcessBusOptions } from './in-process-bus';
export { createRabbitMqBus, type RabbitMqBusOptions } from './rabbitmq-bus';
export {
  type IdempotentConsumerOptions,
  idempotentConsumer,
  idempotentStatement,
  type InboxTable,
  inboxTable,
} from './inbox';
export {
  createOutboxRelay,
  enqueueEvent,
  enqueueEvents,
  type OutboxRelay,
  type OutboxRelayOptions,
  type OutboxTable,
  type QueuedEvent,
  outboxChannel,
  outboxNames,
  outboxTable,
  outboxTraceHeaders,
  relaySelectStatement,
  wakeOutboxRelay,
} from './outbox';
export {
  type BatchingOptions,
  batchingHandler,
  batchPrefetch,
  type GatheredCallsOptions,
  gatherCalls,
} from './batch';
export {
  BATCH_DEFAULTS,
  type BatchItem,
  type IdempotentBatchConsumerOptions,
  idempotentBatchConsumer,
} from './inbox-batch';
export {
  type PostgresUnitOfWorkOptions,
  postgresUnitOfWork,
  type UnitOfWork,
  type UnitOfWorkBatchOptions,
} from './unit-of-work';
