/**
 * `npm run bench:console`: the merchant console at size (issue 28): BENCH_ROWS (default 1,000,000) ledger
 * rows of the demo merchant over the last 30 days among 20 merchants, the services compiled and running as
 * separate processes on PostgreSQL and RabbitMQ, an owner signed in to the console (bench/console.ts).
 * Home (`GET /console`) and the payments page (`GET /console/payments`, the first page and filtered by
 * status) through the gateway with the owner's session cookie, each beside the API call it makes with an
 * Api-Token: p50, p99 and req/s of each, autocannon for BENCH_SECONDS (default 10) at BENCH_CONNECTIONS
 * (default 10), each after BENCH_WARMUP_SECONDS (default 3) of the same load not measured. Target: p99
 * ≤ 150 ms for each page, every answer 200. The last line is `bench:console: pass|fail` and the figures.
 * BENCH_PROFILE_DIR=<dir>: every service writes a CPU profile there when it stops. Not a test.
 */
import { runConsoleBench } from './console';
import { buildServices, endBench, log as logger, machine, undoOnInterrupt } from './support';

const log = logger('bench:console');
const TARGET_P99_MS = 150;

async function main() {
  undoOnInterrupt(log);
  log(`machine: ${machine()}`);
  const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
  const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
  log(
    `${rows} rows of the merchant among 20 over 30 days; ${seconds} s each at ${connections} connections, ` +
      `after ${warmupSeconds} s of the same load not measured`,
  );
  buildServices();
  const result = await runConsoleBench({
    rows,
    seconds,
    connections,
    warmupSeconds,
    profileDir: process.env.BENCH_PROFILE_DIR,
    compiled: true,
    log,
  });
  log(`machine after: ${machine()}`);
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  let pass = result.totalsAgree;
  log(
    `target: the summary from the daily totals is the one summed from the rows: ${verdict(result.totalsAgree)}`,
  );
  for (const { page, api } of result.pairs) {
    const met = page.p99 <= TARGET_P99_MS && page.failures === 0 && api.failures === 0;
    pass &&= met;
    log(
      `target: ${page.name} p99 ≤ ${TARGET_P99_MS} ms, every answer 200: p99 ${page.p99} ms, ${page.failures + api.failures} not 200 (${verdict(met)})`,
    );
  }
  const figures = result.pairs
    .map(
      ({ page, api }) =>
        `${page.name.replace(' ', '-')}=${page.requestsPerSecond.toFixed(0)}req/s p50=${page.p50}ms p99=${page.p99}ms ` +
        `(api ${api.requestsPerSecond.toFixed(0)}req/s p50=${api.p50}ms p99=${api.p99}ms)`,
    )
    .join('; ');
  log(
    `bench:console: ${pass ? 'pass' : 'fail'} rows=${rows} first-summary=${result.firstSummaryMs.toFixed(0)}ms; ${figures}`,
  );
  if (!pass) process.exitCode = 1;
}

main().then(
  () => endBench(Number(process.exitCode ?? 0)),
  (error) => endBench(1, `bench:console failed: ${(error as Error).stack ?? error}\n`),
);
