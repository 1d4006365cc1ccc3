import { billingAdminApi } from '@payrail/contracts';
import { answerMethodNotAllowed, requireOperator, route } from '@payrail/http';
import { Hono } from 'hono';
import { getDunningPolicy, setDunningPolicy } from '../../application/dunning-policies';
import { getRun, listRuns, type RunDeps } from '../../application/run-billing';
import type { BillingRun } from '../../domain/billing-run';
import type { DunningPolicyStore } from '../../ports/dunning-policy-store';
import { runStatus } from '../../domain/billing-run';

export interface BillingRoutesDeps extends RunDeps {
  policies: DunningPolicyStore;
  internalSecret: string;
  /** Claims the run's installments after the answer (the caller follows it with GET). */
  claimInBackground(run: BillingRun): void;
  startOperatorRun(request: { asOf: string; merchantId?: string }): Promise<BillingRun>;
}

const MOUNTED_AT = { mountedAt: '/admin' };

export function runView(run: BillingRun) {
  return {
    id: run.id,
    trigger: run.trigger,
    asOf: run.asOf,
    merchantId: run.merchantId,
    status: runStatus(run),
    due: run.due,
    requested: run.requested,
    succeeded: run.succeeded,
    failed: run.failed,
    skipped: run.skipped,
    startedAt: run.startedAt.toISOString(),
    claimedAt: run.claimedAt?.toISOString() ?? null,
  };
}

/**
 * The operator API of billing runs and dunning policies, reached only through the gateway's `/admin/*`.
 * Domain errors (`AsOfInFuture`, `BillingRunNotFound`) are answered by the app through `BILLING_ERRORS`.
 */
export function billingAdminRoutes(deps: BillingRoutesDeps) {
  const admin = new Hono();
  admin.use('*', requireOperator(deps.internalSecret));

  route(
    admin,
    billingAdminApi.createBillingRun,
    async (c, { body }) => {
      const run = await deps.startOperatorRun(body);
      deps.claimInBackground(run);
      return c.json(runView(run), 202);
    },
    MOUNTED_AT,
  );

  route(
    admin,
    billingAdminApi.listBillingRuns,
    async (c, { query }) => c.json({ runs: (await listRuns(deps, query)).map(runView) }),
    MOUNTED_AT,
  );

  route(
    admin,
    billingAdminApi.getBillingRun,
    async (c, { params }) => c.json(runView(await getRun(deps, params.id))),
    MOUNTED_AT,
  );

  const policyView = (policy: Awaited<ReturnType<typeof getDunningPolicy>>) => ({
    merchantId: policy.merchantId,
    retryOffsetDays: policy.retryOffsetDays,
    cancelAfterFailedInstallments: policy.cancelAfterFailedInstallments,
    isDefault: policy.isDefault,
    updatedAt: policy.updatedAt?.toISOString() ?? null,
  });

  route(
    admin,
    billingAdminApi.getDunningPolicy,
    async (c, { params }) => c.json(policyView(await getDunningPolicy(deps, params.id))),
    MOUNTED_AT,
  );

  route(
    admin,
    billingAdminApi.setDunningPolicy,
    async (c, { params, body }) => c.json(policyView(await setDunningPolicy(deps, params.id, body))),
    MOUNTED_AT,
  );

  answerMethodNotAllowed(admin);
  return admin;
}
