/**
 * `npm run bench:pay-page`: opening a link's pay page (`GET /pay/<slug>`, the first request a customer
 * makes) through the gateway, the services running compiled as separate processes on PostgreSQL and
 * RabbitMQ, beside a bare Hono page rendering the same JSX from an in-memory object (bench/pay-page.ts).
 * BENCH_CONNECTIONS customers at once (default 200), BENCH_ROUNDS rounds (default 3) of BENCH_SECONDS
 * (default 10) each side, alternating, BENCH_LINKS links opened in turn (default 200). Prints req/s, p50
 * and p99 of each, the ratio, and ends with `bench:pay-page: pass|fail` and the figures. Targets: ≥ 40 % of
 * the baseline's req/s, the gateway's p99 ≤ 100 ms. Also printed: the CPU each process spent per page (gateway,
 * links, PostgreSQL's backends of the bench's database, the bare page's process, the bench's own autocannon). DATABASE_URL's server and AMQP_URL (default the local
 * ones): the bench's own database and broker names there, removed at the end. BENCH_PROFILE_DIR=<dir>: each
 * service writes a CPU profile there when it stops.
 */
import { cpuLine, runPayPageBench } from './pay-page';
import { buildServices, endBench, log as logger, machine, undoOnInterrupt } from './support';

const log = logger('bench:pay-page');
const TARGET_RATIO = 0.4;
const TARGET_P99_MS = 100;

async function main() {
  undoOnInterrupt(log);
  log(`machine: ${machine()}`);
  buildServices();
  const result = await runPayPageBench({
    connections: Number(process.env.BENCH_CONNECTIONS ?? 200),
    rounds: Number(process.env.BENCH_ROUNDS ?? 3),
    seconds: Number(process.env.BENCH_SECONDS ?? 10),
    warmUpSeconds: 3,
    links: Number(process.env.BENCH_LINKS ?? 200),
    compiled: true,
    profileDir: process.env.BENCH_PROFILE_DIR,
    log,
  });
  const { system, baseline, ratio } = result;
  log('');
  log(`medians of ${result.rounds.length} rounds:`);
  log(
    `  gateway (processes)  ${system.requestsPerSecond.toFixed(0)} req/s  p50 ${system.p50} ms  p99 ${system.p99} ms  (${result.pageBytes.system} bytes a page, ${system.failures} failed: ${JSON.stringify(system.failed)})`,
  );
  log(
    `  bare Hono page       ${baseline.requestsPerSecond.toFixed(0)} req/s  p50 ${baseline.p50} ms  p99 ${baseline.p99} ms  (${result.pageBytes.baseline} bytes a page, ${baseline.failures} failed: ${JSON.stringify(baseline.failed)})`,
  );
  log(`CPU ms a page (medians): ${cpuLine(system.cpuMsPerPage)}`);
  log(`CPU ms a bare page (medians): ${cpuLine(baseline.cpuMsPerPage)}`);
  log(`machine after: ${machine()}`);
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const ratioMet = ratio >= TARGET_RATIO;
  const p99Met = system.p99 <= TARGET_P99_MS;
  const clean = system.failures === 0;
  log(
    `target: ≥ ${TARGET_RATIO * 100} % of the baseline's req/s: ${(100 * ratio).toFixed(0)} % (${verdict(ratioMet)})`,
  );
  log(`target: p99 ≤ ${TARGET_P99_MS} ms through the gateway: ${system.p99} ms (${verdict(p99Met)})`);
  log(`target: every answer 200: ${system.failures} not (${verdict(clean)})`);
  log(
    `bench:pay-page: ${ratioMet && p99Met && clean ? 'pass' : 'fail'} gateway=${system.requestsPerSecond.toFixed(0)}req/s p50=${system.p50}ms p99=${system.p99}ms baseline=${baseline.requestsPerSecond.toFixed(0)}req/s ratio=${(100 * ratio).toFixed(0)}% failed=${system.failures}`,
  );
}

main().then(
  () => endBench(0),
  (error) => endBench(1, `bench:pay-page failed: ${(error as Error).stack ?? error}\n`),
);
