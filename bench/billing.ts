/**
 * The billing benchmark's work, shared by `npm run bench:billing` (billing.bench.ts, the issue's sizes) and
 * its CI smoke test (test-e2e/bench-billing.e2e.test.ts, a tiny size): every service its own process on
 * PostgreSQL and RabbitMQ with simulated time; subscriptions sold through the gateway and subscribed on the
 * hosted pay page; then as-of runs through the gateway, one per month, timed from the first run's start
 * until every installment they claimed has an outcome, first with one process of billing-scheduler,
 * subscriptions and processor-gateway, then with two of each. The sandbox's ledger says what was charged.
 */
import { payOnPayPage } from '@payrail/testing/pay-page';
import postgres from 'postgres';
import { type ProcessSystem, startProcesses } from '../scripts/processes';
import { type BaselineResult, runBillingBaseline } from './billing-baseline';
import {
  autovacuumStandIn,
  benchServicesEnv,
  cleanUpOnInterrupt,
  copyDatabase,
  cpuSeconds,
  databaseExists,
  demoToken,
  freshInfrastructure,
  pidsNamed,
  ROOT,
  servicePortsEnv,
} from './support';

export interface BillingBenchOptions {
  /** Subscriptions sold and subscribed. */
  subscriptions: number;
  /**
   * Months charged with each replica setting. Each subscription has 1 + `WARM_UP_MONTHS` + 2 × months
   * installments: the first paid on the pay page, then the warm-up's, charged before the timed phases.
   */
  months: number;
  /** Customers on the pay page at once while seeding. */
  seedConcurrency: number;
  /** Run the compiled services (`npm run build` first) rather than their TypeScript through tsx. */
  compiled: boolean;
  log: (line: string) => void;
  /** How often a progress line is printed (ms). */
  progressMs?: number;
  /** Extra Node options for every service process (`--cpu-prof`). */
  nodeArgs?: string[];
  /**
   * Keep the seeded database as a template (`payrail_bench_seed_billing_<subscriptions>x<months>h1`) and start
   * from a copy of it when it is there, instead of seeding again: for iterating on the charging path. The
   * copy is migrated by the services as they start; drop the template after a change to what seeding writes.
   */
  seedCache?: boolean;
}

export interface ProcessCpu {
  process: string;
  /** CPU seconds (user + system) the process used during the phase. */
  cpuSeconds: number;
}

export interface PhaseResult {
  replicas: number;
  runs: number;
  charges: number;
  seconds: number;
  chargesPerSecond: number;
  cpu: ProcessCpu[];
  /** Median seconds of each step of a charge's way (`stageMedians`), over the phase's installments. */
  stages: Array<{ stage: string; medianSeconds: number }>;
}

export interface LedgerCheck {
  /** Installments that should have been charged (`WARM_UP_MONTHS` + 2 × months per subscription). */
  expected: number;
  /** Installments with an approved charge at the sandbox. */
  charged: number;
  /** Installments with more than one approved charge. */
  duplicates: number;
  /** Installments of ours not `paid` in subscriptions. */
  unpaid: number;
  ledgerEntries: number;
  /**
   * Rows left in the charging services' outboxes once they have published everything (waited for up to
   * 10 s): 0 as deployed, the relays deleting what they published; more from a seed template made before.
   */
  outboxRows: number;
}

export interface BillingBenchResult {
  seeded: number;
  seedSeconds: number;
  phases: PhaseResult[];
  /** Charges per second with two processes of each over one. */
  ratio: number;
  /** The bare loop's charges (bench/billing-baseline.ts), as many as the one-process phase's, same run. */
  baseline: BaselineResult;
  /** Charges per second with one process each over the bare loop's. */
  baselineRatio: number;
  ledger: LedgerCheck;
}

const ADMIN_TOKEN = `bench-admin-${demoToken()}`;
/**
 * Months charged before the timed phases, then analyzed: a deployment in service has charged before, and
 * its tables (charge attempts, run items, charges) have rows and statistics. Without it the services plan
 * their statements on the copy's empty tables and keep those plans until the first analyze (docs/performance.md).
 */
const WARM_UP_MONTHS = 1;
const CARD = '4242424242424242';

/** Up to `limit` of `work(i)` for i in [0, count) at once. */
async function pool(count: number, limit: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      await work(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

async function call<T = Record<string, unknown>>(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
}

function processes(system: ProcessSystem): Array<[string, number | undefined]> {
  return [
    ...[...system.children].map(([name, child]): [string, number | undefined] => [name, child.pid]),
    ...system.replicas.map((r): [string, number | undefined] => [`${r.name}-${r.number}`, r.child.pid]),
  ];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runBillingBench(options: BillingBenchOptions): Promise<BillingBenchResult> {
  const { log } = options;
  const progressMs = options.progressMs ?? 5_000;
  const periods = 1 + WARM_UP_MONTHS + 2 * options.months;
  const seedTemplate = options.seedCache
    ? `payrail_bench_seed_billing_${options.subscriptions}x${options.months}h${WARM_UP_MONTHS}`
    : undefined;
  const seedCached = seedTemplate !== undefined && (await databaseExists(seedTemplate));
  const infra = await freshInfrastructure('billing', seedCached ? seedTemplate : undefined);
  const ports = await servicePortsEnv();
  const gatewayUrl = `http://127.0.0.1:${ports.gatewayPort}`;
  const env: Record<string, string> = {
    ...benchServicesEnv(infra, ports),
    ADMIN_TOKEN,
    SIMULATED_TIME: 'true',
    // Only the bench's as-of runs charge.
    BILLING_RUN_INTERVAL_MS: '0',
    // Up to nine processes on a PostgreSQL that may be shared: 36 connections rather than 90.
    DATABASE_POOL_MAX: process.env.DATABASE_POOL_MAX ?? '4',
  };
  let sql = postgres(infra.databaseUrl, { max: 2, onnotice: () => {} });
  const serviceOutput: string[] = [];
  let system: ProcessSystem | undefined;
  // This machine's PostgreSQL runs without autovacuum; a server in service has it.
  let maintenance = await autovacuumStandIn(infra.databaseUrl);
  // Interrupted (Ctrl-C): the services and the stand-in stopped before the database is dropped.
  const forgetProcesses = cleanUpOnInterrupt(async () => {
    await system?.stop();
    await maintenance.stop();
  });
  const start = () =>
    startProcesses({
      root: ROOT,
      env,
      port: ports.gatewayPort,
      compiled: options.compiled,
      nodeArgs: options.nodeArgs,
      output: (service, line, replica) =>
        serviceOutput.push(`[${service}${replica > 1 ? `-${replica}` : ''}] ${line}`),
    });
  try {
    system = await start();
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const seedStart = Date.now();
    let seeded = 0;
    let merchantId: string;
    if (seedCached) {
      const [merchant] = await sql<
        Array<{ id: string }>
      >`select id::text from gateway.merchants where name = 'Bench gym'`;
      if (!merchant) throw new Error(`${seedTemplate} has no merchant`);
      merchantId = merchant.id;
      seeded = options.subscriptions;
      // Statistics as autovacuum would have left them after seeding (a template made without them).
      await sql`analyze`;
      const cards = await restoreStoredCards(sql, system.urls['processor-sandbox'] as string);
      log(`seeding: a copy of ${seedTemplate}, ${cards} stored cards given to the sandbox`);
    } else {
      merchantId = await seed(gatewayUrl, system.urls['processor-sandbox'], options, (count) => {
        seeded = count;
      });
      if (seedTemplate) {
        // A database with connections cannot be copied: the services stop while it is.
        await projected(sql, merchantId, options.subscriptions, periods);
        const { cards } = (
          await call<{ cards: Array<{ userId: string; cardId: string }> }>(
            `${system.urls['processor-sandbox']}/__sandbox/stored-cards`,
          )
        ).body;
        await sql`create table public.bench_seed_sandbox_cards (user_id text not null, card_id text not null)`;
        await sql`insert into public.bench_seed_sandbox_cards ${sql(cards.map((c) => ({ user_id: c.userId, card_id: c.cardId })))}`;
        await system.stop();
        await maintenance.stop();
        await sql.end();
        await copyDatabase(infra.database, seedTemplate);
        sql = postgres(infra.databaseUrl, { max: 2, onnotice: () => {} });
        log(`seeding: kept as ${seedTemplate}`);
        maintenance = await autovacuumStandIn(infra.databaseUrl);
        system = await start();
        await restoreStoredCards(sql, system.urls['processor-sandbox'] as string);
      }
    }
    const sandboxUrl = system.urls['processor-sandbox'];
    await projected(sql, merchantId, options.subscriptions, periods);
    const seedSeconds = (Date.now() - seedStart) / 1000;
    log(`seeded ${options.subscriptions} subscriptions in ${seedSeconds.toFixed(0)} s`);

    const dates = (
      await sql<Array<{ day: string }>>`
        select distinct payment_date::text as day from billing_scheduler.installments
        where merchant_id = ${merchantId} and number >= 2 order by 1`
    ).map((row) => row.day);
    if (dates.length !== WARM_UP_MONTHS + 2 * options.months)
      throw new Error(`expected ${WARM_UP_MONTHS + 2 * options.months} debit days, found ${dates.length}`);

    // PostgreSQL's share: the server processes serving this bench's database (on this machine).
    const postgresCpu = async () => {
      const backends = await sql<Array<{ pid: number }>>`
        select pid from pg_stat_activity where datname = current_database()`;
      return new Map(backends.map((row) => [row.pid, cpuSeconds(row.pid)]));
    };
    const paidInstallments = async () => {
      const [row] = await sql<Array<{ count: number }>>`
        select count(*)::int as count from subscriptions.installments where number >= 2 and status = 'paid'`;
      return row?.count ?? 0;
    };
    const phase = async (replicas: number, days: string[], paidAtEnd: number): Promise<PhaseResult> => {
      const running = system as ProcessSystem;
      const cpuBefore = new Map(processes(running).map(([name, pid]) => [name, cpuSeconds(pid)]));
      const postgresBefore = await postgresCpu();
      // The broker's CPU (the whole RabbitMQ node: this machine's other users of it count too).
      const brokerCpu = () => pidsNamed('beam.smp').reduce((sum, pid) => sum + cpuSeconds(pid), 0);
      const brokerBefore = brokerCpu();
      const started = Date.now();
      const runIds: string[] = [];
      const status = async (id: string) =>
        (
          await call<{ status: string; due: number; succeeded: number; failed: number; skipped: number }>(
            `${gatewayUrl}/admin/billing/runs/${id}`,
            { headers: admin },
          )
        ).body;
      // A run's status counts its items (about 12 ms of PostgreSQL for 10,000): the runs complete in the
      // order they started, so only the first one not completed is asked (at most once a second), and a
      // run no more once completed; the others are asked when it is. The bench's own polling stays small.
      const latest = new Map<string, Awaited<ReturnType<typeof status>>>();
      const refresh = async () => {
        for (const id of runIds) {
          if (latest.get(id)?.status === 'completed') continue;
          latest.set(id, await status(id));
          if (latest.get(id)?.status !== 'completed') break;
        }
        return runIds.map(
          (id) => latest.get(id) ?? { status: 'claimed', due: 0, succeeded: 0, failed: 0, skipped: 0 },
        );
      };
      let succeeded = 0;
      // Progress from the installments paid (one count every few seconds), not from the runs' statuses.
      const paidBefore = await paidInstallments();
      const progress = setInterval(() => {
        void paidInstallments().then(
          (paid) => {
            const charged = paid - paidBefore;
            const seconds = (Date.now() - started) / 1000;
            log(
              `  ${replicas} process(es) each: ${runIds.length}/${days.length} runs started, ${charged} charged and paid, ${(charged / seconds).toFixed(0)} charges/s`,
            );
          },
          () => undefined,
        );
      }, progressMs);
      let runs: Awaited<ReturnType<typeof status>>[] = [];
      try {
        // One run per month; the next starts once the previous one has claimed its installments (a run as
        // of a later day would otherwise claim the earlier month's too, and charge a card twice in a day).
        for (const asOf of days) {
          const run = await call<{ id: string }>(`${gatewayUrl}/admin/billing/runs`, {
            method: 'POST',
            headers: admin,
            body: { asOf, merchantId },
          });
          if (run.status !== 202) throw new Error(`run as of ${asOf}: ${JSON.stringify(run.body)}`);
          runIds.push(run.body.id);
          while ((await status(run.body.id)).status === 'claiming') await sleep(250);
        }
        // Done when the runs have every outcome (billing-scheduler's view) and subscriptions has marked
        // every installment charged so far paid: a charge counts once it is paid end to end.
        let paid = -1;
        let paidMovedAt = Date.now();
        for (;;) {
          runs = await refresh();
          succeeded = runs.reduce((sum, run) => sum + run.succeeded, 0);
          if (runs.every((run) => run.status === 'completed')) {
            const now = await paidInstallments();
            if (now >= paidAtEnd) break;
            if (now !== paid) [paid, paidMovedAt] = [now, Date.now()];
            // Nothing paid for a minute after the runs completed: the ledger check says what is missing.
            if (Date.now() - paidMovedAt > 60_000) {
              log(`  ${paidAtEnd - now} installments charged but not paid after a minute`);
              break;
            }
          }
          await sleep(1_000);
        }
      } finally {
        clearInterval(progress);
      }
      const seconds = (Date.now() - started) / 1000;
      const cpu = processes(running).map(([name, pid]) => ({
        process: name,
        cpuSeconds: cpuSeconds(pid) - (cpuBefore.get(name) ?? 0),
      }));
      let postgresSeconds = 0;
      for (const [pid, seconds] of await postgresCpu())
        postgresSeconds += seconds - (postgresBefore.get(pid) ?? 0);
      cpu.push({ process: 'postgres (this database)', cpuSeconds: postgresSeconds });
      cpu.push({ process: 'rabbitmq (whole broker)', cpuSeconds: brokerCpu() - brokerBefore });
      const stages = await stageMedians(sql, runIds);
      const failed = runs.reduce((sum, run) => sum + run.failed + run.skipped, 0);
      if (failed > 0) log(`  ${failed} installments failed or skipped`);
      return {
        replicas,
        runs: runIds.length,
        charges: succeeded,
        seconds,
        chargesPerSecond: succeeded / seconds,
        cpu,
        stages,
      };
    };

    const phases: PhaseResult[] = [];
    // Untimed: a month charged as any other, then the statistics autovacuum would have taken by now.
    const history = options.subscriptions * WARM_UP_MONTHS;
    const warmUp = await phase(1, dates.slice(0, WARM_UP_MONTHS), history);
    await sql`analyze`;
    log(
      `warm-up: ${WARM_UP_MONTHS} month(s) charged (${warmUp.charges} charges in ${warmUp.seconds.toFixed(1)} s, not counted), tables analyzed`,
    );
    const timed = dates.slice(WARM_UP_MONTHS);
    log(`charging months ${WARM_UP_MONTHS + 1}-${WARM_UP_MONTHS + options.months} with one process each`);
    phases.push(
      await phase(1, timed.slice(0, options.months), history + options.subscriptions * options.months),
    );
    for (const line of describePhase(phases[0] as PhaseResult)) log(line);
    log(`  autovacuum stand-in so far: ${maintenance.vacuumed} vacuums, ${maintenance.analyzed} analyzes`);
    // The bare loop, now, on the same machine and sandbox: as many charges as the phase just measured.
    log(`baseline: the bare loop charges ${options.months} installments of each stored card`);
    const baseline = await runBillingBaseline({
      databaseUrl: infra.databaseUrl,
      sandboxUrl: sandboxUrl as string,
      perCard: options.months,
    });
    log(
      `baseline: ${baseline.charges} charges in ${baseline.seconds.toFixed(1)} s = ${baseline.chargesPerSecond.toFixed(0)} charges/s (${baseline.declined} declined, ${baseline.chargedTwice} charged twice)`,
    );
    for (const name of ['billing-scheduler', 'subscriptions', 'processor-gateway'] as const)
      await system.addReplica(name);
    log(
      `charging months ${WARM_UP_MONTHS + options.months + 1}-${WARM_UP_MONTHS + 2 * options.months} with two processes each`,
    );
    phases.push(
      await phase(2, timed.slice(options.months), history + options.subscriptions * 2 * options.months),
    );
    for (const line of describePhase(phases[1] as PhaseResult)) log(line);
    log(`  autovacuum stand-in so far: ${maintenance.vacuumed} vacuums, ${maintenance.analyzed} analyzes`);

    const ledger = await checkLedger(sql, sandboxUrl, history + options.subscriptions * 2 * options.months);
    const [one, two] = phases as [PhaseResult, PhaseResult];
    return {
      seeded,
      seedSeconds,
      phases,
      ratio: two.chargesPerSecond / one.chargesPerSecond,
      baseline,
      baselineRatio: one.chargesPerSecond / baseline.chargesPerSecond,
      ledger,
    };
  } catch (error) {
    log(serviceOutput.slice(-40).join('\n'));
    throw error;
  } finally {
    forgetProcesses();
    await system?.stop();
    await maintenance.stop();
    await sql.end();
    await infra.drop();
  }
}

/** A phase's figures as the bench prints them: charges per second, each process's CPU, the median steps. */
export function describePhase(phase: PhaseResult): string[] {
  const busy = [...phase.cpu].sort((a, b) => b.cpuSeconds - a.cpuSeconds);
  const cpuTotal = busy.reduce((sum, p) => sum + p.cpuSeconds, 0);
  return [
    `${phase.replicas} process(es) of billing-scheduler, subscriptions, processor-gateway: ${phase.charges} charges in ${phase.seconds.toFixed(1)} s = ${phase.chargesPerSecond.toFixed(0)} charges/s`,
    `  CPU: ${busy.map((p) => `${p.process} ${p.cpuSeconds.toFixed(1)} s (${((100 * p.cpuSeconds) / phase.seconds).toFixed(0)} %)`).join(', ')}`,
    `  CPU per charge: ${phase.charges > 0 ? ((1000 * cpuTotal) / phase.charges).toFixed(2) : '-'} ms in all (${busy.map((p) => `${p.process} ${phase.charges > 0 ? ((1000 * p.cpuSeconds) / phase.charges).toFixed(2) : '-'}`).join(', ')})`,
    `  median steps: ${phase.stages.map((step) => `${step.stage} ${step.medianSeconds.toFixed(2)} s`).join(', ')}`,
  ];
}

/**
 * Seeding: a merchant, and each subscription sold through the gateway and subscribed on the pay page with a
 * card of its own customer (its own document number), as a customer does. Returns the merchant's id.
 */
async function seed(
  gatewayUrl: string,
  sandboxUrl: string,
  options: BillingBenchOptions,
  progress: (seeded: number) => void,
): Promise<string> {
  const { log } = options;
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const merchant = await call<{ id: string; apiToken: string }>(`${gatewayUrl}/admin/merchants`, {
    method: 'POST',
    headers: admin,
    body: {
      name: 'Bench gym',
      instance: 'NATIONAL',
      processors: ['PARAGUAY.PROCESSOR_A'],
      noLoginEnabled: true,
    },
  });
  if (merchant.status !== 201) throw new Error(`merchant not created: ${JSON.stringify(merchant.body)}`);
  const periods = 1 + WARM_UP_MONTHS + 2 * options.months;
  const seedStart = Date.now();
  let seeded = 0;
  const seedProgress = setInterval(() => {
    const seconds = (Date.now() - seedStart) / 1000;
    log(`seeding: ${seeded}/${options.subscriptions} subscribed (${(seeded / seconds).toFixed(1)}/s)`);
  }, options.progressMs ?? 5_000);
  try {
    await pool(options.subscriptions, options.seedConcurrency, async (index) => {
      const documentNumber = String(1_000_000 + index);
      const link = await call<{ id: number; slug: string }>(`${gatewayUrl}/api/saleitems/add`, {
        method: 'POST',
        headers: { 'api-token': merchant.body.apiToken },
        body: {
          label: 'Gym membership',
          amount: 200000,
          handleValue: `member${index}@example.com`,
          handleLabel: `Member ${index}`,
          singlePayment: false,
          creditAndDebitCard: true,
          recurrentPayment: true,
          customIdentifier: `member-${index}`,
          noLoginRequired: true,
          documentNumber,
          installmentAmount: 150000,
          totalPeriods: periods,
          dayOfMonth: 10,
          monthForSecondInstallment: 1,
        },
      });
      if (link.status !== 200) throw new Error(`link not created: ${JSON.stringify(link.body)}`);
      // A customer tries again after an error page (a 503 when a shared PostgreSQL is out of connections).
      const pay = () =>
        payOnPayPage({ gatewayUrl, sandboxUrl, slug: link.body.slug, documentNumber, cardNumber: CARD });
      const paid = await pay().catch(async (error: Error) => {
        log(`seeding: subscription ${index} tries again after: ${error.message}`);
        await sleep(2_000);
        return pay();
      });
      // A subscription's card is registered at the form, then charged.
      if (paid.outcome !== 'registered' && paid.outcome !== 'approved')
        throw new Error(`subscription ${index} not paid on the pay page: ${paid.outcome}`);
      seeded += 1;
      progress(seeded);
    });
  } finally {
    clearInterval(seedProgress);
  }
  return merchant.body.id;
}

/** Active in subscriptions and every later installment scheduled in billing-scheduler's projection. */
async function projected(sql: postgres.Sql, merchantId: string, subscriptions: number, periods: number) {
  const expectedScheduled = subscriptions * (periods - 1);
  const deadline = Date.now() + 120_000 + subscriptions * 50;
  for (;;) {
    const [row] = await sql<Array<{ scheduled: number; active: number }>>`
      select
        (select count(*)::int from billing_scheduler.installments
          where merchant_id = ${merchantId} and state = 'scheduled' and number >= 2) as scheduled,
        (select count(*)::int from billing_scheduler.subscriptions
          where merchant_id = ${merchantId} and status = 'active') as active`;
    if (row?.scheduled === expectedScheduled && row.active === subscriptions) return;
    if (Date.now() > deadline)
      throw new Error(
        `billing-scheduler sees ${row?.active} active subscriptions, ${row?.scheduled}/${expectedScheduled} installments`,
      );
    await sleep(500);
  }
}

/** The sandbox keeps its stored cards in memory: the seeded customers' cards, stored again in a new one. */
async function restoreStoredCards(sql: postgres.Sql, sandboxUrl: string): Promise<number> {
  const cards = await sql<Array<{ userId: string; cardId: string }>>`
    select user_id as "userId", card_id as "cardId" from public.bench_seed_sandbox_cards`;
  const restored = await call<{ restored: number }>(`${sandboxUrl}/__sandbox/stored-cards`, {
    method: 'POST',
    body: { cardNumber: CARD, cards },
  });
  if (restored.body.restored !== cards.length)
    throw new Error(`the sandbox stored ${JSON.stringify(restored.body)} of ${cards.length} cards`);
  return cards.length;
}

/**
 * Where a charge's time goes, from the rows each step leaves that outlive it (the relays delete what they
 * published, so no outbox row is read): billing-scheduler's claim of the installment (`claimed_at`),
 * processor-gateway's charge (`created_at`, `settled_at`) and billing-scheduler's count of the outcome (the
 * run item's `settled_at`, when it took `payment.succeeded`). The median of each step over the phase's runs.
 * The first step is charge-due's relay and queue, subscriptions' decision, charge.requested's relay and queue.
 */
async function stageMedians(sql: postgres.Sql, runIds: string[]) {
  // Joins of whole sets (hash joins), not a lookup per installment.
  const [row] = await sql.begin(async (tx) => {
    await tx`set local enable_nestloop = off`;
    return tx<Array<Record<string, number | null>>>`
    with steps as (
      select i.claimed_at as claimed, c.created_at as charge_created, c.settled_at as charge_settled,
             r.settled_at as counted
      from billing_scheduler.run_items r
      join billing_scheduler.installments i on i.installment_id = r.installment_id
      join processor_gateway.charges c
        on c.installment_id = r.installment_id and c.attempt = r.attempt and c.status = 'succeeded'
      where r.run_id = any(${runIds}::uuid[]) and r.outcome = 'succeeded'
    )
    select
      percentile_cont(0.5) within group (order by extract(epoch from charge_created - claimed)) as "claimed to charge opened",
      percentile_cont(0.5) within group (order by extract(epoch from charge_settled - charge_created)) as "the sandbox's charge",
      percentile_cont(0.5) within group (order by extract(epoch from counted - charge_settled)) as "payment.succeeded relayed and counted",
      percentile_cont(0.5) within group (order by extract(epoch from counted - claimed)) as "claimed to counted"
    from steps`;
  });
  return Object.entries(row ?? {}).map(([stage, value]) => ({ stage, medianSeconds: Number(value ?? 0) }));
}

interface LedgerPage {
  entries: Array<{ kind: string; reference: string; resultCode: string }>;
  next: number | null;
}

/**
 * The sandbox's ledger, page by page, against processor-gateway's charge rows: approved charges per
 * installment (by the reference processor-gateway sent), and subscriptions' installment statuses.
 */
async function checkLedger(sql: postgres.Sql, sandboxUrl: string, expected: number): Promise<LedgerCheck> {
  const rows = await sql<Array<{ reference: string; installment_id: number }>>`
    select reference, installment_id::int from processor_gateway.charges where installment_id is not null`;
  const installmentOf = new Map(rows.map((row) => [row.reference, row.installment_id]));
  const approved = new Map<number, number>();
  let ledgerEntries = 0;
  for (let after: number | null = 0; after !== null; ) {
    const page: LedgerPage = (
      await call<LedgerPage>(`${sandboxUrl}/__sandbox/ledger?after=${after}&limit=10000`)
    ).body;
    ledgerEntries += page.entries.length;
    for (const entry of page.entries) {
      const installment = installmentOf.get(entry.reference);
      if (installment === undefined || entry.kind !== 'charge' || entry.resultCode !== '00') continue;
      approved.set(installment, (approved.get(installment) ?? 0) + 1);
    }
    after = page.next;
  }
  const [unpaid] = await sql<Array<{ count: number }>>`
    select count(*)::int as count from subscriptions.installments where number >= 2 and status <> 'paid'`;
  return {
    expected,
    charged: approved.size,
    duplicates: [...approved.values()].filter((count) => count > 1).length,
    unpaid: unpaid?.count ?? 0,
    ledgerEntries,
    outboxRows: await outboxRowsLeft(sql),
  };
}

/** The rows in the outboxes of the services that charge, once none is waiting to be published (≤ 10 s). */
async function outboxRowsLeft(sql: postgres.Sql): Promise<number> {
  const count = async (where: postgres.PendingQuery<postgres.Row[]>) => {
    const [row] = await sql<Array<{ count: number }>>`
      select (select count(*) from billing_scheduler.outbox ${where})
           + (select count(*) from subscriptions.outbox ${where})
           + (select count(*) from processor_gateway.outbox ${where})
           + (select count(*) from links.outbox ${where}) as count`;
    return Number(row?.count ?? 0);
  };
  for (let waited = 0; waited < 10_000 && (await count(sql`where published_at is null`)) > 0; waited += 250) {
    await sleep(250);
  }
  return count(sql``);
}
