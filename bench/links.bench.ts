/**
 * `npm run bench:links`: link creation (`POST /api/saleitems/add`, one-off links) through the gateway, the
 * services running as separate processes on PostgreSQL and RabbitMQ as `npm start` runs them, beside a bare
 * Hono + postgres.js server doing the same insert of a link and an outbox row (`baseline-server.ts`). Both
 * are driven by autocannon in the same go, alternating, BENCH_ROUNDS rounds (default 3) of BENCH_SECONDS
 * (default 10) at BENCH_CONNECTIONS (default 50). Prints req/s, p50 and p99 of each, their ratios (from the
 * same round), each process's RSS idle and under load, and the CPU each process (PostgreSQL's backends of the
 * bench's database as one; this bench process, which runs autocannon, as `bench`) used per request in each
 * side's rounds, counted from /proc until the processes are idle again after each round (the relay and the
 * consumers finish their share). Not a test: it prints figures and the targets.
 *
 * PostgreSQL and RabbitMQ: DATABASE_URL's server and AMQP_URL (default the local ones); the bench creates its
 * own database and broker names there and removes them at the end. BENCH_PROFILE_DIR=<dir>: each service
 * writes a CPU profile (`node --cpu-prof`) there when it stops.
 */
import autocannon from 'autocannon';
import postgres from 'postgres';
import { startProcesses } from '../scripts/processes';
import {
  benchServicesEnv,
  buildServices,
  cleanUpOnInterrupt,
  cpuSnapshot,
  cpuUsed,
  demoToken,
  endBench,
  freePort,
  freshInfrastructure,
  log as logger,
  machine,
  median,
  ROOT,
  rssMb,
  servicePortsEnv,
  spawnTs,
  stopChild,
  undoOnInterrupt,
  waitReady,
} from './support';

const log = logger('bench:links');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP_SECONDS = 3;
const TARGET_THROUGHPUT_RATIO = 0.6;
const TARGET_P99_RATIO = 2;
const TARGET_IDLE_RSS_MB = 100;

const LINK = JSON.stringify({
  label: 'Gym membership',
  amount: 150000,
  handleValue: 'ana@example.com',
  handleLabel: 'Ana',
  singlePayment: true,
  creditAndDebitCard: true,
  recurrentPayment: false,
});

interface Run {
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function drive(url: string, headers: Record<string, string>, seconds: number): Promise<Run> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: LINK,
    connections: CONNECTIONS,
    duration: seconds,
  });
  return {
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** Samples the RSS of every pid while `work` runs; resolves to the peak per pid. */
async function peakRss<T>(pids: Map<string, number | undefined>, work: Promise<T>) {
  const peak = new Map<string, number>();
  const sample = () => {
    for (const [name, pid] of pids) peak.set(name, Math.max(peak.get(name) ?? 0, rssMb(pid) ?? 0));
  };
  const timer = setInterval(sample, 250);
  try {
    return { result: await work, peak };
  } finally {
    clearInterval(timer);
    sample();
  }
}

/**
 * Waits until the work a round left behind (the relay, the consumers) is done: the processes together use
 * under 5 % of a core over half a second, or 30 s have passed. Resolves to the last CPU snapshot.
 */
async function settled(pids: Map<string, number | undefined>, sql: postgres.Sql) {
  let last = await cpuSnapshot(pids, sql);
  for (let waited = 0; waited < 30_000; waited += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await cpuSnapshot(pids, sql);
    const busy = [...cpuUsed(last, now)].reduce(
      (sum, [name, seconds]) => sum + (name === 'bench' ? 0 : seconds),
      0,
    );
    last = now;
    if (busy < 0.025) break;
  }
  return last;
}

const mb = (value: number | undefined) => (value === undefined ? '-' : `${value.toFixed(0)} MB`);
const pad = (text: string, width: number) => text.padEnd(width);

async function main() {
  undoOnInterrupt(log);
  log(`machine: ${machine()}`);
  buildServices();
  const infra = await freshInfrastructure('links');
  const token = demoToken();
  const ports = await servicePortsEnv();
  const { gatewayPort } = ports;
  const env = { ...benchServicesEnv(infra, ports), DEMO_API_TOKEN: token };

  // BENCH_PROFILE_DIR: every service writes a CPU profile there when it stops (node --cpu-prof).
  const profileDir = process.env.BENCH_PROFILE_DIR;
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const serviceOutput: string[] = [];
  const baselinePort = await freePort();
  const baseline = spawnTs('bench/baseline-server.ts', {
    DATABASE_URL: infra.databaseUrl,
    PORT: String(baselinePort),
  });
  let system: Awaited<ReturnType<typeof startProcesses>> | undefined;
  const forgetProcesses = cleanUpOnInterrupt(async () => {
    await system?.stop();
    baseline.child.kill();
  });
  try {
    system = await startProcesses({
      root: ROOT,
      env,
      port: gatewayPort,
      compiled: true,
      nodeArgs,
      output: (service, line) => serviceOutput.push(`[${service}] ${line}`),
    });
    await waitReady(`http://127.0.0.1:${baselinePort}/readyz`, baseline.child);
    const pids = new Map<string, number | undefined>([
      ...[...system.children].map(([name, child]) => [name, child.pid] as [string, number | undefined]),
      ['baseline', baseline.child.pid],
    ]);
    pids.set('bench', process.pid);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const idle = new Map([...pids].map(([name, pid]) => [name, rssMb(pid)]));
    const sql = postgres(infra.databaseUrl, { max: 1, onnotice: () => {} });
    // CPU microseconds per request of each process, per round, for each side.
    const cpuPerRequest = {
      system: [] as Array<Map<string, number>>,
      baseline: [] as Array<Map<string, number>>,
    };

    const targets = {
      system: { url: `http://127.0.0.1:${gatewayPort}/api/saleitems/add`, headers: { 'api-token': token } },
      baseline: { url: `http://127.0.0.1:${baselinePort}/api/saleitems/add`, headers: {} },
    };
    log(
      `warm-up ${WARMUP_SECONDS} s each, then ${ROUNDS} rounds × ${SECONDS} s each at ${CONNECTIONS} connections`,
    );
    await drive(targets.baseline.url, targets.baseline.headers, WARMUP_SECONDS);
    await drive(targets.system.url, targets.system.headers, WARMUP_SECONDS);
    await settled(pids, sql);

    const runs: Array<{ system: Run; baseline: Run }> = [];
    const underLoad = new Map<string, number>();
    for (let round = 1; round <= ROUNDS; round += 1) {
      // Alternating: odd rounds start with the baseline, even ones with the system.
      const order = (round % 2 === 1 ? ['baseline', 'system'] : ['system', 'baseline']) as Array<
        'system' | 'baseline'
      >;
      const results: Partial<Record<'system' | 'baseline', Run>> = {};
      for (const which of order) {
        const before = await cpuSnapshot(pids, sql);
        const { result, peak } = await peakRss(
          pids,
          drive(targets[which].url, targets[which].headers, SECONDS),
        );
        const used = cpuUsed(before, await settled(pids, sql));
        cpuPerRequest[which].push(
          new Map([...used].map(([name, seconds]) => [name, (seconds * 1e6) / Math.max(1, result.requests)])),
        );
        results[which] = result;
        for (const [name, value] of peak) underLoad.set(name, Math.max(underLoad.get(name) ?? 0, value));
      }
      const pair = results as { system: Run; baseline: Run };
      runs.push(pair);
      log(
        `round ${round}: gateway ${pair.system.requestsPerSecond.toFixed(0)} req/s p50 ${pair.system.p50} ms p99 ${pair.system.p99} ms` +
          ` | baseline ${pair.baseline.requestsPerSecond.toFixed(0)} req/s p50 ${pair.baseline.p50} ms p99 ${pair.baseline.p99} ms` +
          ` | ratio ${(pair.system.requestsPerSecond / pair.baseline.requestsPerSecond).toFixed(2)}, p99 × ${(pair.system.p99 / pair.baseline.p99).toFixed(2)}` +
          (pair.system.non2xx + pair.system.errors > 0
            ? ` (gateway: ${pair.system.non2xx} non-2xx, ${pair.system.errors} errors)`
            : ''),
      );
    }

    const throughputRatio = median(
      runs.map((run) => run.system.requestsPerSecond / run.baseline.requestsPerSecond),
    );
    const p99Ratio = median(runs.map((run) => run.system.p99 / run.baseline.p99));
    const systemFailures = runs.reduce((sum, run) => sum + run.system.non2xx + run.system.errors, 0);
    log('');
    log(`${pad('', 22)}${pad('req/s', 10)}${pad('p50', 10)}p99 (medians of ${ROUNDS} rounds)`);
    for (const which of ['system', 'baseline'] as const) {
      const label = which === 'system' ? 'gateway (processes)' : 'bare Hono+postgres.js';
      log(
        `${pad(label, 22)}${pad(median(runs.map((run) => run[which].requestsPerSecond)).toFixed(0), 10)}` +
          `${pad(`${median(runs.map((run) => run[which].p50))} ms`, 10)}${median(runs.map((run) => run[which].p99))} ms`,
      );
    }
    log('');
    log(`${pad('process', 22)}${pad('idle RSS', 12)}RSS under load (peak)`);
    for (const [name] of pids)
      log(`${pad(name, 22)}${pad(mb(idle.get(name)), 12)}${mb(underLoad.get(name))}`);
    log('');
    const cpuNames = [...new Set(cpuPerRequest.system.flatMap((round) => [...round.keys()]))];
    const cpuMedian = (which: 'system' | 'baseline', name: string) =>
      median(cpuPerRequest[which].map((round) => round.get(name) ?? 0));
    const cpuTotal = (which: 'system' | 'baseline') =>
      median(cpuPerRequest[which].map((round) => [...round.values()].reduce((sum, value) => sum + value, 0)));
    log(
      `${pad('CPU per request', 22)}${pad('gateway run', 14)}baseline run (µs, medians of ${ROUNDS} rounds)`,
    );
    for (const name of cpuNames.sort((a, b) => cpuMedian('system', b) - cpuMedian('system', a)))
      log(
        `${pad(name, 22)}${pad(cpuMedian('system', name).toFixed(0), 14)}${cpuMedian('baseline', name).toFixed(0)}`,
      );
    log(
      `${pad('total', 22)}${pad(cpuTotal('system').toFixed(0), 14)}${cpuTotal('baseline').toFixed(0)}` +
        ` (RabbitMQ's share not counted: its server is shared)`,
    );
    await sql.end();
    log('');
    const services = [...idle].filter(([name]) => name !== 'baseline' && name !== 'bench');
    const largestIdle = Math.max(...services.map(([, value]) => value ?? 0));
    const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
    log(
      `target: gateway ≥ ${TARGET_THROUGHPUT_RATIO * 100} % of the baseline's req/s: ${(throughputRatio * 100).toFixed(0)} % (${verdict(throughputRatio >= TARGET_THROUGHPUT_RATIO)})`,
    );
    log(
      `target: gateway p99 ≤ ${TARGET_P99_RATIO}× the baseline's: ${p99Ratio.toFixed(2)}× (${verdict(p99Ratio <= TARGET_P99_RATIO)})`,
    );
    log(
      `target: idle RSS ≤ ${TARGET_IDLE_RSS_MB} MB per service process: largest ${largestIdle.toFixed(0)} MB (${verdict(largestIdle <= TARGET_IDLE_RSS_MB)})`,
    );
    if (systemFailures > 0) log(`warning: ${systemFailures} requests to the gateway failed or were not 2xx`);
  } catch (error) {
    process.stderr.write(`${serviceOutput.slice(-40).join('\n')}\n${baseline.output.join('')}\n`);
    throw error;
  } finally {
    forgetProcesses();
    await system?.stop();
    await stopChild(baseline.child);
    await infra.drop();
  }
}

main().then(
  () => endBench(0),
  (error) => endBench(1, `bench:links failed: ${(error as Error).stack ?? error}\n`),
);
