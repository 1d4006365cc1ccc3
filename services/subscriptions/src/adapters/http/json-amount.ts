import { stringifyWithDecimals, type WithDecimalsWritten } from '@payrail/contracts';
import { jsonAnswer } from '@payrail/http';
import type { Context, TypedResponse } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * Spec 2.4 and 4.3 give installment amounts as "number, 2 decimals": a body whose amounts are
 * `JsonDecimal`s (libs/contracts), written as JSON numbers with their two decimals (`jsonAnswer` with
 * `stringifyWithDecimals`), typed as the JSON it writes, so that `route()` checks it against the operation's
 * schema (`amount: number`).
 */
export function jsonWithAmounts<T, S extends ContentfulStatusCode = 200>(
  c: Context,
  body: T,
  status: S = 200 as S,
): Response & TypedResponse<WithDecimalsWritten<T>, S, 'json'> {
  const answer = jsonAnswer(c, body, status, stringifyWithDecimals);
  // As these answers always said it (the gateway passes it on).
  answer.headers.set('content-type', 'application/json; charset=UTF-8');
  return answer as Response & TypedResponse<WithDecimalsWritten<T>, S, 'json'>;
}
