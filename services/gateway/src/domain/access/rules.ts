/**
 * The console's security rules (issue 28), each in one place: how long an invitation, a reset link and an
 * idle session last, when an account locks, what a password must be, how the second factor is checked.
 */

/** An invitation link works once, for 72 hours. */
export const INVITATION_VALID_MS = 72 * 60 * 60_000;
/** A password-reset link works once, for one hour. */
export const RESET_VALID_MS = 60 * 60_000;
/** A session unused for 30 minutes has ended. */
export const SESSION_IDLE_MS = 30 * 60_000;
/** A session's last use is written at most this often (the idle expiry is exact to this much). */
export const SESSION_TOUCH_MS = 60_000;
/** A session that never finished signing in (TOTP awaited, enrolment after an invitation) ends sooner. */
export const PARTIAL_SESSION_MS = 10 * 60_000;
/** 5 failed logins in a row lock the account for 15 minutes. */
export const LOCKOUT = { failures: 5, lockMs: 15 * 60_000 } as const;
/** At least 12 characters, and not among the 10,000 commonest passwords. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;
export const COMMON_PASSWORDS_CHECKED = 10_000;
/** RFC 6238 as authenticator apps use it: SHA-1, 6 digits, 30-second steps, one step of drift each way. */
export const TOTP = { digits: 6, periodSeconds: 30, driftSteps: 1 } as const;
/** Recovery codes given when the second factor is set up, each usable once. */
export const RECOVERY_CODE_COUNT = 10;

/** Why a new password is refused, in the console's own words (translated by the page); undefined: accepted. */
export type PasswordProblem = 'too-short' | 'too-long' | 'too-common' | 'mismatch';

export function passwordProblem(
  password: string,
  confirmation: string,
  isCommon: (password: string) => boolean,
): PasswordProblem | undefined {
  if ([...password].length < PASSWORD_MIN_LENGTH) return 'too-short';
  if (password.length > PASSWORD_MAX_LENGTH) return 'too-long';
  if (isCommon(password)) return 'too-common';
  if (password !== confirmation) return 'mismatch';
  return undefined;
}

/**
 * The account's state after one more failed login: 5 in a row lock it for 15 minutes (and the count starts
 * again). The store applies it in one statement, so that failures at once are each counted.
 */
export function afterFailedLogin(
  failedLogins: number,
  now: Date,
): { failedLogins: number; lockedUntil: Date | null } {
  const failures = failedLogins + 1;
  return failures >= LOCKOUT.failures
    ? { failedLogins: 0, lockedUntil: new Date(now.getTime() + LOCKOUT.lockMs) }
    : { failedLogins: failures, lockedUntil: null };
}

export function isLocked(lockedUntil: Date | null, now: Date): boolean {
  return lockedUntil !== null && lockedUntil > now;
}
