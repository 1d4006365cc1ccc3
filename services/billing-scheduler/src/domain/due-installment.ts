import type { INSTALLMENT_STATUSES } from '@payrail/contracts';

/**
 * An installment as billing-scheduler sees it:
 * - `scheduled`: waits for its day (`dueOn`) to be claimed by a run;
 * - `claimed`: a run asked subscriptions to charge attempt `attempt`; its outcome has not come back yet;
 * - `paid`, `cancelled`, `failed`: nothing more to charge (failed: dunning gave up).
 */
export const INSTALLMENT_STATES = ['scheduled', 'claimed', 'paid', 'cancelled', 'failed'] as const;
export type InstallmentState = (typeof INSTALLMENT_STATES)[number];

type ReportedStatus = (typeof INSTALLMENT_STATUSES)[number];

/**
 * The projection's state once subscriptions reports an installment's status (the authority on it).
 * `pending` keeps what the projection knows (an in-flight claim's outcome will come; a failed one stays
 * failed); `processing` is a charge in flight.
 */
export function stateAfterReport(
  reported: ReportedStatus,
  current: InstallmentState | undefined,
): InstallmentState {
  switch (reported) {
    case 'paid':
      return 'paid';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
      return 'failed';
    case 'processing':
      // Only our runs start charges, so a known row already is `claimed` (or settled since).
      return current ?? 'claimed';
    case 'pending':
      return current ?? 'scheduled';
  }
}
