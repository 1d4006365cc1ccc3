/** A service user (customer) of one merchant, found by e-mail regardless of case. */
export interface Customer {
  id: number;
  merchantId: string;
  email: string;
  firstName: string;
  lastName: string;
}

/**
 * E-mail addresses are matched case-insensitively (spec 2.3: the user "matching signedInUser.email"):
 * `Ana@Example.com` and `ana@example.com` are one user.
 */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Document numbers are written with or without separators (`4.123.456`, `4123456`, `80012345-6`) and in
 * either case: the same characters, ignoring spaces, dots, dashes and slashes, are the same document.
 */
export function documentKey(documentNumber: string): string {
  return documentNumber.replace(/[\s.\-/]/g, '').toUpperCase();
}

export function sameDocumentNumber(typed: string, expected: string): boolean {
  return documentKey(typed).length > 0 && documentKey(typed) === documentKey(expected);
}

/** Wrong document numbers a `noLoginRequired` link accepts per hour before it refuses every try. */
export const DOCUMENT_FAILURES_PER_LINK = 5;
export const DOCUMENT_FAILURE_WINDOW_MS = 60 * 60_000;
