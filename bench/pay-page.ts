/**
 * The pay-page benchmark's work, shared by `npm run bench:pay-page` (pay-page.bench.ts, the size)
 * and its CI smoke test (test-e2e/bench-pay-page.e2e.test.ts, a tiny size): the first request a customer
 * makes, `GET /pay/<slug>` of a pending one-off link, through the gateway with every service its own
 * process on PostgreSQL and RabbitMQ, beside a bare Hono page rendering the same JSX from an in-memory
 * object (pay-page-baseline-server.tsx). Both driven by autocannon at `connections` customers at once,
 * alternating, `rounds` rounds of `seconds`, after a warm-up; each customer opens one of `links` links in
 * turn. The ratio is taken per round (the two sides a few seconds apart), its median reported.
 */
import autocannon from 'autocannon';
import postgres from 'postgres';
import { startProcesses } from '../scripts/processes';
import {
  benchServicesEnv,
  cleanUpOnInterrupt,
  cpuSnapshot,
  cpuUsed,
  demoToken,
  freePort,
  freshInfrastructure,
  median,
  ROOT,
  servicePortsEnv,
  spawnTs,
  stopChild,
  waitReady,
} from './support';

export interface PayPageBenchOptions {
  connections: number;
  rounds: number;
  seconds: number;
  warmUpSeconds: number;
  /** Links created, opened in turn. */
  links: number;
  compiled: boolean;
  /** Each service writes a CPU profile here when it stops (node --cpu-prof); none when unset. */
  profileDir?: string;
  log: (line: string) => void;
}

export interface PageRun {
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Answers not 200, errors and timeouts. */
  failures: number;
  /**
   * CPU milliseconds per page of each process that served it, and of the bench's own (autocannon):
   * `gateway`, `links`, `postgres` (the backends of the bench's database) for the system, `bare page` for
   * the baseline.
   */
  cpuMsPerPage: Record<string, number>;
  /** What the failures were: `non2xx`, `errors` (connections refused or reset), `timeouts` (10 s). */
  failed: { non2xx: number; errors: number; timeouts: number };
}

export interface PayPageBenchResult {
  rounds: Array<{ system: PageRun; baseline: PageRun }>;
  system: PageRun;
  baseline: PageRun;
  /** Median over the rounds of the system's req/s over the baseline's. */
  ratio: number;
  /** Bytes of each side's page (the same JSX: close, not equal: the nonce and the link's href differ). */
  pageBytes: { system: number; baseline: number };
}

const LABEL = 'Gym membership';
const AMOUNT = 150000;

/** CPU ms per request of each process, from the CPU seconds each used. */
function perPage(used: Map<string, number>, requests: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, seconds] of used) if (requests > 0) out[name] = (seconds * 1000) / requests;
  return out;
}

/** `gateway 1.20, links 1.10, …` */
export function cpuLine(cpu: Record<string, number>): string {
  return Object.entries(cpu)
    .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
    .join(', ');
}

async function drive(
  urls: string[],
  connections: number,
  seconds: number,
): Promise<Omit<PageRun, 'cpuMsPerPage'>> {
  let next = 0;
  const result = await autocannon({
    url: urls[0] as string,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => {
          const url = new URL(urls[next++ % urls.length] as string);
          return { ...request, path: url.pathname };
        },
      },
    ],
  });
  return {
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    failed: { non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts },
  };
}

const medianRun = (runs: PageRun[]): PageRun => ({
  cpuMsPerPage: Object.fromEntries(
    Object.keys(runs[0]?.cpuMsPerPage ?? {}).map((name) => [
      name,
      median(runs.map((run) => run.cpuMsPerPage[name] ?? 0)),
    ]),
  ),
  requests: runs.reduce((sum, run) => sum + run.requests, 0),
  requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
  p50: median(runs.map((run) => run.p50)),
  p99: median(runs.map((run) => run.p99)),
  failures: runs.reduce((sum, run) => sum + run.failures, 0),
  failed: {
    non2xx: runs.reduce((sum, run) => sum + run.failed.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.failed.errors, 0),
    timeouts: runs.reduce((sum, run) => sum + run.failed.timeouts, 0),
  },
});

export async function runPayPageBench(options: PayPageBenchOptions): Promise<PayPageBenchResult> {
  const { log } = options;
  const infra = await freshInfrastructure('paypage');
  const token = demoToken();
  const ports = await servicePortsEnv();
  const gatewayUrl = `http://127.0.0.1:${ports.gatewayPort}`;
  const env = { ...benchServicesEnv(infra, ports), DEMO_API_TOKEN: token };
  const serviceOutput: string[] = [];
  const baselinePort = await freePort();
  let baseline: ReturnType<typeof spawnTs> | undefined;
  let system: Awaited<ReturnType<typeof startProcesses>> | undefined;
  let probe: postgres.Sql | undefined;
  const forget = cleanUpOnInterrupt(async () => {
    await system?.stop();
    baseline?.child.kill();
  });
  try {
    system = await startProcesses({
      root: ROOT,
      env,
      port: ports.gatewayPort,
      compiled: options.compiled,
      nodeArgs: options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [],
      output: (service, line) => serviceOutput.push(`[${service}] ${line}`),
    });
    const slugs: string[] = [];
    for (let index = 0; index < options.links; index += 1) {
      const response = await fetch(`${gatewayUrl}/api/saleitems/add`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'api-token': token },
        body: JSON.stringify({
          label: LABEL,
          amount: AMOUNT,
          handleValue: `member${index}@example.com`,
          handleLabel: `Member ${index}`,
          singlePayment: true,
          creditAndDebitCard: true,
        }),
      });
      const body = (await response.json()) as { slug?: string };
      if (response.status !== 200 || !body.slug)
        throw new Error(`link not created: ${response.status} ${JSON.stringify(body)}`);
      slugs.push(body.slug);
    }
    const first = await fetch(`${gatewayUrl}/pay/${slugs[0]}`);
    const systemPage = await first.text();
    if (first.status !== 200 || !systemPage.includes('data-testid="pay-label"'))
      throw new Error(`the pay page answered ${first.status}: ${systemPage.slice(0, 300)}`);
    const merchantName = /data-testid="pay-merchant"[^>]*>([^<]*)</.exec(systemPage)?.[1] ?? 'Demo';
    baseline = spawnTs('bench/pay-page-baseline-server.tsx', {
      PORT: String(baselinePort),
      PAGE_LINK: JSON.stringify({ label: LABEL, amount: `${AMOUNT}.00`, currency: 'PYG', merchantName }),
    });
    const baselineUrl = `http://127.0.0.1:${baselinePort}`;
    await waitReady(`${baselineUrl}/readyz`, baseline.child);
    const baselinePage = await (await fetch(`${baselineUrl}/pay/${slugs[0]}`)).text();
    if (!baselinePage.includes('data-testid="pay-label"'))
      throw new Error(`the baseline page is not the pay page: ${baselinePage.slice(0, 300)}`);

    const urls = {
      system: slugs.map((slug) => `${gatewayUrl}/pay/${slug}`),
      baseline: slugs.map((slug) => `${baselineUrl}/pay/${slug}`),
    };
    log(
      `${options.links} links; warm-up ${options.warmUpSeconds} s each, then ${options.rounds} rounds × ${options.seconds} s each at ${options.connections} customers at once`,
    );
    await drive(urls.baseline, options.connections, options.warmUpSeconds);
    await drive(urls.system, options.connections, options.warmUpSeconds);
    // CPU of each process over a side's run (PostgreSQL's backends of the bench's database among them).
    const pids = {
      system: new Map<string, number | undefined>([
        ['gateway', system.children.get('gateway')?.pid],
        ['links', system.children.get('links')?.pid],
        ['bench', process.pid],
      ]),
      baseline: new Map<string, number | undefined>([
        ['bare page', baseline.child.pid],
        ['bench', process.pid],
      ]),
    };
    probe = postgres(infra.databaseUrl, { max: 1, onnotice: () => {} });
    const measured = async (which: 'system' | 'baseline'): Promise<PageRun> => {
      const sql = probe as postgres.Sql;
      const before = await cpuSnapshot(pids[which], sql);
      const run = await drive(urls[which], options.connections, options.seconds);
      const used = cpuUsed(before, await cpuSnapshot(pids[which], sql));
      if (which === 'baseline') used.delete('postgres');
      return { ...run, cpuMsPerPage: perPage(used, run.requests) };
    };
    const rounds: PayPageBenchResult['rounds'] = [];
    for (let round = 1; round <= options.rounds; round += 1) {
      const order = (round % 2 === 1 ? ['baseline', 'system'] : ['system', 'baseline']) as Array<
        'system' | 'baseline'
      >;
      const results: Partial<Record<'system' | 'baseline', PageRun>> = {};
      for (const which of order) results[which] = await measured(which);
      const pair = results as { system: PageRun; baseline: PageRun };
      rounds.push(pair);
      log(
        `round ${round}: gateway ${pair.system.requestsPerSecond.toFixed(0)} req/s p50 ${pair.system.p50} ms p99 ${pair.system.p99} ms` +
          ` | bare page ${pair.baseline.requestsPerSecond.toFixed(0)} req/s p50 ${pair.baseline.p50} ms p99 ${pair.baseline.p99} ms` +
          ` | ratio ${(pair.system.requestsPerSecond / pair.baseline.requestsPerSecond).toFixed(2)}` +
          (pair.system.failures > 0 ? ` (gateway failed: ${JSON.stringify(pair.system.failed)})` : '') +
          (pair.baseline.failures > 0 ? ` (bare page failed: ${JSON.stringify(pair.baseline.failed)})` : ''),
      );
      log(
        `  CPU ms a page: ${cpuLine(pair.system.cpuMsPerPage)} | bare: ${cpuLine(pair.baseline.cpuMsPerPage)}`,
      );
    }
    return {
      rounds,
      system: medianRun(rounds.map((round) => round.system)),
      baseline: medianRun(rounds.map((round) => round.baseline)),
      ratio: median(rounds.map((round) => round.system.requestsPerSecond / round.baseline.requestsPerSecond)),
      pageBytes: { system: Buffer.byteLength(systemPage), baseline: Buffer.byteLength(baselinePage) },
    };
  } catch (error) {
    log(serviceOutput.slice(-40).join('\n'));
    if (baseline) log(baseline.output.join(''));
    throw error;
  } finally {
    forget();
    await probe?.end();
    await system?.stop();
    if (baseline) await stopChild(baseline.child);
    await infra.drop();
  }
}
