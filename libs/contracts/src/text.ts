import { isCalendarDate } from '@payrail/time';
import { z } from 'zod';

/**
 * The longest value each text field may hold, wherever it travels: the API refuses longer values with
 * 400, events carry no longer ones, and the columns that keep them are sized to exactly this (a value the
 * subscriptions service could not store must be refused when the link is created, not dead-lettered later).
 * A field has one maximum wherever it appears (`customIdentifier` and `custom_identifier` in link creation,
 * v1 and v2 operations, bulk, bank notifications and their queries), and the OpenAPI document states it.
 * Identifiers are part of a b-tree index key (merchant, identifier, identifier 2): two 255-character values
 * stay under PostgreSQL's index-row limit even at four bytes per character.
 */
export const MAX_LENGTH = {
  label: 255,
  /** E-mail (at most 254 by RFC 5321) or telephone number. */
  handleValue: 255,
  handleLabel: 255,
  customIdentifier: 255,
  customIdentifier2: 255,
  documentNumber: 64,
  /** `redirectUrl` of a link (the column that keeps it is this long). */
  redirectUrl: 2048,
  invoiceNumber: 100,
  url: 2048,
  email: 254,
  personName: 100,
  merchantName: 200,
  currency: 3,
  timezone: 64,
  /** An amount written as a string: far more digits than `numeric(18, 2)` holds, so the amount rule decides. */
  amountText: 40,
  /** Bank notifications: the bank's name, its reference of the transfer, the merchant's note. */
  bankName: 100,
  bankReference: 100,
  transferNote: 500,
  /** Refunds: why the money is given back (the merchant's words). An outside refund's reference is a `bankReference`. */
  refundReason: 500,
} as const;

/** Lone UTF-16 surrogates cannot be encoded as UTF-8 (PostgreSQL and JSONB refuse them). */
function isWellFormedText(value: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(value);
}

/**
 * The rules every string of a request obeys: at most `max` characters, never a NUL character (PostgreSQL
 * cannot store one) and never a lone surrogate. Applied to formats (URL, e-mail) as well as free text.
 */
export function textRules<S extends z.ZodString | z.ZodStringFormat>(schema: S, max: number): S {
  return schema
    .max(max, { message: `must be at most ${max} characters` })
    .refine((value) => !value.includes('\u0000'), { message: 'must not contain NUL characters', abort: true })
    .refine(isWellFormedText, {
      message: 'must be valid Unicode text (no lone surrogates)',
      abort: true,
    }) as S;
}

/** A free-text field of the API; every such string of a request goes through this, so the rules have one home. */
export function text(max: number) {
  return textRules(z.string(), max);
}

/**
 * Dates before 1900 are mistakes in a payment schedule, and years below 100 are misread by date
 * arithmetic (and year 0 does not exist at all).
 */
export const MIN_CALENDAR_YEAR = 1900;

/** A real day (the calendar's own rule, libs/time) from `MIN_CALENDAR_YEAR` on. */
function isAcceptedDate(value: string): boolean {
  return isCalendarDate(value) && Number(value.slice(0, 4)) >= MIN_CALENDAR_YEAR;
}

/** `yyyy-MM-dd`, a day that exists (from 1900 on). */
export const calendarDate = z
  .string()
  .max(10, { message: 'must be a date in the form yyyy-MM-dd', abort: true })
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date in the form yyyy-MM-dd', abort: true })
  .refine(isAcceptedDate, `is not a calendar date (from ${MIN_CALENDAR_YEAR}-01-01 on)`)
  .meta({ format: 'date' });
