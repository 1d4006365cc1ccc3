/**
 * The bus in memory: the embedded mode (every service in one process, no broker) and fast unit tests.
 * It mirrors the RabbitMQ adapter's semantics, which `test/bus.contract.ts` checks on both: one queue
 * per consumer, delivery outside the publisher's call stack, retries after a delay, a dead-letter list,
 * a prefetch-like bound on concurrent handlers. Nothing survives the process.
 */
import { routingKeyOf } from '@payrail/contracts';
import { countConsumed } from '@payrail/observability';
import type { DeadLetter, DeliveredMessage, MessageBus, OutgoingMessage, Subscription } from './bus';
import {
  applicationHeaders,
  type BusLogger,
  errorMessage,
  type ResolvedSubscription,
  countsAsAttempt,
  resolveSubscription,
  silentLogger,
  drainInFlight,
} from './bus-common';

export interface InProcessBusOptions {
  logger?: BusLogger;
}

interface LocalConsumer {
  subscription: ResolvedSubscription;
  /** Messages waiting for a free handler slot, oldest first (a queue's FIFO order). */
  queue: DeliveredMessage[];
  active: number;
  inFlight: Set<Promise<void>>;
  retryTimers: Set<NodeJS.Timeout>;
}

export function createInProcessBus(options: InProcessBusOptions = {}): MessageBus {
  const logger = options.logger ?? silentLogger;
  const consumers = new Map<string, LocalConsumer>();
  // Kept apart from the consumers so that dead letters stay drainable after close().
  const deadLetters = new Map<string, DeadLetter[]>();
  let started = false;
  let stopped = false;
  let closed = false;

  function pump(consumer: LocalConsumer): void {
    while (!stopped && !closed && consumer.active < consumer.subscription.prefetch) {
      const next = consumer.queue.shift();
      if (!next) return;
      consumer.active += 1;
      const task = deliver(consumer, next).finally(() => {
        consumer.active -= 1;
        consumer.inFlight.delete(task);
        pump(consumer);
      });
      consumer.inFlight.add(task);
    }
  }

  async function deliver(consumer: LocalConsumer, message: DeliveredMessage): Promise<void> {
    const { subscription } = consumer;
    try {
      // A copy, so a handler that mutates its message cannot change what a retry or another consumer sees.
      await subscription.handler({ ...message, headers: { ...message.headers } });
      countConsumed(subscription.consumer, 'consumed');
    } catch (error) {
      const reason = errorMessage(error);
      const context = {
        consumer: subscription.consumer,
        messageId: message.id,
        type: message.type,
        attempt: message.attempt,
        error: reason,
      };
      const counted = countsAsAttempt(error);
      const retry = !counted || message.attempt < subscription.maxAttempts;
      countConsumed(subscription.consumer, retry ? 'failed' : 'dead-lettered');
      if (retry) {
        logger.warn(
          context,
          counted
            ? 'Message handler failed; retrying later'
            : 'Message handler could not reach the database; retrying later, not counted as an attempt',
        );
        const timer = setTimeout(() => {
          consumer.retryTimers.delete(timer);
          // Back to the tail, like a message dead-lettered from a retry queue into its main queue.
          consumer.queue.push({ ...message, attempt: counted ? message.attempt + 1 : message.attempt });
          pump(consumer);
        }, subscription.retryDelayMs);
        consumer.retryTimers.add(timer);
      } else {
        logger.error(context, 'Message handler failed on its last attempt; dead-lettering the message');
        const letters = deadLetters.get(subscription.consumer) ?? [];
        letters.push({
          id: message.id,
          type: message.type,
          body: message.body,
          headers: { ...message.headers },
          attempts: message.attempt,
          error: reason,
        });
        deadLetters.set(subscription.consumer, letters);
      }
    }
  }

  return {
    async start() {
      if (closed) throw new Error('The bus is closed');
      started = true;
    },

    async publish(message: OutgoingMessage) {
      if (closed) throw new Error('The bus is closed');
      if (!started) throw new Error('Call start() before publish()');
      const headers = applicationHeaders(message.headers);
      const routingKey = message.routingKey ?? routingKeyOf(message.type, message.body);
      for (const consumer of consumers.values()) {
        // As the topic exchange binds them: the key itself, or a key that extends it by more words.
        const bound = consumer.subscription.eventTypes.some(
          (type) => routingKey === type || routingKey.startsWith(`${type}.`),
        );
        if (!bound) continue;
        consumer.queue.push({ id: message.id, type: message.type, body: message.body, headers, attempt: 1 });
        // Deliver outside the publisher's call stack, as a broker would: a handler must never run
        // inside the publisher's transaction or see its stack.
        queueMicrotask(() => pump(consumer));
      }
    },

    async subscribe(input: Subscription) {
      if (closed) throw new Error('The bus is closed');
      if (!started) throw new Error('Call start() before subscribe()');
      if (stopped) throw new Error('The bus has stopped consuming');
      const subscription = resolveSubscription(input);
      if (consumers.has(subscription.consumer)) {
        throw new Error(`Consumer ${subscription.consumer} is already subscribed on this bus`);
      }
      consumers.set(subscription.consumer, {
        subscription,
        queue: [],
        active: 0,
        inFlight: new Set(),
        retryTimers: new Set(),
      });
    },

    async stopConsuming() {
      stopped = true;
      await drainInFlight(consumers.values());
    },

    async close() {
      if (closed) return;
      closed = true;
      stopped = true;
      for (const consumer of consumers.values()) {
        for (const timer of consumer.retryTimers) clearTimeout(timer);
        consumer.retryTimers.clear();
        consumer.queue.length = 0;
      }
    },

    isReady() {
      return started && !stopped && !closed;
    },

    async drainDeadLetters(consumer: string) {
      const letters = deadLetters.get(consumer) ?? [];
      deadLetters.delete(consumer);
      return letters;
    },
  };
}
