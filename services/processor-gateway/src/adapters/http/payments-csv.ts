import { PAYMENT_CSV_COLUMNS, type PaymentMovement } from '@payrail/contracts';
import type { WrittenMovement } from '../../domain/ledger';

/**
 * What a spreadsheet reads as the start of a formula (OWASP's list: `=`, `+`, `-`, `@`, tab, carriage
 * return). A cell of text from outside (a customer's name or e-mail, a link's label, a custom identifier, a
 * transfer's reference) beginning with one would run as a formula when the merchant opens the export.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A field that RFC 4180 quotes: one with a comma, a quote or a line break. */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field. Text that a spreadsheet would take for a formula gets a leading `'` (OWASP's advice for
 * CSV injection), so `=HYPERLINK(...)` is shown as the text it is; then RFC 4180: a field with a comma, a
 * quote or a line break is quoted, its quotes doubled. Numbers (our ids) are written as they are, and so is
 * every text cell we write ourselves (ids, kinds, amounts, times), none of which starts with those.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The header row: the columns by the names the JSON gives the fields. */
export const CSV_HEADER = `${PAYMENT_CSV_COLUMNS.join(',')}\r\n`;

/** A movement's row (as the API answers it), CRLF-terminated. */
export function csvLine(view: PaymentMovement): string {
  let line = '';
  for (let index = 0; index < PAYMENT_CSV_COLUMNS.length; index += 1) {
    if (index > 0) line += ',';
    line += csvField(view[PAYMENT_CSV_COLUMNS[index] as keyof PaymentMovement] as string | number | null);
  }
  return `${line}\r\n`;
}

/**
 * A movement's row from the store's text (`WrittenMovement`: the fields `id` to `declineCategory` as
 * `csvField` writes them, by PostgreSQL) and its two instants, CRLF-terminated: the same line as `csvLine`
 * of its view. A written instant (`2026-11-20T23:59:59-03:00`) is never guarded nor quoted.
 */
export function csvLineOf(movement: WrittenMovement, at: (instant: Date) => string): string {
  const settled = movement.settledAt ? at(movement.settledAt) : '';
  return `${movement.text},${at(movement.createdAt)},${settled}\r\n`;
}
