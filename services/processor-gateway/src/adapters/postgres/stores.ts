import type { Database, Executor } from '@payrail/db';
import type { GatewayStores, InTransaction } from '../../ports/unit-of-work';
import { postgresCardRegistrationStore } from './card-registration-store';
import { postgresChargeStore } from './charge-store';
import { postgresEventOutbox } from './event-outbox';
import { postgresLedgerStore } from './ledger-store';
import { postgresPaymentMethodStore } from './payment-method-store';
import { postgresProcessorCustomerStore } from './processor-customer-store';
import { postgresRefundStore } from './refund-store';

/** Every store of the service bound to one executor: a transaction, or the database. */
export function gatewayStores(executor: Executor): GatewayStores {
  return {
    charges: postgresChargeStore(executor),
    paymentMethods: postgresPaymentMethodStore(executor),
    customers: postgresProcessorCustomerStore(executor),
    registrations: postgresCardRegistrationStore(executor),
    refunds: postgresRefundStore(executor),
    ledger: postgresLedgerStore(executor),
    outbox: postgresEventOutbox(executor),
  };
}

/** One transaction of the service's database, its stores bound to it. */
export function postgresTransaction(db: Database): InTransaction {
  return (work) => db.transaction((tx) => work(gatewayStores(tx)));
}
