/**
 * `npm run bench:billing`: automatic debit end to end against the sandbox. BENCH_SUBSCRIPTIONS (default
 * 10,000) subscriptions are sold through the gateway and subscribed on the hosted pay page (BENCH_SEED_CONCURRENCY
 * customers at once, default 16), each with 2 + 2 × BENCH_MONTHS installments (default 10 months); then one
 * as-of run per month through the gateway charges what is due: first one month untimed (a warm-up: a
 * deployment in service has charged before, and its tables have rows and statistics; analyzed after it),
 * then BENCH_MONTHS months (BENCH_SUBSCRIPTIONS × BENCH_MONTHS installments, 100,000 by default) with one
 * process of billing-scheduler, subscriptions and processor-gateway, then as many charges through the bare
 * baseline (bench/billing-baseline.ts: per installment the sandbox's charge over a kept-alive connection and
 * one transaction, the same concurrency), the next BENCH_MONTHS with two of each. Prints charges per second
 * of each, the system's rate over the baseline's (target ≥ 50 %), the two-process ratio,
 * the CPU each process used, and checks the sandbox's ledger: one approved charge per installment, every one
 * paid. Not a test: it prints figures and the targets (the smoke test test-e2e/bench-billing.e2e.test.ts runs
 * the same code at a tiny size).
 *
 * The services run compiled (`npm run build` first), SIMULATED_TIME=true, BILLING_RUN_INTERVAL_MS=0, on a
 * database and broker names of their own on DATABASE_URL's server and AMQP_URL (default the local ones),
 * removed at the end. BENCH_PROFILE_DIR=<dir>: each service writes a CPU profile there when it stops.
 * BENCH_NODE_ARGS: Node options for every service, after their own (`SERVICE_NODE_OPTIONS`), e.g.
 * `--max-semi-space-size=16` for V8's default young generation.
 * BENCH_SEED_CACHE=1: the seeded database is kept as a template (payrail_bench_seed_billing_<size>) and later
 * runs of the same size start from a copy of it instead of seeding (for iterating on the charging path).
 */
import { describePhase, runBillingBench } from './billing';
import { buildServices, endBench, log as logger, machine, undoOnInterrupt } from './support';

const log = logger('bench:billing');
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 10_000);
const MONTHS = Number(process.env.BENCH_MONTHS ?? 10);
const SEED_CONCURRENCY = Number(process.env.BENCH_SEED_CONCURRENCY ?? 16);
const TARGET_BASELINE_SHARE = 0.5;
const TARGET_RATIO = 1.6;

async function main() {
  undoOnInterrupt(log);
  log(`machine: ${machine()}`);
  buildServices();
  const profileDir = process.env.BENCH_PROFILE_DIR;
  log(
    `${SUBSCRIPTIONS} subscriptions × ${MONTHS} months with 1 process each, then ${MONTHS} more with 2: ${SUBSCRIPTIONS * MONTHS} charges each`,
  );
  const result = await runBillingBench({
    subscriptions: SUBSCRIPTIONS,
    months: MONTHS,
    seedConcurrency: SEED_CONCURRENCY,
    compiled: true,
    seedCache: process.env.BENCH_SEED_CACHE === '1',
    log,
    nodeArgs: [
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    ],
  });
  log('');
  log(`seeding: ${result.seeded} subscriptions in ${result.seedSeconds.toFixed(0)} s`);
  for (const phase of result.phases) for (const line of describePhase(phase)) log(line);
  const { ledger } = result;
  log(
    `ledger: ${ledger.ledgerEntries} entries; ${ledger.charged}/${ledger.expected} installments charged, ${ledger.duplicates} charged twice, ${ledger.unpaid} not paid`,
  );
  log(
    `outboxes: ${ledger.outboxRows} rows left once everything was published (the relays delete what they publish)`,
  );
  log(`machine after: ${machine()}`);
  const [one] = result.phases;
  const { baseline } = result;
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const shareMet = result.baselineRatio >= TARGET_BASELINE_SHARE;
  const moneyMet =
    ledger.duplicates === 0 &&
    ledger.charged === ledger.expected &&
    ledger.unpaid === 0 &&
    baseline.chargedTwice === 0;
  log(
    `target: ≥ ${TARGET_BASELINE_SHARE * 100} % of the bare baseline with one process each: ${one?.chargesPerSecond.toFixed(0)} charges/s beside ${baseline.chargesPerSecond.toFixed(0)} = ${(100 * result.baselineRatio).toFixed(0)} % (${verdict(shareMet)})`,
  );
  log(
    `target: 0 duplicates, every installment paid: ${ledger.duplicates} duplicates (${baseline.chargedTwice} in the baseline), ${ledger.expected - ledger.charged} not charged, ${ledger.unpaid} not paid (${verdict(moneyMet)})`,
  );
  log(
    `(not a target here) two processes each over one: ${result.ratio.toFixed(2)} on this ${machine().split(',')[0]} machine (${TARGET_RATIO} with the cores for it)`,
  );
  log(
    `bench:billing: ${shareMet && moneyMet ? 'pass' : 'fail'} system=${one?.chargesPerSecond.toFixed(0)}/s baseline=${baseline.chargesPerSecond.toFixed(0)}/s ratio=${(100 * result.baselineRatio).toFixed(0)}% charged-twice=${ledger.duplicates + baseline.chargedTwice} two-processes=${result.ratio.toFixed(2)}x`,
  );
}

main().then(
  () => endBench(0),
  (error) => endBench(1, `bench:billing failed: ${(error as Error).stack ?? error}\n`),
);
