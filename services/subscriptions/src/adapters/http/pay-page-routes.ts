import {
  type CustomerSubscriptionView,
  customerSubscriptionCardBody,
  type MerchantContext,
  type SubscriptionOfLink,
} from '@payrail/contracts';
import { jsonBody, requireMerchant } from '@payrail/http';
import type { Clock } from '@payrail/time';
import { Hono } from 'hono';
import {
  type CustomerSubscription,
  cancelCustomerSubscription,
  changeSubscriptionCard,
  listCustomerSubscriptions,
} from '../../application/customer-subscriptions';
import { getSubscriptionOfLink } from '../../application/get-subscription-of-link';
import { LinkHasNoSubscription, SubscriptionNotFound } from '../../domain/errors';
import type { SubscriptionStores } from '../../ports/unit-of-work';

export interface PayPageRoutesDeps {
  stores: SubscriptionStores;
  clock: Clock;
  internalSecret: string;
}

/** A positive id of the path, else undefined. */
function idOf(raw: string | undefined): number | undefined {
  const value = /^\d{1,15}$/.test(raw ?? '') ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(value) && value >= 1 ? value : undefined;
}

function customerView({ subscription, installments }: CustomerSubscription): CustomerSubscriptionView {
  return {
    subscriptionId: subscription.id,
    linkId: subscription.linkId,
    type: subscription.type,
    status: subscription.status,
    currency: subscription.currency,
    totalPeriods: subscription.totalPeriods,
    dayOfMonth: subscription.dayOfMonth,
    installmentAmount: subscription.installmentAmount,
    paymentMethodId: subscription.paymentMethodId,
    processor: subscription.processor,
    installments: installments.map((installment) => ({
      installmentId: installment.id,
      number: installment.number,
      paymentDate: installment.paymentDate,
      amount: installment.amount,
      status: installment.status,
      paidAt: installment.paidAt ? installment.paidAt.toISOString() : null,
      declined: installment.declined,
      chargeId: installment.chargeId,
    })),
  };
}

/**
 * Internal, mounted under `/internal` (the gateway never forwards it): the hosted pay page of links asks
 * for the subscription of a link as it is now, with the link's merchant context signed. 404 when the link
 * has no subscription at that merchant (not created yet, or another merchant's link).
 */
export function payPageRoutes(deps: PayPageRoutesDeps) {
  const internal = new Hono<{ Variables: { merchant: MerchantContext } }>();
  internal.use('/links/*', requireMerchant(deps.internalSecret));
  internal.use('/customers/*', requireMerchant(deps.internalSecret));

  // The customer's own page (links' `/pay/account`): that customer's subscriptions at the merchant.
  internal.get('/customers/:customerId/subscriptions', async (c) => {
    const customerId = idOf(c.req.param('customerId'));
    const found = customerId
      ? await listCustomerSubscriptions(deps, c.var.merchant.merchantId, customerId)
      : [];
    return c.json({ subscriptions: found.map(customerView) });
  });

  internal.post('/customers/:customerId/subscriptions/:subscriptionId/card', async (c) => {
    const customerId = idOf(c.req.param('customerId'));
    const subscriptionId = idOf(c.req.param('subscriptionId'));
    if (!customerId || !subscriptionId) throw new SubscriptionNotFound(0);
    const body = await jsonBody(c, customerSubscriptionCardBody);
    const { subscription, charged } = await changeSubscriptionCard(deps, {
      merchantId: c.var.merchant.merchantId,
      customerId,
      subscriptionId,
      paymentMethodId: body.paymentMethodId,
      processor: body.processor,
    });
    return c.json({ subscription: customerView(subscription), charged });
  });

  internal.post('/customers/:customerId/subscriptions/:subscriptionId/cancel', async (c) => {
    const customerId = idOf(c.req.param('customerId'));
    const subscriptionId = idOf(c.req.param('subscriptionId'));
    if (!customerId || !subscriptionId) throw new SubscriptionNotFound(0);
    const cancelled = await cancelCustomerSubscription(deps, {
      merchantId: c.var.merchant.merchantId,
      customerId,
      subscriptionId,
    });
    return c.json({ subscription: customerView(cancelled) });
  });

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
