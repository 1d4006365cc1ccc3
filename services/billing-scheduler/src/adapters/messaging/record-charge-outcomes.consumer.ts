import type { Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { CHARGE_OUTCOME_EVENTS, recordChargeOutcome } from '../../application/record-charge-outcome';
import type { ConsumerUnitOfWork } from '../../ports/unit-of-work';

export const OUTCOMES_CONSUMER = 'billing-scheduler.record-charge-outcomes';

/** Requested, paid, declined or skipped: the runs' progress, and dunning after a decline. */
export function recordChargeOutcomes(unitOfWork: ConsumerUnitOfWork, clock: Clock): Subscription {
  return {
    consumer: OUTCOMES_CONSUMER,
    eventTypes: [...CHARGE_OUTCOME_EVENTS],
    prefetch: 50,
    handler: unitOfWork.handlerFor(OUTCOMES_CONSUMER, (store, message) =>
      recordChargeOutcome(store, clock, message),
    ),
  };
}
