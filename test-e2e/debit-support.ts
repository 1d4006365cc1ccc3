import type { billingRunResponse } from '@payrail/contracts';
import { waitFor } from '@payrail/testing';
import type postgres from 'postgres';

// What the automatic-debit tests ask through the gateway: the merchant API with the demo token, the
// operator's as-of runs with the admin token, and the subscription as the merchant sees it.

export interface InstallmentView {
  installmentId: number;
  number: number;
  paymentDate: string;
  amount: string;
  status: string;
}

export interface SubscriptionView {
  id: number;
  status: string;
  installments: InstallmentView[];
}

/** A run as `GET /admin/billing/runs/{id}` answers it (the operator API's contract). */
export type BillingRunView = ReturnType<typeof billingRunResponse.parse>;

export interface DebitApi {
  /** A gateway call with the merchant's Api-Token, or with the operator's bearer token when `admin`. */
  call(
    method: string,
    path: string,
    body?: unknown,
    admin?: boolean,
  ): Promise<{ status: number; body: unknown }>;
  subscription(id: number): Promise<SubscriptionView>;
  /** Starts an as-of run for the merchant; answers the run's id (202). */
  startRun(asOf: string): Promise<string>;
  /** Follows a run until every claimed charge has an outcome. */
  completedRun(id: string, timeoutMs?: number): Promise<BillingRunView>;
  /** An as-of run, followed until completed. */
  runAsOf(asOf: string, timeoutMs?: number): Promise<BillingRunView>;
}

export function debitApi(options: {
  gatewayUrl: string;
  apiToken: string;
  adminToken: string;
  merchantId: string;
}): DebitApi {
  const call: DebitApi['call'] = async (method, path, body, admin = false) => {
    const response = await fetch(`${options.gatewayUrl}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(admin ? { authorization: `Bearer ${options.adminToken}` } : { 'api-token': options.apiToken }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const startRun = async (asOf: string) => {
    const started = await call('POST', '/admin/billing/runs', { asOf, merchantId: options.merchantId }, true);
    if (started.status !== 202)
      throw new Error(`run as of ${asOf}: ${started.status} ${JSON.stringify(started.body)}`);
    return (started.body as { id: string }).id;
  };
  const completedRun = (id: string, timeoutMs = 30_000) =>
    waitFor(
      async () => {
        const run = (await call('GET', `/admin/billing/runs/${id}`, undefined, true)).body as BillingRunView;
        return run?.status === 'completed' && run;
      },
      timeoutMs,
      100,
    );
  return {
    call,
    async subscription(id) {
      const { status, body } = await call('GET', `/api/subscriptions/${id}`);
      if (status !== 200) throw new Error(`subscription ${id}: ${status}`);
      return body as SubscriptionView;
    },
    startRun,
    completedRun,
    runAsOf: async (asOf, timeoutMs) => completedRun(await startRun(asOf), timeoutMs),
  };
}

export const byNumber = (view: SubscriptionView, number: number) =>
  view.installments.find((installment) => installment.number === number) as InstallmentView;

export function addDays(date: string, days: number): string {
  const shifted = new Date(`${date}T00:00:00Z`);
  shifted.setUTCDate(shifted.getUTCDate() + days);
  return shifted.toISOString().slice(0, 10);
}

/**
 * Every event subscriptions published about installments is in billing-scheduler's projection, but an
 * `installment.paid` an automatic charge paid: that one is not sent to it (its `payment.succeeded` is). An
 * operator's run right after a change would otherwise race the projection (the minute ticker covers that in
 * production; the tests turn it off).
 */
export async function schedulerCaughtUp(sql: postgres.Sql): Promise<void> {
  await waitFor(
    async () => {
      const [row] = await sql<Array<{ missing: number }>>`
        select count(*)::int as missing from subscriptions.outbox o
        where (o.type like 'subscription.%' or o.type like 'installment%')
          and o.type <> 'installment.charge-skipped'
          and not (o.type = 'installment.paid' and o.body::jsonb -> 'data' ->> 'chargeAttempt' is not null)
          and not exists (
            select 1 from billing_scheduler.inbox i
            where i.consumer = 'billing-scheduler.project-installments' and i.message_id = o.id::text)`;
      return row?.missing === 0;
    },
    20_000,
    50,
  );
}
