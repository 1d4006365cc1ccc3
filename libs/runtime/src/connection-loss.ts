import type { Logger } from '@payrail/observability';

/**
 * Codes of a connection that went away under an operation: the socket's own (reset, broken pipe, timed
 * out, refused) and postgres.js's (closed, destroyed).
 */
const CONNECTION_LOSS_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNREFUSED',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
]);

/** Whether `reason` is a lost connection to the database or the broker, and nothing else. */
export function isConnectionLoss(reason: unknown): boolean {
  if (!(reason instanceof Error)) return false;
  const code = (reason as NodeJS.ErrnoException).code;
  return typeof code === 'string' && CONNECTION_LOSS_CODES.has(code);
}

/**
 * What a service does with a promise rejected with nobody awaiting it. A lost connection can surface that
 * way from inside a driver, after the operation that used the connection has already failed on its own
 * (the chaos e2e saw processor-gateway end on a raw `read ECONNRESET` when every database connection was
 * cut; CHAOS_SEED=2576462034 reproduces it on earlier code too). Nothing waits for such a promise, every
 * write is transactional and every message is redelivered, so the service logs it and goes on rather
 * than turning a database blip into a restart. Any other reason is a bug: it ends the process, as Node
 * would have. Installed once the service is ready: a start that fails still ends the process.
 */
export function onUnobservedRejection(logger: Pick<Logger, 'error'>): (reason: unknown) => void {
  return (reason) => {
    if (!isConnectionLoss(reason)) throw reason;
    logger.error(
      { err: reason },
      'a connection was lost under an operation nobody awaited; the service goes on (its work is redone by redelivery)',
    );
  };
}
