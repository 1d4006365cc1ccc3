import { isLostConnection } from '@payrail/db';
import type { Logger } from '@payrail/observability';

/**
 * Whether `reason` is a lost connection to the database or the broker, and nothing else (the codes are
 * libs/db's `isLostConnection`; an error that only wraps one is not).
 */
export const isConnectionLoss = isLostConnection;

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
