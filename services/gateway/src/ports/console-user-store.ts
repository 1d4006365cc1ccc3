import type { ConsoleLanguage, MerchantRole } from '@payrail/contracts';

export interface ConsoleUserRecord {
  id: string;
  kind: 'merchant' | 'operator';
  merchantId: string | null;
  email: string;
  name: string | null;
  role: MerchantRole | null;
  language: ConsoleLanguage;
  passwordHash: string | null;
  totpSecretSealed: string | null;
  totpEnabledAt: Date | null;
  totpLastStep: number | null;
  failedLogins: number;
  lockedUntil: Date | null;
  lastLoginAt: Date | null;
  createdAt: Date;
  /** While invited: when the newest invitation link expires. */
  invitationExpiresAt: Date | null;
}

export interface NewConsoleUser {
  id: string;
  kind: 'merchant' | 'operator';
  merchantId: string | null;
  email: string;
  name: string | null;
  role: MerchantRole | null;
  createdAt: Date;
}

/** An invitation or a reset link, as stored: the hash of its token. */
export interface UserLinkToken {
  tokenHash: string;
  purpose: 'invitation' | 'reset';
  createdAt: Date;
  expiresAt: Date;
}

/** The console's people: users, their invitation and reset links, second factors and recovery codes. */
export interface ConsoleUserStore {
  find(userId: string): Promise<ConsoleUserRecord | undefined>;
  findByEmail(email: string): Promise<ConsoleUserRecord | undefined>;
  /** A merchant's users (`merchantId`), or the operator's accounts (`null`), oldest first. */
  list(merchantId: string | null): Promise<ConsoleUserRecord[]>;
  /**
   * The user, new, with its first invitation link; false when the e-mail already has an account (the
   * unique index decides between two at once).
   */
  create(user: NewConsoleUser, invitation: UserLinkToken): Promise<boolean>;
  /** Replaces every link of that purpose the user had by this one. */
  replaceLink(userId: string, link: UserLinkToken): Promise<void>;
  /** The user a link still valid at `now` is for, without taking it (the page that asks for a password). */
  peekLink(tokenHash: string, purpose: UserLinkToken['purpose'], now: Date): Promise<string | undefined>;
  /** Takes a link that is still valid at `now` (it works once): the user it was for, or undefined. */
  takeLink(tokenHash: string, purpose: UserLinkToken['purpose'], now: Date): Promise<string | undefined>;
  /** A user's role, unless that leaves its merchant without an owner (false then; undefined: no such user). */
  changeRole(merchantId: string, userId: string, role: MerchantRole): Promise<boolean | undefined>;
  /** Removes a user (sessions, links and codes with it), unless it is the merchant's last owner. */
  remove(merchantId: string, userId: string): Promise<boolean | undefined>;
  /** Removes a user who never accepted an invitation (one whose invitation could not be mailed). */
  removeInvited(userId: string): Promise<void>;
  /** A new password: failed logins and lock cleared, every session of the user ended. */
  setPassword(userId: string, passwordHash: string, at: Date): Promise<void>;
  setName(userId: string, name: string): Promise<void>;
  setLanguage(userId: string, language: ConsoleLanguage): Promise<void>;
  /**
   * One more failed login, counted in one statement (failures at once each count): the lock's end when this
   * one locks the account (`afterFailedLogin`), else null. A failure while locked is not counted.
   */
  recordFailure(userId: string, at: Date): Promise<Date | null>;
  recordLogin(userId: string, at: Date): Promise<void>;
  /** An enrolment begun (a secret not yet confirmed); a confirmed one is kept. */
  setPendingTotp(userId: string, secretSealed: string): Promise<void>;
  /** The enrolment confirmed by a code of `step`, with the hashes of the new recovery codes (old ones gone). */
  enableTotp(userId: string, step: number, at: Date, recoveryCodeHashes: string[]): Promise<void>;
  disableTotp(userId: string): Promise<void>;
  /**
   * Records a code's step as used, only if it is later than the last one (two requests with one code: one
   * wins). False when another request used this step or a later one first.
   */
  useTotpStep(userId: string, step: number): Promise<boolean>;
  /** Marks a recovery code used; false when it is not the user's or was used before. */
  useRecoveryCode(userId: string, codeHash: string, at: Date): Promise<boolean>;
  unusedRecoveryCodes(userId: string): Promise<number>;
}
