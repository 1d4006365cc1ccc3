import { randomBytes } from 'node:crypto';
import { AMOUNT_STRING_PATTERN } from '@payrail/money';

/**
 * The spec's "number, 2 decimals" (installment amounts in the v2 API, 2.4 and 4.3; the webhook envelope's
 * amounts, which receivers in the field parse as numbers): a JSON number written with its two decimals
 * (`150000.00`). `JSON.stringify` cannot write one (a float has no trailing zeros, and money never goes
 * through a float here), so an amount is a `JsonDecimal` holding its decimal string, and
 * `stringifyWithDecimals` writes that string into the JSON text as the number token.
 *
 * How: a `JsonDecimal` serialises as its decimal between two marks, and the writer then replaces each
 * marked string by the bare decimal. The mark is random per process (48 bits), so no text a user sent can
 * forge one; it is short because a bulk answer carries 12 000 amounts.
 */
const MARK = `~${randomBytes(6).toString('hex')}~`;
const MARKED = new RegExp(`"${MARK}(-?\\d+\\.\\d{2})${MARK}"`, 'g');

export class JsonDecimal {
  constructor(readonly decimal: string) {
    if (!AMOUNT_STRING_PATTERN.test(decimal)) throw new Error(`Not a two-decimal amount: ${decimal}`);
  }

  /** Only `stringifyWithDecimals` turns this back into the number: plain `JSON.stringify` leaves the marks. */
  toJSON(): string {
    return `${MARK}${this.decimal}${MARK}`;
  }
}

/** `JSON.stringify(value)`, with every `JsonDecimal` in it written as a JSON number with two decimals. */
export function stringifyWithDecimals(value: unknown): string {
  return JSON.stringify(value).replace(MARKED, '$1');
}

/**
 * The JSON `stringifyWithDecimals` writes for a value of type `T`: each `JsonDecimal` a number, the rest as
 * it is. A typed answer (`jsonAnswer` of libs/http) can say so, and `route()` then checks it against a schema
 * whose amounts are numbers.
 */
export type WithDecimalsWritten<T> = T extends JsonDecimal
  ? number
  : T extends ReadonlyArray<infer Item>
    ? WithDecimalsWritten<Item>[]
    : T extends object
      ? { [Key in keyof T]: WithDecimalsWritten<T[Key]> }
      : T;
