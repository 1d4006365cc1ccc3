import type { Executor } from '@payrail/db';
import type { LinksStores } from '../../ports/unit-of-work';
import { postgresCustomerEmailStore } from './customer-email-store';
import { postgresLinkManagementRepository } from './link-management-repository';
import { postgresLinkPaymentRepository } from './link-payment-repository';
import { merchantProfileReader } from './merchant-profiles';

/** links' stores bound to one executor: a consumer's transaction, or the database. */
export function linksStores(executor: Executor): LinksStores {
  return {
    payments: postgresLinkPaymentRepository(executor),
    management: postgresLinkManagementRepository(executor),
    emails: postgresCustomerEmailStore(executor),
    merchants: merchantProfileReader(executor),
  };
}
