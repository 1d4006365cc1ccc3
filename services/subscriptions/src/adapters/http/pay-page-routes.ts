import type { MerchantContext, SubscriptionOfLink } from '@payrail/contracts';
import { requireMerchant } from '@payrail/http';
import { Hono } from 'hono';
import { getSubscriptionOfLink } from '../../application/get-subscription-of-link';
import { LinkHasNoSubscription } from '../../domain/errors';
import type { SubscriptionStores } from '../../ports/unit-of-work';

export interface PayPageRoutesDeps {
  stores: SubscriptionStores;
  internalSecret: string;
}

/**
 * Internal, mounted under `/internal` (the gateway never forwards it): the hosted pay page of links asks
 * for the subscription of a link as it is now, with the link's merchant context signed. 404 when the link
 * has no subscription at that merchant (not created yet, or another merchant's link).
 */
export function payPageRoutes(deps: PayPageRoutesDeps) {
  const internal = new Hono<{ Variables: { merchant: MerchantContext } }>();
  internal.use('/links/*', requireMerchant(deps.internalSecret));

  internal.get('/links/:linkId/subscription', async (c) => {
    const linkId = Number(c.req.param('linkId'));
    const found =
      Number.isSafeInteger(linkId) && linkId >= 1
        ? await getSubscriptionOfLink(deps, c.var.merchant.merchantId, linkId)
        : undefined;
    if (!found) throw new LinkHasNoSubscription(c.req.param('linkId'));
    const { subscription, installments } = found;
    const answer: SubscriptionOfLink = {
      subscriptionId: subscription.id,
      type: subscription.type,
      status: subscription.status,
      currency: subscription.currency,
      totalPeriods: subscription.totalPeriods,
      dayOfMonth: subscription.dayOfMonth,
      installmentAmount: subscription.installmentAmount,
      installments: installments.map((installment) => ({
        number: installment.number,
        paymentDate: installment.paymentDate,
        amount: installment.amount,
        status: installment.status,
        paidAt: installment.paidAt ? installment.paidAt.toISOString() : null,
      })),
    };
    return c.json(answer);
  });

  return internal;
}
