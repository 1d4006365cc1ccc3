/**
 * Pieces both bus adapters share, so that the in-process bus and the RabbitMQ bus apply the same
 * defaults, validation and header rules.
 */
import { isDatabaseUnavailable } from '@payrail/db';
import { safeErrorText } from '@payrail/observability';
import type { Subscription } from './bus';

/**
 * The logger the adapters accept. It is pino's `(obj, msg)` call shape, so a service passes its own
 * logger and the bus's lines carry the service's fields and trace ids.
 */
export interface BusLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

const ignore = (): void => undefined;

export const silentLogger: BusLogger = { info: ignore, warn: ignore, error: ignore };

export const SUBSCRIPTION_DEFAULTS = { maxAttempts: 5, retryDelayMs: 1000, prefetch: 10 } as const;

export type ResolvedSubscription = Required<Subscription>;

/** Applies the documented defaults and rejects settings that would make a consumer spin or stall. */
export function resolveSubscription(subscription: Subscription): ResolvedSubscription {
  const resolved: ResolvedSubscription = {
    consumer: subscription.consumer,
    eventTypes: [...new Set(subscription.eventTypes)],
    retiredEventTypes: [...new Set(subscription.retiredEventTypes ?? [])],
    handler: subscription.handler,
    maxAttempts: subscription.maxAttempts ?? SUBSCRIPTION_DEFAULTS.maxAttempts,
    retryDelayMs: subscription.retryDelayMs ?? SUBSCRIPTION_DEFAULTS.retryDelayMs,
    prefetch: subscription.prefetch ?? SUBSCRIPTION_DEFAULTS.prefetch,
  };
  if (resolved.consumer.trim() === '') throw new Error('A subscription needs a consumer name');
  if (resolved.eventTypes.length === 0) {
    throw new Error(`Subscription ${resolved.consumer} lists no event types`);
  }
  const stillTaken = resolved.retiredEventTypes.filter((type) => resolved.eventTypes.includes(type));
  if (stillTaken.length > 0) {
    throw new Error(`Subscription ${resolved.consumer} both takes and retires ${stillTaken.join(', ')}`);
  }
  if (!Number.isInteger(resolved.maxAttempts) || resolved.maxAttempts < 1) {
    throw new Error(`Subscription ${resolved.consumer}: maxAttempts must be an integer >= 1`);
  }
  if (!Number.isInteger(resolved.prefetch) || resolved.prefetch < 1) {
    throw new Error(`Subscription ${resolved.consumer}: prefetch must be an integer >= 1`);
  }
  if (!Number.isFinite(resolved.retryDelayMs) || resolved.retryDelayMs < 0) {
    throw new Error(`Subscription ${resolved.consumer}: retryDelayMs must be >= 0`);
  }
  return resolved;
}

/**
 * Whether a handler's failure spends one of the message's `maxAttempts`. A database that could not be
 * reached or could not serve (a failover, a restart, every connection cut) says nothing about the message:
 * it is retried after `retryDelayMs` as often as it takes, never dead-lettered for it. Anything else counts.
 */
export function countsAsAttempt(error: unknown): boolean {
  return !isDatabaseUnavailable(error);
}

/** Header carrying the attempt number of a retried message. */
export const ATTEMPT_HEADER = 'x-attempt';
/** Headers a dead letter carries: tries made and the last handler error. */
export const ATTEMPTS_HEADER = 'x-attempts';
export const ERROR_HEADER = 'x-error';

const RESERVED_HEADERS = new Set([
  ATTEMPT_HEADER,
  ATTEMPTS_HEADER,
  ERROR_HEADER,
  'x-death',
  'x-delivery-count',
]);

/**
 * Headers the bus or the broker own. They are kept out of what handlers see (so a retry looks like the
 * original message) and out of what publishers can set (so a publisher cannot fake an attempt number).
 */
export function isReservedHeader(name: string): boolean {
  return RESERVED_HEADERS.has(name) || name.startsWith('x-first-death-') || name.startsWith('x-last-death-');
}

export function applicationHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!isReservedHeader(name)) result[name] = value;
  }
  return result;
}

/** Safe to log and to keep in a dead-letter header: no query parameters or other values (see safeError). */
export function errorMessage(error: unknown): string {
  return safeErrorText(error);
}

/**
 * Waits until no handler of any consumer is running. A finishing handler can start the next queued
 * one, so it repeats until nothing is left.
 */
export async function drainInFlight(consumers: Iterable<{ inFlight: Set<Promise<void>> }>): Promise<void> {
  const all = [...consumers];
  for (;;) {
    const running = all.flatMap((consumer) => [...consumer.inFlight]);
    if (running.length === 0) return;
    await Promise.allSettled(running);
  }
}
