import { type MerchantContext, SUBSCRIPTION_STATES_PATH } from '@payrail/contracts';
import { HttpProblem, requireMerchant } from '@payrail/http';
import { Hono } from 'hono';
import type { SubscriptionStores } from '../../ports/unit-of-work';

export interface ReportRoutesDeps {
  stores: SubscriptionStores;
  internalSecret: string;
}

const INTERNAL = '/internal';

/**
 * Internal, mounted under `/internal` (the gateway never forwards it): processor-gateway's report summary
 * asks how many of the merchant's subscriptions were in each state at `at` (an ISO 8601 instant), with the
 * merchant context signed.
 */
export function reportRoutes(deps: ReportRoutesDeps) {
  const internal = new Hono<{ Variables: { merchant: MerchantContext } }>();
  const path = SUBSCRIPTION_STATES_PATH.slice(INTERNAL.length);
  internal.use(path, requireMerchant(deps.internalSecret));
  internal.get(path, async (c) => {
    const at = new Date(c.req.query('at') ?? '');
    if (Number.isNaN(at.getTime())) {
      const message = 'must be an ISO 8601 instant';
      throw new HttpProblem(400, 'VALIDATION_ERROR', `at ${message}`, [{ path: 'at', message }]);
    }
    return c.json(await deps.stores.subscriptions.statesAt(c.var.merchant.merchantId, at));
  });
  return internal;
}
