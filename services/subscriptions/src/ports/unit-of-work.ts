import type { UnitOfWork } from '@payrail/messaging';
import type { CardStore } from './card-store';
import type { ChargeAttemptStore } from './charge-attempt-store';
import type { EarlyPaymentStore } from './early-payment-store';
import type { EventOutbox } from './event-outbox';
import type { InstallmentStore } from './installment-store';
import type { SubscriptionStore } from './subscription-store';
import type { TransferSettlementStore } from './transfer-settlement-store';

/**
 * The service's stores, each bound to one executor: the database (the HTTP use cases) or a consumer's
 * transaction. What every use case is given.
 */
export interface SubscriptionStores {
  subscriptions: SubscriptionStore;
  installments: InstallmentStore;
  attempts: ChargeAttemptStore;
  cards: CardStore;
  earlyPayments: EarlyPaymentStore;
  transfers: TransferSettlementStore;
  outbox: EventOutbox;
  /**
   * Runs `work` with every store bound to one transaction: the stores' changes and the events given to the
   * outbox commit together, or not at all. Inside a transaction already (a consumer's), a savepoint.
   */
  transaction<T>(work: (stores: SubscriptionStores) => Promise<T>): Promise<T>;
}

/** How subscriptions' consumers run their use cases: libs/messaging's unit of work over its stores. */
export type SubscriptionUnitOfWork = UnitOfWork<SubscriptionStores>;
