/**
 * The retry and dead-letter topology of a consumer, and the moves of a failed message through it.
 *
 * Each consumer owns three durable queues: `<prefix><consumer>` (bound to its event types), `<...>.retry`
 * (no consumer: a failed message waits there for its per-message expiration, then RabbitMQ dead-letters
 * it back to the main queue through the default exchange) and `<...>.dlq` (messages that used up their
 * attempts).
 */
import type { Channel, ConfirmChannel, GetMessage, Options } from 'amqplib';
import type { DeadLetter, DeliveredMessage } from '../bus';
import { ATTEMPT_HEADER, ATTEMPTS_HEADER, ERROR_HEADER } from '../bus-common';
import { headersFromAmqp, isNotFound, stringProperty } from './amqp-properties';
import { sendConfirmed } from './publishing';

/** The error text is only for operators; a long stack would bloat every dead letter's headers. */
const MAX_ERROR_HEADER_LENGTH = 2_000;

export interface ConsumerQueues {
  queue: string;
  retryQueue: string;
  deadLetterQueue: string;
}

export function consumerQueues(queuePrefix: string, consumer: string): ConsumerQueues {
  const queue = `${queuePrefix}${consumer}`;
  return { queue, retryQueue: `${queue}.retry`, deadLetterQueue: `${queue}.dlq` };
}

export function declareExchange(channel: Channel, exchange: string): Promise<unknown> {
  return channel.assertExchange(exchange, 'topic', { durable: true });
}

/** Idempotent, so it runs on every (re)start and repairs an exchange or queue deleted under us. */
export async function declareConsumerTopology(
  channel: Channel,
  exchange: string,
  queues: ConsumerQueues,
  eventTypes: readonly string[],
  retiredEventTypes: readonly string[] = [],
): Promise<void> {
  await declareExchange(channel, exchange);
  await channel.assertQueue(queues.queue, { durable: true });
  await channel.assertQueue(queues.retryQueue, {
    durable: true,
    arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': queues.queue },
  });
  await channel.assertQueue(queues.deadLetterQueue, { durable: true });
  // The type itself and every longer routing key under it (`link.created` and `link.created.recurrent`).
  for (const type of eventTypes) {
    await channel.bindQueue(queues.queue, exchange, type);
    await channel.bindQueue(queues.queue, exchange, `${type}.#`);
  }
  // An earlier version's bindings: removing one that is not there is a no-op on the broker.
  for (const type of retiredEventTypes) {
    await channel.unbindQueue(queues.queue, exchange, type);
    await channel.unbindQueue(queues.queue, exchange, `${type}.#`);
  }
}

export interface FailedMessage {
  delivered: DeliveredMessage;
  content: Buffer;
  reason: string;
}

/**
 * Parks a copy of a message whose handler failed: in the retry queue with the next attempt number and
 * the retry delay as expiration, or, after the last attempt, in the dead-letter queue with the number
 * of attempts and the error. A failure that is not counted (the database unavailable) goes back to the
 * retry queue with the same attempt number, however many times. Resolves once the broker confirmed the copy, so the original can be acked.
 */
export function parkFailedMessage(
  channel: ConfirmChannel,
  queues: ConsumerQueues,
  failed: FailedMessage,
  policy: { maxAttempts: number; retryDelayMs: number; confirmTimeoutMs: number; countAttempt: boolean },
): Promise<'retry' | 'dead-letter'> {
  const { delivered, content, reason } = failed;
  if (!policy.countAttempt || delivered.attempt < policy.maxAttempts) {
    return sendConfirmed(
      channel,
      queues.retryQueue,
      content,
      {
        ...copyProperties(delivered),
        headers: {
          ...delivered.headers,
          [ATTEMPT_HEADER]: policy.countAttempt ? delivered.attempt + 1 : delivered.attempt,
        },
        expiration: String(policy.retryDelayMs),
      },
      policy.confirmTimeoutMs,
    ).then(() => 'retry' as const);
  }
  return sendConfirmed(
    channel,
    queues.deadLetterQueue,
    content,
    {
      ...copyProperties(delivered),
      headers: {
        ...delivered.headers,
        [ATTEMPTS_HEADER]: delivered.attempt,
        [ERROR_HEADER]: reason.slice(0, MAX_ERROR_HEADER_LENGTH),
      },
    },
    policy.confirmTimeoutMs,
  ).then(() => 'dead-letter' as const);
}

/** Takes every message out of a dead-letter queue; a queue that does not exist holds none. */
export async function takeDeadLetters(channel: Channel, deadLetterQueue: string): Promise<DeadLetter[]> {
  // A missing queue closes the channel with an error event; the failed get() reports it.
  channel.on('error', () => undefined);
  const letters: DeadLetter[] = [];
  try {
    for (;;) {
      const message = await channel.get(deadLetterQueue, { noAck: false });
      if (message === false) return letters;
      letters.push(deadLetterFrom(message));
      channel.ack(message);
    }
  } catch (error) {
    // No dead-letter queue means this consumer never subscribed: nothing was dead-lettered.
    if (isNotFound(error)) return letters;
    throw error;
  }
}

function copyProperties(message: DeliveredMessage): Options.Publish {
  return {
    persistent: true,
    messageId: message.id,
    type: message.type,
    contentType: 'application/json',
    timestamp: Math.floor(Date.now() / 1000),
  };
}

function deadLetterFrom(message: GetMessage): DeadLetter {
  const rawHeaders: Record<string, unknown> = message.properties.headers ?? {};
  return {
    id: stringProperty(message.properties.messageId),
    type: stringProperty(message.properties.type),
    body: message.content.toString('utf8'),
    headers: headersFromAmqp(rawHeaders),
    attempts: Number(rawHeaders[ATTEMPTS_HEADER] ?? 0),
    error: stringProperty(rawHeaders[ERROR_HEADER]),
  };
}
