import type { Clock } from '@payrail/time';
import type { MerchantStore } from '../ports/merchant-store';

/** What the operator's use cases (merchants and their API tokens) are given. */
export interface MerchantAdminDeps {
  merchants: MerchantStore;
  clock: Clock;
}
