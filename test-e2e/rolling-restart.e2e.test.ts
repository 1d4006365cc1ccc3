import { randomUUID } from 'node:crypto';
import type { ServiceName } from '@payrail/runtime';
import { payOnPayPage } from '@payrail/testing/pay-page';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  benchServicesEnv,
  demoToken,
  freshInfrastructure,
  type Infrastructure,
  servicePortsEnv,
} from '../bench/support';
import { type ProcessSystem, startProcesses } from '../scripts/processes';
import { type Balancer, startBalancer } from './balancer';
import { ROOT } from './support';

// Issue 31, item 7: a deploy during a billing run. Two processes of every service (the processor sandbox,
// the processor's stand-in with its ledger in memory, stays one) behind a TCP load balancer each, as a
// deployment has them; while one as-of run charges ROLLING_SUBSCRIPTIONS × 5 installments (2,000 by default)
// and merchants create links with an Idempotency-Key (retrying on a 5xx or a connection error, as a client
// should), every service is restarted one process at a time: SIGTERM, its exit, started again, `/readyz`.
// Then: no link request failed beyond the retries, every key made one link, every installment paid, none
// charged twice at the sandbox, and every process shut down cleanly (exit code 0).
const SUBSCRIPTIONS = Number(process.env.ROLLING_SUBSCRIPTIONS || 400);
const DUE_EACH = 5;
const DUE = SUBSCRIPTIONS * DUE_EACH;
const ROLLED: ServiceName[] = ['billing-scheduler', 'subscriptions', 'processor-gateway', 'links', 'gateway'];
const ADMIN_TOKEN = `rolling-admin-${demoToken()}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let infra: Infrastructure;
let system: ProcessSystem | undefined;
let sql: postgres.Sql;
const balancers = new Map<ServiceName, Balancer>();
const logs: string[] = [];

beforeAll(async () => {
  infra = await freshInfrastructure('rolling');
  sql = postgres(infra.databaseUrl, { max: 2, onnotice: () => {} });
  for (const name of ROLLED) balancers.set(name, await startBalancer());
  const ports = await servicePortsEnv();
  const gateway = balancers.get('gateway') as Balancer;
  const env = {
    ...benchServicesEnv(infra, ports),
    ADMIN_TOKEN,
    SIMULATED_TIME: 'true',
    BILLING_RUN_INTERVAL_MS: '0',
    DATABASE_POOL_MAX: '4',
    PUBLIC_BASE_URL: gateway.url,
    LOG_LEVEL: 'warn',
  };
  system = await startProcesses({
    root: ROOT,
    env,
    port: ports.gatewayPort,
    serviceUrls: Object.fromEntries(ROLLED.map((name) => [name, (balancers.get(name) as Balancer).url])),
    replicas: Object.fromEntries(ROLLED.map((name) => [name, 2])),
    output: (service, line, replica) => logs.push(`[${service}${replica > 1 ? `-${replica}` : ''}] ${line}`),
  });
  for (const name of ROLLED) {
    const first = Number(new URL(system.urls[name]).port);
    const second = system.replicas.filter((r) => r.name === name).map((r) => Number(new URL(r.url).port));
    (balancers.get(name) as Balancer).setBackends([first, ...second]);
  }
}, 300_000);

afterAll(async () => {
  await system?.stop();
  for (const balancer of balancers.values()) await balancer.stop();
  await sql?.end();
  await infra?.drop();
});

async function call(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${(balancers.get('gateway') as Balancer).url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/**
 * A client that tries again on a 5xx, a connection error or a conflict with its own first try still running
 * (same request, same Idempotency-Key).
 */
async function withRetry<T>(
  work: () => Promise<{ status: number; body: T }>,
  counts: { retried: number },
): Promise<{ status: number; body: T } | { error: string }> {
  let last = '';
  for (let attempt = 0; attempt < 8; attempt += 1) {
    try {
      const answer = await work();
      // 409 IDEMPOTENCY_IN_PROGRESS: the first try still runs (its caller lost the connection); "retry later".
      const inProgress =
        answer.status === 409 && (answer.body as { code?: string }).code === 'IDEMPOTENCY_IN_PROGRESS';
      if (answer.status < 500 && !inProgress) return answer;
      last = `status ${answer.status}: ${JSON.stringify(answer.body)}`;
    } catch (error) {
      last = `${(error as Error).message} ${String((error as { cause?: Error }).cause?.message ?? '')}`;
    }
    counts.retried += 1;
    await sleep(250 * 2 ** Math.min(attempt, 3));
  }
  return { error: last };
}

it(`charges ${DUE} installments once and loses no link while every service is restarted one process at a time`, async () => {
  const running = system as ProcessSystem;
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const merchant = await call('POST', '/admin/merchants', admin, {
    name: 'Rolling gym',
    instance: 'NATIONAL',
    processors: ['PARAGUAY.PROCESSOR_A'],
    noLoginEnabled: true,
  });
  expect(merchant.status, JSON.stringify(merchant.body)).toBe(201);
  const merchantId = merchant.body.id as string;
  const api = { 'api-token': merchant.body.apiToken as string };

  // Seeding: subscriptions sold and subscribed on the pay page, 5 debits each, all due by one as-of day.
  let next = 0;
  const seedOne = async (index: number) => {
    const documentNumber = String(4_000_000 + index);
    const link = await call('POST', '/api/saleitems/add', api, {
      label: 'Gym membership',
      amount: 200_000,
      handleValue: `member${index}@example.com`,
      handleLabel: `Member ${index}`,
      singlePayment: false,
      creditAndDebitCard: true,
      recurrentPayment: true,
      customIdentifier: `member-${index}`,
      noLoginRequired: true,
      documentNumber,
      installmentAmount: 150_000,
      totalPeriods: DUE_EACH + 1,
      dayOfMonth: 10,
      monthForSecondInstallment: 1,
    });
    if (link.status !== 200) throw new Error(`link: ${JSON.stringify(link.body)}`);
    const paid = await payOnPayPage({
      gatewayUrl: (balancers.get('gateway') as Balancer).url,
      sandboxUrl: running.urls['processor-sandbox'],
      slug: link.body.slug as string,
      documentNumber,
      cardNumber: '4242424242424242',
    });
    if (paid.outcome !== 'registered' && paid.outcome !== 'approved')
      throw new Error(`subscription ${index}: ${paid.outcome}`);
  };
  await Promise.all(
    Array.from({ length: 12 }, async () => {
      while (next < SUBSCRIPTIONS) await seedOne(next++);
    }),
  );
  const scheduled = async () =>
    (
      await sql<[{ count: number }]>`
        select count(*)::int as count from billing_scheduler.installments
        where number >= 2 and state = 'scheduled'`
    )[0].count;
  for (let waited = 0; (await scheduled()) < DUE; waited += 250) {
    if (waited > 120_000) throw new Error(`only ${await scheduled()} of ${DUE} installments scheduled`);
    await sleep(250);
  }
  const [{ asOf }] = await sql<[{ asOf: string }]>`
    select max(payment_date)::text as "asOf" from billing_scheduler.installments`;

  // The run, the merchants' link creation and the rolling restart, at the same time.
  const linkCounts = { retried: 0 };
  const created = new Map<string, number>();
  const failures: string[] = [];
  let deploying = true;
  const merchants = Array.from({ length: 3 }, async (_, worker) => {
    let sequence = 0;
    while (deploying) {
      sequence += 1;
      const key = randomUUID();
      const customIdentifier = `deploy-${worker}-${sequence}`;
      const answer = await withRetry(
        () =>
          call(
            'POST',
            '/api/saleitems/add',
            { ...api, 'idempotency-key': key },
            {
              label: 'Day pass',
              amount: 50_000,
              handleValue: `${customIdentifier}@example.com`,
              handleLabel: customIdentifier,
              singlePayment: true,
              creditAndDebitCard: true,
              recurrentPayment: false,
              customIdentifier,
            },
          ),
        linkCounts,
      );
      if ('error' in answer) failures.push(`${customIdentifier}: ${answer.error}`);
      else if (answer.status !== 200)
        failures.push(`${customIdentifier}: ${answer.status} ${JSON.stringify(answer.body)}`);
      else created.set(customIdentifier, answer.body.id as number);
      await sleep(50);
    }
  });
  const runCounts = { retried: 0 };
  const run = await withRetry(
    () => call('POST', '/admin/billing/runs', admin, { asOf, merchantId }),
    runCounts,
  );
  expect('error' in run ? run.error : run.status).toBe(202);

  const restarts: Array<{ process: string; exitCode: number | null; seconds: number }> = [];
  for (const name of ROLLED) {
    const started = Date.now();
    const first = running.children.get(name);
    await running.kill(name, 'SIGTERM');
    restarts.push({ process: name, exitCode: first?.exitCode ?? null, seconds: 0 });
    await running.restart(name);
    (restarts.at(-1) as { seconds: number }).seconds = (Date.now() - started) / 1000;
    for (const replica of running.replicas.filter((r) => r.name === name)) {
      const again = Date.now();
      const child = replica.child;
      await running.restartReplica(replica, 'SIGTERM');
      restarts.push({
        process: `${name}-${replica.number}`,
        exitCode: child.exitCode,
        seconds: (Date.now() - again) / 1000,
      });
    }
  }
  deploying = false;
  await Promise.all(merchants);

  // Every installment paid (the run converges after the deploy).
  const paidCount = async () =>
    (
      await sql<[{ count: number }]>`
        select count(*)::int as count from subscriptions.installments where number >= 2 and status = 'paid'`
    )[0].count;
  const deadline = Date.now() + 180_000;
  while ((await paidCount()) < DUE && Date.now() < deadline) await sleep(500);
  const paid = await paidCount();
  const notPaid = await sql<Array<{ state: string; count: number }>>`
    select state, count(*)::int as count from billing_scheduler.installments
    where number >= 2 and state <> 'paid' group by state`;

  // The sandbox's ledger: one approved charge per installment, no reference twice.
  const { entries } = (await (
    await fetch(`${running.urls['processor-sandbox']}/__sandbox/ledger?limit=100000`)
  ).json()) as { entries: Array<{ kind: string; reference: string; resultCode: string }> };
  const charges = await sql<Array<{ reference: string; installmentId: number | null }>>`
    select reference, installment_id::int as "installmentId" from processor_gateway.charges`;
  const installmentOf = new Map(charges.map((c) => [c.reference, c.installmentId]));
  const perInstallment = new Map<number, number>();
  const perReference = new Map<string, number>();
  for (const entry of entries) {
    if (entry.kind !== 'charge' || entry.resultCode !== '00') continue;
    perReference.set(entry.reference, (perReference.get(entry.reference) ?? 0) + 1);
    const installment = installmentOf.get(entry.reference);
    if (installment) perInstallment.set(installment, (perInstallment.get(installment) ?? 0) + 1);
  }
  // Every key made one link: as many rows with each identifier as answers, the ids the answers gave.
  const rows = await sql<Array<{ customIdentifier: string; id: number }>>`
    select custom_identifier as "customIdentifier", id::int from links.payment_links
    where custom_identifier like 'deploy-%'`;
  const linksPerIdentifier = new Map<string, number[]>();
  for (const row of rows)
    linksPerIdentifier.set(row.customIdentifier, [
      ...(linksPerIdentifier.get(row.customIdentifier) ?? []),
      row.id,
    ]);

  const summary = {
    restarts,
    links: { created: created.size, retried: linkCounts.retried, failed: failures.length },
    run: { retried: runCounts.retried },
    paid,
    due: DUE,
    notPaid,
    chargedInstallments: perInstallment.size,
  };
  console.log(`[rolling-restart] ${JSON.stringify(summary)}`);
  if (paid < DUE || failures.length > 0)
    console.log(
      logs
        .filter((line) => /error|fatal|unhandled/i.test(line))
        .slice(-30)
        .join('\n'),
    );

  // No request failed beyond what the client's retry absorbed.
  expect(failures).toEqual([]);
  expect(created.size).toBeGreaterThan(0);
  // No link lost or made twice: each answered identifier has exactly its one row, the id answered.
  for (const [identifier, id] of created) expect(linksPerIdentifier.get(identifier)).toEqual([id]);
  // Every process ended cleanly on SIGTERM (0: its shutdown finished within the grace period).
  expect(restarts.map((r) => [r.process, r.exitCode])).toEqual(restarts.map((r) => [r.process, 0]));
  // No message lost: every installment paid; no charge twice.
  expect(notPaid).toEqual([]);
  expect(paid).toBe(DUE);
  expect(perInstallment.size).toBe(DUE);
  expect([...perInstallment.values()].filter((count) => count > 1)).toEqual([]);
  expect([...perReference.values()].filter((count) => count > 1)).toEqual([]);
}, 900_000);
