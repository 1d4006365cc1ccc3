import type { UnitOfWork } from '@payrail/messaging';
import type { DunningPolicyStore } from './dunning-policy-store';
import type { EventOutbox } from './event-outbox';
import type { InstallmentProjection } from './installment-projection';
import type { RunStore } from './run-store';
import type { SubscriptionProjection } from './subscription-projection';

/** The service's stores, each bound to one transaction: what a consumer's use case is given. */
export interface BillingStores {
  subscriptions: SubscriptionProjection;
  installments: InstallmentProjection;
  runs: RunStore;
  policies: DunningPolicyStore;
  outbox: EventOutbox;
}

/** How billing-scheduler's consumers run their use cases: libs/messaging's unit of work over its stores. */
export type BillingUnitOfWork = UnitOfWork<BillingStores>;

/** A message of a batch, and how to run work in its own context (the trace of the events it writes). */
export interface BatchedMessage {
  message: { type: string; body: string };
  run<T>(work: () => T): T;
}
