import type { CardRegistrationStore } from './card-registration-store';
import type { ChargeStore } from './charge-store';
import type { UnitOfWork } from '@payrail/messaging';
import type { EventOutbox } from './event-outbox';
import type { LedgerStore } from './ledger-store';
import type { PaymentMethodStore } from './payment-method-store';
import type { ProcessorCustomerStore } from './processor-customer-store';
import type { RefundStore } from './refund-store';

/** The service's stores, bound to the database or to one transaction. */
export interface GatewayStores {
  charges: ChargeStore;
  paymentMethods: PaymentMethodStore;
  customers: ProcessorCustomerStore;
  registrations: CardRegistrationStore;
  refunds: RefundStore;
  ledger: LedgerStore;
  outbox: EventOutbox;
}

/**
 * Runs `work` in one transaction with the stores bound to it: what commits together. processor-gateway's
 * only consumer (`charge.requested`) does not run in libs/messaging's unit of work: a charge is committed
 * `pending` before the processor is called and the call holds no transaction open, so its steps are
 * transactions of their own, and the idempotency key, not an inbox row, makes a redelivery a no-op.
 */
export type InTransaction = <T>(work: (stores: GatewayStores) => Promise<T>) => Promise<T>;

/**
 * How the ledger's consumer runs (libs/messaging's unit of work): its inbox row and the ledger's writes
 * commit together, so a redelivered event changes nothing.
 */
export type GatewayUnitOfWork = UnitOfWork<GatewayStores>;
