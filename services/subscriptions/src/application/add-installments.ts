import { localDate } from '@payrail/time';
import { assertAmountsFitCurrency } from '../domain/amounts';
import type { SubscriptionCriteria } from '../domain/identifiers';
import type { Installment } from '../domain/installment';
import { type InstallmentToAdd, planAdditions } from '../domain/operations';
import { installmentsScheduled } from './events';
import type { UseCaseDeps } from './deps';
import { findSubscriptionForUpdate } from './find-subscription';

export interface AddInstallmentsInput {
  criteria: SubscriptionCriteria;
  installments: InstallmentToAdd[];
}

/** v2 `POST /api/subscriptions/installments`: new installments for an active subscription. */
export async function addInstallments(
  deps: UseCaseDeps,
  merchantId: string,
  input: AddInstallmentsInput,
): Promise<Installment[]> {
  return deps.stores.transaction(async (stores) => {
    const at = deps.clock.now();
    const subscription = await findSubscriptionForUpdate(stores, merchantId, input.criteria);
    assertAmountsFitCurrency(
      subscription.currency,
      input.installments.map(({ amount }, index) => ({ amount, path: ['installments', index, 'amount'] })),
    );
    const existing = await stores.installments.installmentsOf(subscription.id);
    const planned = planAdditions(
      subscription,
      existing,
      input.installments,
      localDate(at, subscription.timezone),
    );
    const added = await stores.installments.insertInstallments(subscription.id, planned, at);
    if (subscription.type === 'STATIC' && subscription.totalPeriods !== null) {
      // A fixed STATIC plan counts its periods: the added ones are periods too. An open-ended one has no
      // count: the added installments take numbers, and its plan's months go on as they were.
      await stores.subscriptions.saveSubscription({
        ...subscription,
        totalPeriods: (subscription.totalPeriods ?? 0) + added.length,
      });
    }
    await stores.outbox.enqueue(installmentsScheduled(subscription, added, at));
    return added;
  });
}
