/**
 * The pay page's own login: the customer gives an e-mail address and types the 6-digit code mailed to it.
 * The rules, by name.
 */

/** A code is valid this long after it was sent. */
export const EMAIL_CODE_LIFETIME_MS = 10 * 60_000;
/** Wrong codes typed before the code dies (the customer then asks for a new one). */
export const EMAIL_CODE_MAX_TRIES = 5;
/** The window the code-request limits count in. */
export const CODE_REQUEST_WINDOW_MS = 60 * 60_000;
/**
 * Codes sent per hour to one e-mail address at one merchant, and asked for from one IP address (any
 * e-mail, any merchant). With 5 tries per code, a guesser gets at most 25 tries per address and hour
 * out of a million codes.
 */
export const CODE_REQUESTS_PER_EMAIL = 5;
export const CODE_REQUESTS_PER_REQUESTER = 20;

/** Loose on purpose (the mail server is the judge): something@something.something, no spaces. */
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isPlausibleEmail(email: string): boolean {
  return email.length <= 254 && EMAIL_SHAPE.test(email);
}

export function isSixDigitCode(code: string): boolean {
  return /^\d{6}$/.test(code);
}

/** Why a code request was not sent. */
export type CodeRequestRefusal =
  | { refused: 'invalid-email' }
  | { refused: 'too-many-requests'; retryAfterSeconds: number }
  | { refused: 'mail-unavailable' };

/** What typing a code gives. */
export type CodeCheck =
  | { ok: true; customerId: number }
  | { ok: false; reason: 'wrong-code'; triesLeft: number }
  /** No live code: never sent, expired, already used, replaced by a newer one, or out of tries. */
  | { ok: false; reason: 'no-live-code' };
