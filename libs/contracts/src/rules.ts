/**
 * Spec rules with one home. The API's request schemas, the event schemas and the services' domain all
 * read them from here, so a rule cannot be changed in one place and kept in another.
 */
import { AMOUNT_STRING_PATTERN, decimalsOf, fitsCurrency, parseAmount } from '@payrail/money';
import { z } from 'zod';

/** Spec 1.4: a STATIC subscription pays on a day that exists in every month. */
export const DAY_OF_MONTH = { min: 1, max: 28 } as const;

export function isDayOfMonth(day: number): boolean {
  return Number.isInteger(day) && day >= DAY_OF_MONTH.min && day <= DAY_OF_MONTH.max;
}

export const dayOfMonthSchema = z.number().int().min(DAY_OF_MONTH.min).max(DAY_OF_MONTH.max);

/** Spec section 8: beyond these a bulk request is refused with 413 (before its items are validated). */
export const BULK_LIMITS = { subscriptions: 200, updatesPerSubscription: 60 } as const;

/** A money amount on the wire and in events: a decimal string with exactly two places (`"150000.00"`). */
export const moneyString = z.string().regex(AMOUNT_STRING_PATTERN, 'must be a decimal string with 2 places');

/**
 * An amount has no more decimals than its currency (ISO 4217; spec 2.5): PYG amounts are whole guaraníes,
 * USD and EUR take two. The request schemas allow two decimals whatever the currency, which they do not
 * know; where the currency is known (the merchant's for a new link, the subscription's or the link's
 * afterwards) the services check each amount with this and refuse with 400 naming the field. Undefined
 * when the amount fits; else the refusal's message.
 */
export function amountCurrencyProblem(amount: number | string, currency: string): string | undefined {
  if (fitsCurrency(parseAmount(amount), currency)) return undefined;
  const decimals = decimalsOf(currency);
  return decimals === 0
    ? `must be a whole number: ${currency} has no decimals`
    : `must have at most ${decimals} decimals in ${currency}`;
}
