import type { CodeCheck } from '../domain/email-login';

export interface IssueEmailCode {
  merchantId: string;
  emailKey: string;
  codeHash: string;
  requesterHash: string;
  now: Date;
  expiresAt: Date;
  /** Requests made after this time are counted. */
  windowStart: Date;
  limits: { perEmail: number; perRequester: number };
}

export interface EmailLoginRepository {
  /**
   * Stores a new code for the e-mail, closing its older live codes, unless the e-mail or the requester
   * already reached their limit since `windowStart` (then nothing is stored and the oldest counted
   * request's time says when one more is allowed). Serialised per e-mail: concurrent requests cannot
   * pass the limit together.
   */
  issue(request: IssueEmailCode): Promise<{ issued: true } | { issued: false; oldestCounted: Date }>;
  /**
   * Checks a typed code against the e-mail's newest live code, in one transaction: a match closes it and
   * finds or creates the customer (by e-mail, at that merchant); a mismatch uses up one try.
   */
  check(request: {
    merchantId: string;
    email: string;
    emailKey: string;
    now: Date;
    maxTries: number;
    matches(codeHash: string): boolean;
  }): Promise<CodeCheck>;
}
