/**
 * `npm run bench:webhooks`: webhook delivery by the gateway (bench/webhooks.ts). BENCH_EVENTS one-off
 * payments (default 100,000) of 20 merchants to a local receiver answering 200 in 1–5 ms: half in a burst
 * (deliveries per second beside a bare loop that reads the same payloads from a table, signs and POSTs
 * them with the same concurrency), a quarter at a tenth of the burst's rate (BENCH_STEADY_SHARE), a quarter at that rate while one
 * merchant's receiver hangs 10 s per request (the others' p99 beside the steady phase's). The gateway runs
 * compiled, on a database and broker names of its own on DATABASE_URL's server and AMQP_URL (default the
 * local ones), removed at the end. Ends with `bench:webhooks: pass|fail` and the figures. Targets: ≥ 50 % of
 * the baseline's deliveries per second; the others' p99 while one merchant hangs within 25 % (or 50 ms,
 * whichever is more) of the steady phase's. BENCH_PROFILE_DIR=<dir>: the gateway writes a CPU profile there
 * when it stops.
 */
import { runWebhooksBench } from './webhooks';
import { buildServices, endBench, log as logger, machine, undoOnInterrupt } from './support';

const log = logger('bench:webhooks');
const TARGET_RATIO = 0.5;
/** The others' p99 while one hangs may exceed the steady p99 by this share, or by the slack in ms. */
const TARGET_P99_GROWTH = 0.25;
const TARGET_P99_SLACK_MS = 50;

async function main() {
  undoOnInterrupt(log);
  log(`machine: ${machine()}`);
  buildServices();
  const events = Number(process.env.BENCH_EVENTS ?? 100_000);
  log(`${events} events of 20 merchants`);
  const result = await runWebhooksBench({
    events,
    compiled: true,
    log,
    profileDir: process.env.BENCH_PROFILE_DIR,
    steadyShare: process.env.BENCH_STEADY_SHARE ? Number(process.env.BENCH_STEADY_SHARE) : undefined,
  });
  const { burst, baseline, steady, othersWhileHanging: others } = result;
  log('');
  log(
    `burst: ${burst.events} delivered at ${burst.deliveriesPerSecond.toFixed(0)}/s (publish → arrival p50 ${burst.latency.p50} ms, p99 ${burst.latency.p99} ms, queueing included)`,
  );
  log(`bare loop: ${baseline.events} POSTed at ${baseline.deliveriesPerSecond.toFixed(0)}/s`);
  log(
    `at ${result.rate}/s: every receiver answering p50 ${steady.p50} ms p99 ${steady.p99} ms; one hanging (${result.hangingHeld} attempts held), the others p50 ${others.p50} ms p99 ${others.p99} ms`,
  );
  log(`missing ${result.missing}, delivered twice ${result.duplicates}`);
  log(
    `autovacuum stand-in in the whole run: ${result.maintenance.vacuumed} vacuums, ${result.maintenance.analyzed} analyzes`,
  );
  log(`machine after: ${machine()}`);
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const ratioMet = result.ratio >= TARGET_RATIO;
  const p99Limit = Math.max(steady.p99 * (1 + TARGET_P99_GROWTH), steady.p99 + TARGET_P99_SLACK_MS);
  const isolated = others.p99 <= p99Limit;
  const complete = result.missing === 0;
  log(
    `target: ≥ ${TARGET_RATIO * 100} % of the bare loop's deliveries/s: ${(100 * result.ratio).toFixed(0)} % (${verdict(ratioMet)})`,
  );
  log(
    `target: the others' p99 while one hangs ≤ ${p99Limit.toFixed(0)} ms (steady ${steady.p99} ms + 25 % or 50 ms): ${others.p99} ms (${verdict(isolated)})`,
  );
  log(
    `target: every event of the answering merchants delivered: ${result.missing} missing (${verdict(complete)})`,
  );
  log(
    `bench:webhooks: ${ratioMet && isolated && complete ? 'pass' : 'fail'} deliveries=${burst.deliveriesPerSecond.toFixed(0)}/s baseline=${baseline.deliveriesPerSecond.toFixed(0)}/s ratio=${(100 * result.ratio).toFixed(0)}% p50=${steady.p50}ms p99=${steady.p99}ms others-p99-while-hanging=${others.p99}ms missing=${result.missing}`,
  );
}

main().then(
  () => endBench(0),
  (error) => endBench(1, `bench:webhooks failed: ${(error as Error).stack ?? error}\n`),
);
