import type { EventData } from '@payrail/contracts';
import { withCard, withoutCard } from '../domain/subscription';
import type { UseCaseDeps } from './deps';

/**
 * `payment-method.removed`: the subscriptions charged to that card have none any more; their charges are
 * skipped (`no-payment-method`) until a replacement. Returns how many subscriptions lost their card.
 */
export async function forgetRemovedCard(
  deps: UseCaseDeps,
  removed: EventData<'payment-method.removed'>,
): Promise<number> {
  return deps.stores.transaction(async (stores) => {
    const charged = await stores.subscriptions.subscriptionsWithCard(
      removed.merchantId,
      removed.paymentMethodId,
    );
    for (const subscription of charged)
      await stores.subscriptions.saveSubscription(withoutCard(subscription));
    return charged.length;
  });
}

/**
 * `payment-method.saved`: a card the customer saves at the merchant replaces a removed one, on that
 * customer's active or past-due subscriptions left without a card. Subscriptions that still have a card
 * keep it, and a subscription whose first payment was a transfer (no customer known) is untouched.
 */
export async function adoptReplacementCard(
  deps: UseCaseDeps,
  saved: EventData<'payment-method.saved'>,
): Promise<number> {
  return deps.stores.transaction(async (stores) => {
    const cardless = await stores.subscriptions.cardlessSubscriptionsOfCustomer(
      saved.merchantId,
      saved.customerId,
    );
    for (const subscription of cardless) {
      await stores.subscriptions.saveSubscription(
        withCard(subscription, {
          paymentMethodId: saved.paymentMethodId,
          processor: saved.processor,
          customerId: saved.customerId,
        }),
      );
    }
    return cardless.length;
  });
}
