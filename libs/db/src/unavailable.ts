/**
 * Codes of a connection that could not be made or went away: the socket's own (refused, reset, broken
 * pipe, timed out, no route) and postgres.js's (closed, destroyed, ended, connect timeout).
 */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
]);

/**
 * Whether `error` itself (not what it wraps) is a connection that could not be made or went away, to the
 * database or the broker: nothing about the work that was under way.
 */
function isLostConnection(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && CONNECTION_CODES.has(code);
}

/**
 * SQLSTATEs of a server that cannot serve now, whatever the statement: a connection exception (class 08),
 * shutting down or starting (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now), out of
 * connections (53300).
 */
function serverUnavailable(sqlState: string): boolean {
  return sqlState.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(sqlState);
}

/**
 * Whether `error` says the database could not be reached or could not serve, and nothing about the work
 * itself: the same work succeeds once it is back (a failover, a restart, a cut connection). Looks through
 * `cause` (drizzle wraps the driver's error in its own).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    if (isLostConnection(current)) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && serverUnavailable(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
