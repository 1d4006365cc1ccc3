import type { EventEnvelope } from '@payrail/contracts';
import type { IsoDate } from '@payrail/time';
import type { BillingRun, RunItemOutcome, RunTrigger } from '../domain/billing-run';

/** `markRequested` (requested) or `markOutcome` (an outcome, and the run that counts it if only one). */
export interface RunItemMark {
  installmentId: number;
  attempt: number;
  requested?: boolean;
  outcome?: RunItemOutcome;
  runId?: string;
}

export interface ClaimRequest {
  runId: string;
  trigger: RunTrigger;
  asOf: IsoDate | null;
  merchantId: string | null;
  /** The last due day claimed, per time zone (`claimUpTo`): also the as-of day of each claimed attempt. */
  upTo: Record<string, IsoDate>;
  limit: number;
  startedAt: Date;
  /**
   * Claims made before this instant that still have no outcome are claimed again, for the same attempt
   * (the outcome was lost, or the charge-due never decided): subscriptions' idempotency makes the repeat
   * harmless.
   */
  reclaimClaimedBefore: Date;
}

export interface ClaimedInstallment {
  installmentId: number;
  subscriptionId: number;
  merchantId: string;
  attempt: number;
  dueOn: IsoDate;
  attemptOn: IsoDate;
  /** Reclaimed: the run whose claim of this attempt had no outcome in time (else null). */
  reclaimedFrom: string | null;
  /** When that claim was made (null when not reclaimed). */
  previouslyClaimedAt: Date | null;
}

/**
 * Billing runs and their items: the claims (HTTP and the ticker, each batch its own transaction) and the
 * marks of what became of each claimed attempt (in a consumer's transaction).
 */
export interface RunStore {
  /** The time zones of the subscriptions a run may claim (of one merchant, or of all). */
  timezones(merchantId: string | null): Promise<string[]>;
  /** Stores the run with its events (`billing-run.started`) in one transaction. */
  createRun(
    run: Omit<BillingRun, 'due' | 'requested' | 'succeeded' | 'failed' | 'skipped' | 'claimedAt'>,
    events?: EventEnvelope[],
  ): Promise<void>;
  /**
   * Claims up to `limit` due installments (FOR UPDATE SKIP LOCKED: replicas share), and the claims of other
   * runs older than `reclaimClaimedBefore` still without an outcome, records them as the run's (claimed at
   * `at`), and writes the `installment.charge-due` events that `toEvents` builds, all in one transaction.
   */
  claimBatch(
    request: ClaimRequest,
    at: Date,
    toEvents: (claimed: ClaimedInstallment[]) => EventEnvelope[],
  ): Promise<ClaimedInstallment[]>;
  /**
   * Whether an installment the request would claim is still there unclaimed: one another transaction held
   * (a projection update, another run's batch) when SKIP LOCKED passed it by. Reads without locking.
   */
  hasUnclaimed(request: ClaimRequest): Promise<boolean>;
  finishClaim(runId: string, at: Date): Promise<void>;
  run(runId: string): Promise<BillingRun | undefined>;
  runs(filter: { merchantId?: string; limit: number }): Promise<BillingRun[]>;
  /** Operator runs whose claim did not finish (their process stopped), started before `before`. */
  unfinishedRuns(before: Date): Promise<BillingRun[]>;
  /** A charge of this attempt was requested: the run that claimed it counts it. */
  markRequested(installmentId: number, attempt: number): Promise<void>;
  /**
   * The attempt ended: the given run counts it, else every run that claimed it and still waits for it (a
   * reclaimed attempt was claimed by more than one).
   */
  markOutcome(installmentId: number, attempt: number, outcome: RunItemOutcome, runId?: string): Promise<void>;
  /** As `markRequested` and `markOutcome` one after the other, in the order given, in one go. */
  markRunItems(marks: RunItemMark[]): Promise<void>;
}
