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

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The processors' card lock (design, processors 2): a card is blocked at the merchant for 30 days after 7
 * declines within 24 hours, or 35 within 30 days. processor-gateway counts the 24-hour rule itself and
 * blocks the card before the processor has to; processor-sandbox, standing in for the processors, keeps
 * both rules.
 */
export const CARD_LOCK = {
  declines: 7,
  windowMs: DAY_MS,
  blockMs: 30 * DAY_MS,
  /** The processors' slower rule, which only the sandbox plays. */
  monthly: { declines: 35, windowMs: 30 * DAY_MS },
} as const;

/**
 * Automatic debit's own cap, derived from the lock: never more attempts on one card in the lock's window
 * than one short of the declines that would block it (6 in any 24 hours), so our retries alone never lock
 * a customer's card.
 */
export const CARD_ATTEMPT_CAP = {
  attempts: CARD_LOCK.declines - 1,
  windowMs: CARD_LOCK.windowMs,
} as const;

/**
 * Both processors are Paraguayan: the wall-clock times they read and print (an order's last payment time,
 * when it was paid or reversed) and "the same day" of a rollback are Asunción's, whatever the merchant's or
 * the server's zone.
 */
export const PROCESSOR_TIME_ZONE = 'America/Asuncion';
