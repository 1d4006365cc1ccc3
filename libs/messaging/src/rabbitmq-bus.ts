/**
 * The bus on RabbitMQ: one durable topic exchange, routing key = event type.
 *
 * Put together from one module per concern under `rabbitmq/`: the connection and its reconnects
 * (`connection.ts`), publishing with confirms (`publishing.ts`), neighbours of one routing key as one
 * message (`bundles.ts`), consuming (`consuming.ts`) and each consumer's retry and dead-letter queues
 * (`topology.ts`).
 */
import type { MessageBus, OutgoingMessage, Subscription } from './bus';
import { type BusLogger, silentLogger } from './bus-common';
import { exponentialBackoff, RabbitMqConnection } from './rabbitmq/connection';
import { BundlingPublisher } from './rabbitmq/bundles';
import { RabbitMqConsumers } from './rabbitmq/consuming';
import { withTimeout } from './rabbitmq/publishing';
import { consumerQueues, takeDeadLetters } from './rabbitmq/topology';

export interface RabbitMqBusOptions {
  /** `amqp://user:password@host:5672/vhost` */
  url: string;
  /** The durable topic exchange every event is published to. */
  exchange: string;
  /** Prepended to every consumer's queue names; tests use it to keep their queues apart. */
  queuePrefix?: string;
  logger?: BusLogger;
  /** First wait before reconnecting (or re-consuming); doubles on each failure. Default 1000. */
  reconnectDelayMs?: number;
  /** Upper bound of the reconnect backoff. Default 30 000. */
  maxReconnectDelayMs?: number;
  /**
   * How long `publish()` (and `subscribe()`, `drainDeadLetters()`) wait for a connection plus the
   * broker's confirm before rejecting. Default 10 000; the outbox relay retries a rejected publish.
   */
  publishTimeoutMs?: number;
  /**
   * Most events in one bundle (`rabbitmq/bundles.ts`): what is published in the same turn of the event
   * loop under the same routing key, one after the other, goes as one AMQP message. Default 50; 1 never
   * bundles (a deployment whose consumers are not all of a version that takes bundles apart).
   */
  bundleMax?: number;
}

export function createRabbitMqBus(options: RabbitMqBusOptions): MessageBus {
  const logger = options.logger ?? silentLogger;
  const queuePrefix = options.queuePrefix ?? '';
  const reconnectDelayMs = options.reconnectDelayMs ?? 1_000;
  const backoff = exponentialBackoff(reconnectDelayMs, options.maxReconnectDelayMs ?? 30_000);
  const publishTimeoutMs = options.publishTimeoutMs ?? 10_000;
  const { exchange } = options;
  const publisher = new BundlingPublisher(exchange, options.bundleMax ?? 50);

  const connection: RabbitMqConnection = new RabbitMqConnection(
    { url: options.url, exchange, logger, backoff, waitTimeoutMs: publishTimeoutMs },
    {
      lost: () => consumers.forgetChannels(),
      reconnected: (session): Promise<void> => consumers.resumeAll(session),
    },
  );
  const consumers: RabbitMqConsumers = new RabbitMqConsumers(connection, {
    exchange,
    queuePrefix,
    logger,
    backoff,
    confirmTimeoutMs: publishTimeoutMs,
  });

  return {
    start: () => connection.start(),

    async publish(message: OutgoingMessage) {
      if (!connection.isStarted) throw new Error('Call start() before publish()');
      const deadline = Date.now() + publishTimeoutMs;
      const session = await connection.liveSession(deadline);
      const channel = await withTimeout(
        connection.publisherFor(session),
        deadline - Date.now(),
        'a publish channel',
      );
      await publisher.publish(channel, message, deadline - Date.now());
    },

    async subscribe(input: Subscription) {
      if (connection.isClosed) throw new Error('The bus is closed');
      if (!connection.isStarted) throw new Error('Call start() before subscribe()');
      await consumers.subscribe(input);
    },

    stopConsuming: () => consumers.stopConsuming(),

    async close() {
      if (connection.isClosed) return;
      consumers.clearRecoveries();
      await connection.close(() => consumers.closeChannels());
    },

    isReady() {
      if (!connection.isStarted || consumers.hasStopped || connection.isClosed) return false;
      if (!connection.liveNow()) return false;
      return consumers.allConsuming();
    },

    async drainDeadLetters(consumer: string) {
      const session = await connection.liveSession(Date.now() + publishTimeoutMs);
      const channel = await session.model.createChannel();
      try {
        return await takeDeadLetters(channel, consumerQueues(queuePrefix, consumer).deadLetterQueue);
      } finally {
        await channel.close().catch(() => undefined);
      }
    },
  };
}
