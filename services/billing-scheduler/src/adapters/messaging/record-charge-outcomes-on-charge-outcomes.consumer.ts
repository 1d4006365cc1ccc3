import { batchPrefetch, type Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { CHARGE_OUTCOME_EVENTS, recordChargeOutcomeBatch } from '../../application/record-charge-outcome';
import type { BillingUnitOfWork } from '../../ports/unit-of-work';
import { installmentOf } from './lock-order';

export const OUTCOMES_CONSUMER = 'billing-scheduler.record-charge-outcomes';
const OUTCOMES_BATCH = 50;

/** Requested, paid, declined or skipped: the runs' progress, and dunning after a decline. */
export function recordChargeOutcomesOnChargeOutcomes(
  unitOfWork: BillingUnitOfWork,
  clock: Clock,
): Subscription {
  return {
    consumer: OUTCOMES_CONSUMER,
    eventTypes: [...CHARGE_OUTCOME_EVENTS],
    prefetch: batchPrefetch(OUTCOMES_BATCH),
    // Each outcome is about one installment: a batch locks installment by installment, in id order.
    handler: unitOfWork.batchHandlerFor(
      OUTCOMES_CONSUMER,
      { maxBatch: OUTCOMES_BATCH, lockOrder: (message) => installmentOf(message.body) },
      (stores, messages) => recordChargeOutcomeBatch(stores, clock, messages),
    ),
  };
}
