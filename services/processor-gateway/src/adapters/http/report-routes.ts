import { type MerchantContext, reportApi } from '@payrail/contracts';
import { requireMerchant, route } from '@payrail/http';
import type { Clock } from '@payrail/time';
import { Hono } from 'hono';
import { reportSummary } from '../../application/report-summary';
import type { LedgerStore } from '../../ports/ledger-store';
import type { SubscriptionStates } from '../../ports/subscription-states';

/**
 * `GET /api/reports/summary`, forwarded by the gateway with the signed merchant context: the ledger's
 * money per currency and per day or month (computed here, where the ledger is).
 */
export function reportRoutes(deps: {
  internalSecret: string;
  ledger: LedgerStore;
  clock: Clock;
  subscriptionStates: SubscriptionStates;
}) {
  const api = new Hono<{ Variables: { merchant: MerchantContext } }>();
  api.use('/reports/*', requireMerchant(deps.internalSecret));
  route(
    api,
    reportApi.getReportSummary,
    async (c, { query }) => c.json(await reportSummary(deps, c.var.merchant, query), 200),
    { mountedAt: '/api' },
  );
  return api;
}
