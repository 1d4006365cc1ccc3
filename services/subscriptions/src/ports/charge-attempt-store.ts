import type { AttemptOutcome, AttemptStatus, ChargeAttempt } from '../domain/debit';

/**
 * Automatic debit's record of each installment: its charge attempts (attempt n, key, card, amount, outcome;
 * the audit) and the day of its next attempt after a decline.
 */
export interface ChargeAttemptStore {
  recordAttempt(attempt: ChargeAttempt): Promise<void>;
  /** Batch: `recordAttempt` in one statement. */
  recordAttempts(attempts: ChargeAttempt[]): Promise<void>;
  findAttempt(installmentId: number, attempt: number): Promise<ChargeAttempt | undefined>;
  /** The highest attempt number requested for the installment (0 when none). */
  latestAttemptNumber(installmentId: number): Promise<number>;
  /** Batch: the attempt numbers already requested of each installment (absent when none). */
  attemptNumbersOf(installmentIds: number[]): Promise<Map<number, Set<number>>>;
  /** Batch: the status of each asked attempt that exists, by `installmentChargeKey(installmentId, attempt)` of libs/contracts (`installment:<id>:attempt:<n>`). */
  attemptStatuses(
    attempts: Array<{ installmentId: number; attempt: number }>,
  ): Promise<Map<string, AttemptStatus>>;
  /** Settles a `requested` attempt; false when it was settled already (nothing changed). */
  settleAttempt(installmentId: number, attempt: number, outcome: AttemptOutcome): Promise<boolean>;
  /**
   * Batch: `settleAttempt` in one statement; each attempt must still be `requested`, else
   * `ConcurrentModification` and nothing is settled.
   */
  settleAttempts(
    settlements: Array<{ installmentId: number; attempt: number; outcome: AttemptOutcome }>,
  ): Promise<void>;
  /**
   * Dunning scheduled the next attempt: on the installment (the v2 list shows it) and on the failed attempt
   * (the audit shows it). `null` clears the installment's (paid, failed, given up).
   */
  setNextAttempt(
    installmentId: number,
    failedAttempt: number | null,
    nextAttemptOn: string | null,
  ): Promise<void>;
  /** The installment's attempts, first first. */
  attemptsOf(installmentId: number): Promise<ChargeAttempt[]>;
  /** For lists: each installment's last attempt and next attempt day. */
  attemptSummaries(
    installmentIds: number[],
  ): Promise<Map<number, { lastAttempt: ChargeAttempt | null; nextAttemptOn: string | null }>>;
}
