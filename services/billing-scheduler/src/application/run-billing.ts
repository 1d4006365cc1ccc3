import { randomUUID } from 'node:crypto';
import { createEvent, type EventEnvelope } from '@payrail/contracts';
import type { Logger } from '@payrail/observability';
import type { Clock, IsoDate } from '@payrail/time';
import { claimUpTo, latestToday } from '../domain/as-of';
import type { BillingRun, RunTrigger } from '../domain/billing-run';
import { AsOfInFuture, BillingRunNotFound } from '../domain/errors';
import type { ClaimedInstallment, RunStore } from '../ports/run-store';

export interface RunDeps {
  runs: RunStore;
  clock: Clock;
  /** `SIMULATED_TIME=true`: a run as of a future day is how tests and demos move through months. */
  simulatedTime: boolean;
  /** Installments claimed per transaction. */
  batchSize: number;
  /** How long a run waits for due rows another transaction holds before leaving them to the next run. */
  lockWaitMs: number;
  /**
   * `BILLING_RECLAIM_AFTER_MS`: a claim with no outcome this long after it was made is claimed again by a
   * later run, and its `installment.charge-due` sent again for the same attempt.
   */
  reclaimAfterMs: number;
  logger: Pick<Logger, 'warn'>;
}

function chargeDueEvents(run: { id: string; asOf: IsoDate | null }, at: Date) {
  return (claimed: ClaimedInstallment[]): EventEnvelope[] =>
    claimed.map((row) =>
      createEvent(
        'installment.charge-due',
        {
          runId: run.id,
          merchantId: row.merchantId,
          subscriptionId: row.subscriptionId,
          installmentId: row.installmentId,
          attempt: row.attempt,
          dueOn: row.dueOn,
          asOf: row.attemptOn,
        },
        at,
      ),
    );
}

/** A reclaim means an outcome was lost somewhere (a dead letter, a charge-due never decided): said loudly. */
function logReclaimed(deps: RunDeps, runId: string, claimed: ClaimedInstallment[]): void {
  for (const row of claimed) {
    if (!row.previouslyClaimedAt) continue;
    deps.logger.warn(
      {
        runId,
        installmentId: row.installmentId,
        attempt: row.attempt,
        claimedBy: row.reclaimedFrom,
        claimedAt: row.previouslyClaimedAt.toISOString(),
      },
      'claimed installment had no outcome in time: reclaimed, charge-due sent again for the same attempt',
    );
  }
}

/**
 * Claims everything due for the run, batch after batch, until a batch comes back short. Several processes
 * may claim for the same run at once (SKIP LOCKED); each installment goes to one of them.
 */
export async function claimRun(
  deps: RunDeps,
  run: { id: string; trigger: RunTrigger; asOf: IsoDate | null; merchantId: string | null; startedAt: Date },
): Promise<number> {
  const now = deps.clock.now();
  const upTo: Record<string, IsoDate> = {};
  for (const zone of await deps.runs.timezones(run.merchantId)) {
    upTo[zone] = claimUpTo(run.asOf, zone, now, deps.simulatedTime);
  }
  let total = 0;
  if (Object.keys(upTo).length > 0) {
    const request = {
      runId: run.id,
      trigger: run.trigger,
      asOf: run.asOf,
      merchantId: run.merchantId,
      upTo,
      limit: deps.batchSize,
      startedAt: run.startedAt,
      reclaimClaimedBefore: new Date(now.getTime() - deps.reclaimAfterMs),
    };
    const claimAll = async () => {
      for (;;) {
        const at = deps.clock.now();
        const claimed = await deps.runs.claimBatch(request, at, chargeDueEvents(run, at));
        total += claimed.length;
        logReclaimed(deps, run.id, claimed);
        if (claimed.length < deps.batchSize) return;
      }
    };
    await claimAll();
    // SKIP LOCKED passed by rows another transaction held (a projection update, another run's batch):
    // once they are free, those still unclaimed are this run's too. Rows held longer go to the next run.
    for (let waited = 0; waited < deps.lockWaitMs && (await deps.runs.hasUnclaimed(request)); waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await claimAll();
    }
  }
  await deps.runs.finishClaim(run.id, deps.clock.now());
  return total;
}

/**
 * `claimRun` until it completes. A claim cut short (the database went away between two batches, or before
 * the run was marked claimed) is tried again after a pause that grows to `maxPauseMs`, so that an
 * operator's run is not left `claiming` until the process restarts. Repeating is safe: what a failed
 * attempt committed stays claimed for this run and the next attempt claims the rest. Once `stopping()`
 * says so, the error is thrown; the next process resumes the run (`resumeUnfinishedRuns`).
 */
export async function claimRunUntilDone(
  deps: RunDeps,
  run: Parameters<typeof claimRun>[1],
  options: { stopping: () => boolean; maxPauseMs?: number; sleep?: (ms: number) => Promise<void> },
): Promise<number> {
  const maxPauseMs = options.maxPauseMs ?? 5_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await claimRun(deps, run);
    } catch (error) {
      if (options.stopping()) throw error;
      deps.logger.warn(
        { runId: run.id, attempt, err: error },
        'billing run claim failed; claiming the rest of the run again',
      );
      await sleep(Math.min(maxPauseMs, 250 * 2 ** (attempt - 1)));
    }
  }
}

/** An operator's run as of a day: refused for a future day unless time is simulated. Claiming follows. */
export async function startOperatorRun(
  deps: RunDeps,
  request: { asOf: IsoDate; merchantId?: string },
): Promise<BillingRun> {
  const merchantId = request.merchantId?.toLowerCase() ?? null;
  const now = deps.clock.now();
  if (!deps.simulatedTime) {
    const today = latestToday(await deps.runs.timezones(merchantId), now);
    if (request.asOf > today) throw new AsOfInFuture(request.asOf, today);
  }
  const run = {
    id: randomUUID(),
    trigger: 'operator' as const,
    asOf: request.asOf,
    merchantId,
    startedAt: now,
  };
  await deps.runs.createRun(run, [
    createEvent(
      'billing-run.started',
      { runId: run.id, merchantId, asOf: request.asOf, startedAt: now.toISOString() },
      now,
    ),
  ]);
  return { ...run, claimedAt: null, due: 0, requested: 0, succeeded: 0, failed: 0, skipped: 0 };
}

/** The every-minute run: today in each merchant's time zone. A run that finds nothing is not kept. */
export async function runScheduled(deps: RunDeps): Promise<number> {
  return claimRun(deps, {
    id: randomUUID(),
    trigger: 'schedule',
    asOf: null,
    merchantId: null,
    startedAt: deps.clock.now(),
  });
}

/** Operator runs whose process stopped while claiming (started before `before`): claimed to the end. */
export async function resumeUnfinishedRuns(deps: RunDeps, before: Date): Promise<number> {
  let total = 0;
  for (const run of await deps.runs.unfinishedRuns(before)) total += await claimRun(deps, run);
  return total;
}

export async function getRun(deps: Pick<RunDeps, 'runs'>, runId: string): Promise<BillingRun> {
  const run = await deps.runs.run(runId.toLowerCase());
  if (!run) throw new BillingRunNotFound(runId);
  return run;
}

export async function listRuns(
  deps: Pick<RunDeps, 'runs'>,
  filter: { merchantId?: string; limit: number },
): Promise<BillingRun[]> {
  return deps.runs.runs({ merchantId: filter.merchantId?.toLowerCase(), limit: filter.limit });
}
