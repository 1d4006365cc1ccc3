import type { Subscription } from '@payrail/messaging';
import { PROJECTED_EVENTS, projectInstallmentEvent } from '../../application/project-installment-events';
import type { ConsumerUnitOfWork } from '../../ports/unit-of-work';

export const PROJECTION_CONSUMER = 'billing-scheduler.project-installments';

/** subscriptions' events → the projection of chargeable installments (once per message, by the inbox). */
export function projectInstallments(unitOfWork: ConsumerUnitOfWork): Subscription {
  return {
    consumer: PROJECTION_CONSUMER,
    eventTypes: [...PROJECTED_EVENTS],
    handler: unitOfWork.handlerFor(PROJECTION_CONSUMER, (store, message) =>
      projectInstallmentEvent(store, message),
    ),
  };
}
