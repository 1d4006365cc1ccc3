import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
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

export function jsonWithAmounts(c: Context, body: unknown, status: ContentfulStatusCode = 200): Response {
  return c.body(stringifyWithAmounts(body), status, { 'content-type': 'application/json; charset=UTF-8' });
}
