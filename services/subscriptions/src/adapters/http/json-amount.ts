import { stringifyWithDecimals } from '@payrail/contracts';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * Spec 2.4 and 4.3 give installment amounts as "number, 2 decimals": a body whose amounts are
 * `JsonDecimal`s (libs/contracts), written as JSON numbers with their two decimals.
 */
export function jsonWithAmounts(c: Context, body: unknown, status: ContentfulStatusCode = 200): Response {
  return c.body(stringifyWithDecimals(body), status, { 'content-type': 'application/json; charset=UTF-8' });
}
