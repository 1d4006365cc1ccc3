import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import { changeSubscriptionByIdentifiers } from './apply-changes';
import type { UseCaseDeps } from './deps';
import { planCancelAll } from '../domain/operations';
import { cancelSubscription as cancelled } from '../domain/subscription';

/** v1 `POST /api/subscriptions/cancel-all`: the subscription is cancelled with all its pending installments. */
export async function cancelSubscription(
  deps: UseCaseDeps,
  merchantId: string,
  criteria: SubscriptionCriteria,
): Promise<Installment[]> {
  return changeSubscriptionByIdentifiers(deps, merchantId, criteria, (subscription, installments, at) => ({
    changed: planCancelAll(installments),
    nextSubscription: cancelled(subscription, at),
  }));
}
