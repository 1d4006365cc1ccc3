import type { DECLINE_CATEGORIES } from '@payrail/contracts';
import { addDays, type IsoDate } from '@payrail/time';

export interface DunningPolicy {
  /** Days after the first attempt on which a soft decline is retried, ascending. */
  retryOffsetDays: number[];
  /** Cancel the subscription after this many consecutive failed installments; null: never. */
  cancelAfterFailedInstallments: number | null;
}

export interface FailedAttempt {
  attempt: number;
  category: (typeof DECLINE_CATEGORIES)[number];
  /** The processor's word: false means never charge this card for this debt again. */
  retryable: boolean;
  /** The day of the first attempt (offsets count from it) and of this one, in the merchant's time zone. */
  firstAttemptOn: IsoDate;
  attemptOn: IsoDate;
  /** For `card-blocked`: the day the block ends, when the processor said. */
  blockedUntil?: IsoDate | null;
}

export type DunningDecision =
  | { kind: 'retry'; nextAttempt: number; on: IsoDate }
  | { kind: 'exhausted'; reason: 'hard-decline' | 'attempts-exhausted'; attempts: number };

/**
 * Dunning after a declined attempt. A hard decline is never retried. A soft decline (or the processor
 * being down) is retried on the policy's next day; a blocked card on the later of that day and the end of
 * its block (the next day when the block's end is unknown). A retry is never on the failed attempt's own
 * day or before it (a catch-up run may have made the attempt late). After the policy's last day: exhausted.
 */
export function afterFailedAttempt(policy: DunningPolicy, failed: FailedAttempt): DunningDecision {
  if (failed.category === 'hard' || (!failed.retryable && failed.category !== 'card-blocked')) {
    return { kind: 'exhausted', reason: 'hard-decline', attempts: failed.attempt };
  }
  const offset = policy.retryOffsetDays[failed.attempt - 1];
  if (offset === undefined)
    return { kind: 'exhausted', reason: 'attempts-exhausted', attempts: failed.attempt };
  let on = addDays(failed.firstAttemptOn, offset);
  const earliest =
    failed.category === 'card-blocked' && failed.blockedUntil && failed.blockedUntil > failed.attemptOn
      ? failed.blockedUntil
      : addDays(failed.attemptOn, 1);
  if (on < earliest) on = earliest;
  return { kind: 'retry', nextAttempt: failed.attempt + 1, on };
}
