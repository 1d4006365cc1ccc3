import { randomBytes } from 'node:crypto';
import { jsonAnswer } from '@payrail/http';
import type { Context, TypedResponse } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * Spec 2.4 and 4.3 give installment amounts as "number, 2 decimals". `JSON.stringify` cannot write
 * `150000.00` (a float has no trailing zeros, and money never goes through a float here), so amounts
 * are serialised as a marked string and the marks are then replaced by the raw decimal token, which
 * is a valid JSON number. The marker is random per process (48 bits), so no user-supplied text can forge
 * one; it is short because a bulk response carries 12 000 of them.
 */
const MARK = `~${randomBytes(6).toString('hex')}~`;
const MARKED = new RegExp(`"${MARK}(-?\\d+\\.\\d{2})${MARK}"`, 'g');

export class JsonAmount {
  constructor(readonly decimal: string) {
    if (!/^-?\d+\.\d{2}$/.test(decimal)) throw new Error(`Not a two-decimal amount: ${decimal}`);
  }

  toJSON(): string {
    return `${MARK}${this.decimal}${MARK}`;
  }
}

export function stringifyWithAmounts(body: unknown): string {
  return JSON.stringify(body).replace(MARKED, '$1');
}

/** The JSON a body is written as: each `JsonAmount` a number (with its two decimals), the rest as it is. */
export type WithAmountsWritten<T> = T extends JsonAmount
  ? number
  : T extends ReadonlyArray<infer Item>
    ? WithAmountsWritten<Item>[]
    : T extends object
      ? { [Key in keyof T]: WithAmountsWritten<T[Key]> }
      : T;

/**
 * A JSON answer whose amounts are numbers written with their two decimals (`jsonAnswer` with
 * `stringifyWithAmounts`), typed as the JSON it writes, so that `route()` checks it against the operation's
 * schema (`amount: number`).
 */
export function jsonWithAmounts<T, S extends ContentfulStatusCode = 200>(
  c: Context,
  body: T,
  status: S = 200 as S,
): Response & TypedResponse<WithAmountsWritten<T>, S, 'json'> {
  const answer = jsonAnswer(c, body, status, stringifyWithAmounts);
  // As these answers always said it (the gateway passes it on).
  answer.headers.set('content-type', 'application/json; charset=UTF-8');
  return answer as Response & TypedResponse<WithAmountsWritten<T>, S, 'json'>;
}
