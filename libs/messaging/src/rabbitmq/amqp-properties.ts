/** Reading what RabbitMQ hands us (message properties, headers, close frames) into the bus's own shapes. */
import type { Message } from 'amqplib';
import type { DeliveredMessage } from '../bus';
import { ATTEMPT_HEADER, isReservedHeader } from '../bus-common';

export function deliveredMessageFrom(raw: Message, routingKey: string): DeliveredMessage {
  const rawHeaders: Record<string, unknown> = raw.properties.headers ?? {};
  return {
    id: stringProperty(raw.properties.messageId),
    type: stringProperty(raw.properties.type) || routingKey,
    body: raw.content.toString('utf8'),
    headers: headersFromAmqp(rawHeaders),
    attempt: attemptNumber(rawHeaders[ATTEMPT_HEADER]),
  };
}

/** The application's headers as strings; bus and broker bookkeeping (x-attempt, x-death...) left out. */
export function headersFromAmqp(raw: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (isReservedHeader(name)) continue;
    if (typeof value === 'string') headers[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
      headers[name] = String(value);
    } else if (Buffer.isBuffer(value)) headers[name] = value.toString('utf8');
    // Tables and arrays have no faithful string form; only publishers outside the bus send them.
  }
  return headers;
}

function attemptNumber(value: unknown): number {
  const attempt = Number(value);
  return Number.isInteger(attempt) && attempt >= 1 ? attempt : 1;
}

export function stringProperty(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return String(value);
}

/** amqplib reports a channel closed by the broker either as an Error with `code` or as the raw close frame. */
export function isNotFound(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if ('code' in error && error.code === 404) return true;
  return (
    'fields' in error &&
    typeof error.fields === 'object' &&
    error.fields !== null &&
    'replyCode' in error.fields &&
    error.fields.replyCode === 404
  );
}
