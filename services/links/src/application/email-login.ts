import { randomInt } from 'node:crypto';
import type { Clock } from '@payrail/time';
import { emailKey } from '../domain/customer';
import {
  CODE_REQUEST_WINDOW_MS,
  CODE_REQUESTS_PER_EMAIL,
  CODE_REQUESTS_PER_REQUESTER,
  type CodeCheck,
  type CodeRequestRefusal,
  EMAIL_CODE_LIFETIME_MS,
  EMAIL_CODE_MAX_TRIES,
  isPlausibleEmail,
  isSixDigitCode,
} from '../domain/email-login';
import type { EmailLoginRepository } from '../ports/email-login-repository';
import type { Mailer, MailMessage } from '../ports/mailer';
import { hashEmailCode, hashRequester, sameDigest } from './login-codes';

export interface EmailLoginDeps {
  emailLogins: EmailLoginRepository;
  mailer: Mailer;
  clock: Clock;
  /** Keys the stored hashes (the service's internal secret). */
  secret: string;
  /** Six random digits; tests may fix them. */
  newCode?: () => string;
}

const sixRandomDigits = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** The mail a customer gets, in the page's language. */
export interface CodeMailText {
  subject(merchantName: string): string;
  text(code: string, merchantName: string, minutes: number): string;
}

/**
 * Sends a 6-digit code to the e-mail for logging in at the merchant, within the request limits. The code
 * is stored (hashed) before it is mailed; a mail that fails leaves a code nobody knows, which expires.
 */
export async function requestEmailCode(
  deps: EmailLoginDeps,
  request: {
    merchantId: string;
    merchantName: string;
    email: string;
    requesterAddress: string;
    wording: CodeMailText;
  },
): Promise<{ sent: true } | CodeRequestRefusal> {
  const email = request.email.trim();
  if (!isPlausibleEmail(email)) return { refused: 'invalid-email' };
  const key = emailKey(email);
  const code = (deps.newCode ?? sixRandomDigits)();
  const now = deps.clock.now();
  const outcome = await deps.emailLogins.issue({
    merchantId: request.merchantId,
    emailKey: key,
    codeHash: hashEmailCode(deps.secret, request.merchantId, key, code),
    requesterHash: hashRequester(deps.secret, request.requesterAddress),
    now,
    expiresAt: new Date(now.getTime() + EMAIL_CODE_LIFETIME_MS),
    windowStart: new Date(now.getTime() - CODE_REQUEST_WINDOW_MS),
    limits: { perEmail: CODE_REQUESTS_PER_EMAIL, perRequester: CODE_REQUESTS_PER_REQUESTER },
  });
  if (!outcome.issued) {
    const allowedAt = outcome.oldestCounted.getTime() + CODE_REQUEST_WINDOW_MS;
    return {
      refused: 'too-many-requests',
      retryAfterSeconds: Math.max(1, Math.ceil((allowedAt - now.getTime()) / 1000)),
    };
  }
  const message: MailMessage = {
    to: email,
    subject: request.wording.subject(request.merchantName),
    text: request.wording.text(code, request.merchantName, EMAIL_CODE_LIFETIME_MS / 60_000),
  };
  try {
    await deps.mailer.send(message);
  } catch {
    return { refused: 'mail-unavailable' };
  }
  return { sent: true };
}

/** Checks the typed code; on success the customer (found or created by that e-mail) is returned. */
export async function checkEmailCode(
  deps: Pick<EmailLoginDeps, 'emailLogins' | 'clock' | 'secret'>,
  request: { merchantId: string; email: string; code: string },
): Promise<CodeCheck> {
  const email = request.email.trim();
  const code = request.code.replace(/\s/g, '');
  if (!isPlausibleEmail(email)) return { ok: false, reason: 'no-live-code' };
  const key = emailKey(email);
  // Anything but 6 digits still uses up a try: the limit counts what was typed, not what was well-formed.
  const typed = hashEmailCode(deps.secret, request.merchantId, key, isSixDigitCode(code) ? code : `x${code}`);
  return deps.emailLogins.check({
    merchantId: request.merchantId,
    email,
    emailKey: key,
    now: deps.clock.now(),
    maxTries: EMAIL_CODE_MAX_TRIES,
    matches: (stored) => sameDigest(stored, typed),
  });
}
