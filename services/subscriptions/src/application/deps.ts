import type { Clock } from '@payrail/time';
import type { SubscriptionStores } from '../ports/unit-of-work';

/** What every use case of the service is given (composed in `service.ts`, or per transaction by a consumer). */
export interface UseCaseDeps {
  stores: SubscriptionStores;
  clock: Clock;
}
