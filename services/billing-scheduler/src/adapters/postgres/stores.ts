import type { Executor } from '@payrail/db';
import type { BillingStores } from '../../ports/unit-of-work';
import { postgresDunningPolicyStore } from './dunning-policy-store';
import { postgresEventOutbox } from './event-outbox';
import { postgresInstallmentProjection } from './installment-projection';
import { postgresRunStore } from './run-store';
import { postgresSubscriptionProjection } from './subscription-projection';

/** Every store of the service bound to one executor: a consumer's transaction, or the database. */
export function billingStores(executor: Executor): BillingStores {
  return {
    subscriptions: postgresSubscriptionProjection(executor),
    installments: postgresInstallmentProjection(executor),
    runs: postgresRunStore(executor),
    policies: postgresDunningPolicyStore(executor),
    outbox: postgresEventOutbox(executor),
  };
}
