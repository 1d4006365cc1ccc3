import type { MerchantContext } from '@payrail/contracts';
import { HttpProblem, problems, requestHeader } from '@payrail/http';
import type { MiddlewareHandler } from 'hono';
import {
  beginIdempotentRequest,
  type IdempotencyDeps,
  requestFingerprint,
} from '../../application/idempotency';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const GUARDED_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** Printable ASCII, as in the IETF draft's examples (UUIDs, ULIDs, opaque strings). */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

function pathAndQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/**
 * `Idempotency-Key` on every POST, PUT and PATCH of the merchant API (design 4). Runs after the
 * merchant is authenticated: keys are per merchant. Without the header the request runs as usual.
 */
export function idempotency(
  deps: IdempotencyDeps,
): MiddlewareHandler<{ Variables: { merchant: MerchantContext } }> {
  return async (c, next) => {
    const key = requestHeader(c, 'idempotency-key');
    if (!GUARDED_METHODS.has(c.req.method) || key === undefined) return next();
    if (!VALID_KEY.test(key)) {
      const message = 'must be 1 to 255 printable ASCII characters';
      throw problems.badRequest(`${IDEMPOTENCY_HEADER} ${message}`, [{ path: IDEMPOTENCY_HEADER, message }]);
    }
    const body = new Uint8Array(await c.req.arrayBuffer());
    const outcome = await beginIdempotentRequest(deps, {
      merchantId: c.var.merchant.merchantId,
      key,
      // The query string is part of the request: the same key on another query is another request.
      fingerprint: requestFingerprint(c.req.method, pathAndQuery(c.req.url), body),
    });

    if (outcome.kind === 'replay') {
      const headers = new Headers({ 'idempotent-replayed': 'true' });
      if (outcome.response.contentType) headers.set('content-type', outcome.response.contentType);
      return new Response(outcome.response.body, { status: outcome.response.status, headers });
    }
    if (outcome.kind === 'key-reused') {
      const message = 'was already used with another request';
      throw problems.unprocessable('IDEMPOTENCY_KEY_REUSED', `This ${IDEMPOTENCY_HEADER} ${message}`, [
        { path: IDEMPOTENCY_HEADER, message },
      ]);
    }
    if (outcome.kind === 'unavailable') {
      throw problems.unprocessable(
        'IDEMPOTENCY_RESPONSE_UNAVAILABLE',
        `The request with this ${IDEMPOTENCY_HEADER} was already processed, but its response can no longer be replayed; read the resource's state instead`,
        [{ path: IDEMPOTENCY_HEADER, message: 'already used; its response is unavailable' }],
      );
    }
    if (outcome.kind === 'in-progress') {
      throw new HttpProblem(
        409,
        'IDEMPOTENCY_IN_PROGRESS',
        `A request with this ${IDEMPOTENCY_HEADER} is still being processed; retry later`,
      );
    }

    try {
      await next();
    } catch (error) {
      await outcome.abandon();
      throw error;
    }
    // A 5xx is not an answer to the request (the service may not have run it): free the key for a retry.
    if (c.error || c.res.status >= 500) {
      await outcome.abandon();
      return;
    }
    const response = c.res;
    const text = await response.text();
    await outcome.finish({
      status: response.status,
      contentType: response.headers.get('content-type'),
      body: text,
    });
    c.res = new Response(text, { status: response.status, headers: response.headers });
  };
}
