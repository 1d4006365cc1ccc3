import { batchPrefetch, type Subscription } from '@payrail/messaging';
import {
  PROJECTED_ROUTING_KEYS,
  projectInstallmentEventBatch,
} from '../../application/project-installment-events';
import type { BillingUnitOfWork } from '../../ports/unit-of-work';
import { numberInData } from './lock-order';

export const PROJECTION_CONSUMER = 'billing-scheduler.project-installments';
const PROJECTION_BATCH = 50;

/** subscriptions' events → the projection of chargeable installments (once per message, by the inbox). */
export function projectInstallmentsOnSubscriptionEvents(unitOfWork: BillingUnitOfWork): Subscription {
  return {
    consumer: PROJECTION_CONSUMER,
    eventTypes: [...PROJECTED_ROUTING_KEYS],
    // Bound to the whole type before: a queue declared then stops receiving what charges paid.
    retiredEventTypes: ['installment.paid'],
    prefetch: batchPrefetch(PROJECTION_BATCH),
    // Each event is about one subscription: a batch locks subscription by subscription, in id order.
    handler: unitOfWork.batchHandlerFor(
      PROJECTION_CONSUMER,
      { maxBatch: PROJECTION_BATCH, lockOrder: (message) => numberInData(message.body, 'subscriptionId') },
      (stores, messages) => projectInstallmentEventBatch(stores, messages),
    ),
  };
}
