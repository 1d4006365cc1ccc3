import type { IsoDate } from '@payrail/time';

export const RUN_TRIGGERS = ['schedule', 'operator'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

export const RUN_ITEM_OUTCOMES = ['succeeded', 'failed', 'skipped'] as const;
export type RunItemOutcome = (typeof RUN_ITEM_OUTCOMES)[number];

export type RunStatus = 'claiming' | 'charging' | 'completed';

export interface RunCounts {
  due: number;
  requested: number;
  succeeded: number;
  failed: number;
  skipped: number;
}

export interface BillingRun extends RunCounts {
  id: string;
  trigger: RunTrigger;
  asOf: IsoDate | null;
  merchantId: string | null;
  startedAt: Date;
  claimedAt: Date | null;
}

/** A run is `completed` once it has claimed everything and every claimed attempt has an outcome. */
export function runStatus(run: Pick<BillingRun, 'claimedAt'> & RunCounts): RunStatus {
  if (!run.claimedAt) return 'claiming';
  return run.succeeded + run.failed + run.skipped >= run.due ? 'completed' : 'charging';
}
