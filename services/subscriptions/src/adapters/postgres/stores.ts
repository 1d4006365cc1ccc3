import type { Executor } from '@payrail/db';
import type { SubscriptionStores } from '../../ports/unit-of-work';
import { postgresCardStore } from './card-store';
import { postgresChargeAttemptStore } from './charge-attempt-store';
import { postgresEarlyPaymentStore } from './early-payment-store';
import { postgresEventOutbox } from './event-outbox';
import { postgresInstallmentStore } from './installment-store';
import { postgresSubscriptionStore } from './subscription-store';
import { postgresTransferSettlementStore } from './transfer-settlement-store';

/** Every store of the service bound to one executor: the database, or a consumer's transaction. */
export function subscriptionStores(executor: Executor): SubscriptionStores {
  return {
    subscriptions: postgresSubscriptionStore(executor),
    installments: postgresInstallmentStore(executor),
    attempts: postgresChargeAttemptStore(executor),
    cards: postgresCardStore(executor),
    earlyPayments: postgresEarlyPaymentStore(executor),
    transfers: postgresTransferSettlementStore(executor),
    outbox: postgresEventOutbox(executor),
    // Inside a transaction already (a consumer's inbox transaction), this is a savepoint.
    transaction: (work) => executor.transaction((tx) => work(subscriptionStores(tx))),
  };
}
