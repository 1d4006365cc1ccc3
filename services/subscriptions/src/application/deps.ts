import type { Clock } from '@payrail/time';
import type { SubscriptionStore } from '../ports/subscription-store';

/** What every use case of the service is given (composed in `service.ts`, or per transaction by a consumer). */
export interface UseCaseDeps {
  store: SubscriptionStore;
  clock: Clock;
}
