import { createHmac, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { HttpProblem } from './problem';

export const OPERATOR_SIGNATURE_HEADER = 'x-operator-signature';
/** A signature older than this is refused (replay window), as for the merchant context. */
const MAX_AGE_MS = 5 * 60 * 1000;

function sign(secret: string, timestamp: number, method: string, path: string): string {
  return createHmac('sha256', secret)
    .update(`operator.${timestamp}.${method.toUpperCase()}.${path}`)
    .digest('base64url');
}

/**
 * The gateway checked the operator's bearer token; this header tells the service behind `/admin/*` so,
 * bound to the method and path, so an internal port reached directly cannot be driven as an operator.
 */
export function signOperatorContext(
  method: string,
  path: string,
  secret: string,
  now = Date.now(),
): Record<string, string> {
  return { [OPERATOR_SIGNATURE_HEADER]: `t=${now},v1=${sign(secret, now, method, path)}` };
}

export function verifyOperatorContext(
  signature: string | undefined,
  method: string,
  path: string,
  secret: string,
  now = Date.now(),
): boolean {
  const match = signature ? /^t=(\d+),v1=([\w-]+)$/.exec(signature) : null;
  if (!match) return false;
  const timestamp = Number(match[1]);
  if (!Number.isFinite(timestamp) || Math.abs(now - timestamp) > MAX_AGE_MS) return false;
  const expected = Buffer.from(sign(secret, timestamp, method, path));
  const given = Buffer.from(match[2] ?? '');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Middleware for a service's operator routes: 401 unless the gateway signed this method and path. */
export function requireOperator(secret: string): MiddlewareHandler {
  return async (c, next) => {
    if (!verifyOperatorContext(c.req.header(OPERATOR_SIGNATURE_HEADER), c.req.method, c.req.path, secret)) {
      throw new HttpProblem(401, 'UNAUTHORIZED', 'Missing or invalid operator context');
    }
    await next();
  };
}
