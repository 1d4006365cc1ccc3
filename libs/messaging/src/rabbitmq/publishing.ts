/** Publishing with publisher confirms: a publish resolves only once the broker has taken the message. */
import { routingKeyOf } from '@payrail/contracts';
import type { ConfirmChannel, Options } from 'amqplib';
import type { OutgoingMessage } from '../bus';
import { applicationHeaders } from '../bus-common';

/** Publishes an event to the exchange under its type as routing key, persistent, and waits for the confirm. */
export function publishConfirmed(
  channel: ConfirmChannel,
  exchange: string,
  message: OutgoingMessage,
  timeoutMs: number,
): Promise<void> {
  const properties: Options.Publish = {
    persistent: true,
    messageId: message.id,
    type: message.type,
    contentType: 'application/json',
    timestamp: Math.floor(Date.now() / 1000),
    headers: applicationHeaders(message.headers),
  };
  return withTimeout(
    new Promise<void>((resolve, reject) => {
      channel.publish(
        exchange,
        message.routingKey ?? routingKeyOf(message.type, message.body),
        Buffer.from(message.body, 'utf8'),
        properties,
        confirmed(resolve, reject),
      );
    }),
    timeoutMs,
    `confirm from RabbitMQ for message ${message.id}`,
  );
}

/** Sends straight to a queue (through the default exchange) and waits for the confirm. */
export function sendConfirmed(
  channel: ConfirmChannel,
  queue: string,
  content: Buffer,
  properties: Options.Publish,
  timeoutMs: number,
): Promise<void> {
  return withTimeout(
    new Promise<void>((resolve, reject) => {
      channel.sendToQueue(queue, content, properties, confirmed(resolve, reject));
    }),
    timeoutMs,
    `confirm from RabbitMQ for a message sent to ${queue}`,
  );
}

function confirmed(resolve: () => void, reject: (error: Error) => void): (error: unknown) => void {
  return (error) => {
    if (error) reject(error instanceof Error ? error : new Error(String(error)));
    else resolve();
  };
}

export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out waiting for ${what}`)), Math.max(timeoutMs, 0));
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
