import { batchPrefetch, type Subscription } from '@payrail/messaging';
import { LEDGER_EVENTS, recordMovement } from '../../application/record-movements';
import type { GatewayUnitOfWork } from '../../ports/unit-of-work';

export const LEDGER_CONSUMER = 'processor-gateway.record-movements-on-money-events';
const LEDGER_BATCH = 50;

/**
 * The payments ledger: every charge's outcome, registered transfer and refund becomes its row, and links'
 * and subscriptions' events give the rows their context. In batches (a billing run's charges come by the
 * thousand), each batch one transaction with its inbox rows: a redelivered event changes nothing.
 */
export function recordMovementsOnMoneyEvents(unitOfWork: GatewayUnitOfWork): Subscription {
  return {
    consumer: LEDGER_CONSUMER,
    eventTypes: [...LEDGER_EVENTS],
    prefetch: batchPrefetch(LEDGER_BATCH),
    handler: unitOfWork.batchHandlerFor(
      LEDGER_CONSUMER,
      { maxBatch: LEDGER_BATCH },
      async (stores, items) => {
        for (const item of items) await item.run(() => recordMovement(stores, item.message));
      },
    ),
  };
}
