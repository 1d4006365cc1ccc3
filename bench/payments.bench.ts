/**
 * `npm run bench:payments`: the payments ledger (issue 27) at size. BENCH_ROWS (default 1,000,000) ledger rows
 * of the demo merchant among 20 merchants (the 19 others hold as many rows again between them), inserted in
 * bulk with generate_series (not through the API), then, with the services running as separate processes on
 * PostgreSQL and RabbitMQ as `npm start` runs them:
 *
 * - a page of 50 with a filter (`GET /api/payments?status=declined&limit=50`, newest first, a tenth of the
 *   rows match) through the gateway, after BENCH_WARMUP_SECONDS (default 3) of the same load that is not
 *   measured, driven by autocannon for BENCH_SECONDS (default 10) at BENCH_CONNECTIONS
 *   (default 20), beside a bare baseline: the same SELECT through postgres.js from this process, no service
 *   in between, at the same concurrency (p50, p99, req/s of each);
 * - the export of EXPORT_ROWS (100,000, or half of a smaller BENCH_ROWS) rows as CSV through the gateway, read to the end:
 *   its time, rows/s, every row once, and the peak RSS growth of the serving processes (gateway and
 *   processor-gateway) over their RSS before it.
 *
 * Targets (issue 27): the page ≥ 50 % of the baseline's req/s and p99 ≤ 50 ms; the export ≥ 50,000 rows/s
 * with RSS growth under 50 MB. The last line is `bench:payments: pass|fail` and the figures. Not a test.
 *
 * Also printed: the CPU each process used per page (the services, PostgreSQL's backends, this process with
 * autocannon or the baseline's driver) and per 1,000 exported rows. BENCH_PROFILE_DIR=<dir>: every service
 * writes a CPU profile there when it stops (node --cpu-prof). BENCH_NODE_ARGS: Node options for every service,
 * after their own (`SERVICE_NODE_OPTIONS`). BENCH_EXPLAIN=1: the plans of the page's and
 * the export's statements, as the service prepares them, with `EXPLAIN (ANALYZE, BUFFERS)` before the
 * database is dropped.
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
  freshInfrastructure,
  insertLedgerRows,
  log as logger,
  machine,
  ROOT,
  rssMb,
  servicePortsEnv,
  undoOnInterrupt,
} from './support';

const log = logger('bench:payments');
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const EXPORT_ROWS = Math.min(100_000, Math.floor(ROWS / 2));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Each side runs this long at full load before it is measured (the services' JIT, the plans, the pools). */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const OTHER_MERCHANTS = 19;
const TARGET = { pageRatio: 0.5, pageP99Ms: 50, exportRowsPerSecond: 50_000, rssGrowthMb: 50 };
const PAGE_QUERY = 'status=declined&limit=50';

async function pageThroughGateway(url: string, token: string, seconds = SECONDS) {
  const result = await autocannon({
    url,
    headers: { 'api-token': token },
    connections: CONNECTIONS,
    duration: seconds,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    requests: result.requests.total,
  };
}

/**
 * The same SELECT the service runs for the page, straight through postgres.js, CONNECTIONS at a time: `run`
 * for so many seconds (the warm-up, then the measured run), `end` once its backends' CPU was read.
 */
function pageBaseline(databaseUrl: string, merchantId: string) {
  const sql = postgres(databaseUrl, { max: 10, onnotice: () => {} });
  async function run(seconds: number) {
    const latencies: number[] = [];
    const until = Date.now() + seconds * 1000;
    const worker = async () => {
      while (Date.now() < until) {
        const started = performance.now();
        await sql`
          select *, (extract(epoch from created_at) * 1000000)::bigint as created_micros
          from processor_gateway.ledger
          where merchant_id = ${merchantId} and status = 'declined'
          order by created_at desc, id desc
          limit 51`;
        latencies.push(performance.now() - started);
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
    const elapsed = (Date.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
    return {
      requestsPerSecond: latencies.length / elapsed,
      p50: at(0.5),
      p99: at(0.99),
      requests: latencies.length,
    };
  }
  return { run, end: () => sql.end() };
}

/**
 * The page's and the export's statements with the conditions, order and limit `ledger-store.ts` sends
 * (keep them the same; the store selects each row's written text where these select `*`, which changes
 * the CPU of a row, printed above, not the plan): prepared, as the service's driver prepares them, and
 * explained with the merchant's values, once with a plan made for those values and once with the generic
 * plan PostgreSQL may switch a prepared statement to after five runs.
 */
const EXPLAINED = {
  page: `select *, (extract(epoch from created_at) * 1000000)::bigint as created_micros
    from processor_gateway.ledger
    where merchant_id = $1 and status = $2
    order by created_at desc, id desc
    limit $3`,
  exportBatch: `select *, (extract(epoch from created_at) * 1000000)::bigint as created_micros
    from processor_gateway.ledger
    where merchant_id = $1 and kind = $2
      and (created_at, id) < (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::uuid)
    order by created_at desc, id desc
    limit $5`,
};

async function explainStatements(databaseUrl: string, merchantId: string, exportBatch: number) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const literal = (value: string | number) =>
    typeof value === 'number' ? String(value) : `'${value.replace(/'/g, "''")}'`;
  try {
    // Half-way through the export: the position the batch after it starts from.
    const [middle] = await sql<Array<{ micros: string; id: string }>>`
      select (extract(epoch from created_at) * 1000000)::bigint::text as micros, id::text
      from processor_gateway.ledger where merchant_id = ${merchantId} and kind = 'BANK_TRANSFER'
      order by created_at desc, id desc offset ${Math.floor(EXPORT_ROWS / 2)} limit 1`;
    const runs: Array<[string, string, Array<string | number>]> = [
      ['page', EXPLAINED.page, [merchantId, 'declined', 51]],
      [
        'export batch',
        EXPLAINED.exportBatch,
        [merchantId, 'BANK_TRANSFER', middle?.micros ?? '0', middle?.id ?? merchantId, exportBatch],
      ],
    ];
    for (const [name, text, values] of runs) {
      for (const mode of ['force_custom_plan', 'force_generic_plan']) {
        await sql.unsafe(`set plan_cache_mode = ${mode}`);
        await sql.unsafe(`prepare explained as ${text}`);
        const execute = `execute explained(${values.map(literal).join(', ')})`;
        await sql.unsafe(execute);
        const plan = await sql.unsafe<Array<{ 'QUERY PLAN': string }>>(
          `explain (analyze, buffers) ${execute}`,
        );
        await sql.unsafe('deallocate explained');
        log(`plan of the ${name} (${mode}):`);
        for (const row of plan) log(`  ${row['QUERY PLAN']}`);
      }
    }
  } finally {
    await sql.end();
  }
}

/** CPU milliseconds each process used, per `per` of what was done, as `name 0.12, ...`. */
function cpuPer(used: Map<string, number>, count: number): string {
  return [...used]
    .filter(([, seconds]) => seconds > 0)
    .map(([name, seconds]) => `${name} ${((seconds * 1000) / count).toFixed(2)}`)
    .join(', ');
}

/** Reads the export to the end, counting rows and ids, while sampling the RSS of the serving processes. */
async function exportThroughGateway(url: string, token: string, pids: Map<string, number | undefined>) {
  const before = new Map([...pids].map(([name, pid]) => [name, rssMb(pid) ?? 0]));
  const peak = new Map(before);
  const timer = setInterval(() => {
    for (const [name, pid] of pids) peak.set(name, Math.max(peak.get(name) ?? 0, rssMb(pid) ?? 0));
  }, 100);
  const started = performance.now();
  const response = await fetch(url, { headers: { 'api-token': token, accept: 'text/csv' } });
  if (response.status !== 200 || !response.body) throw new Error(`export answered ${response.status}`);
  const ids = new Set<string>();
  let lines = 0;
  let rest = '';
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    rest += decoder.decode(chunk, { stream: true });
    let end = rest.indexOf('\r\n');
    let start = 0;
    while (end >= 0) {
      const line = rest.slice(start, end);
      if (lines > 0) ids.add(line.slice(0, 36));
      lines += 1;
      start = end + 2;
      end = rest.indexOf('\r\n', start);
    }
    rest = rest.slice(start);
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(timer);
  const growth = new Map([...pids].map(([name]) => [name, (peak.get(name) ?? 0) - (before.get(name) ?? 0)]));
  return { rows: lines - 1, distinct: ids.size, seconds, growth };
}

async function main() {
  undoOnInterrupt(log);
  log(`machine: ${machine()}`);
  log(
    `${ROWS} rows of the merchant among ${OTHER_MERCHANTS + 1}; page ${PAGE_QUERY}; export ${EXPORT_ROWS} rows`,
  );
  buildServices();
  const infra = await freshInfrastructure('payments');
  const token = demoToken();
  const ports = await servicePortsEnv();
  const env = { ...benchServicesEnv(infra, ports), DEMO_API_TOKEN: token };
  let system: Awaited<ReturnType<typeof startProcesses>> | undefined;
  const forget = cleanUpOnInterrupt(async () => {
    await system?.stop();
  });
  const serviceOutput: string[] = [];
  // BENCH_PROFILE_DIR: every service writes a CPU profile there when it stops (node --cpu-prof).
  const profileDir = process.env.BENCH_PROFILE_DIR;
  // BENCH_NODE_ARGS: more Node options for every service, after their own (`SERVICE_NODE_OPTIONS`).
  const nodeArgs = [
    ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
  ];
  try {
    system = await startProcesses({
      root: ROOT,
      env,
      port: ports.gatewayPort,
      compiled: true,
      nodeArgs,
      output: (service, line) => serviceOutput.push(`[${service}] ${line}`),
    });
    const base = `http://127.0.0.1:${ports.gatewayPort}/api/payments`;
    // The demo merchant the token is for, as the API names it.
    const profile = await fetch(`http://127.0.0.1:${ports.gatewayPort}/api/merchant`, {
      headers: { 'api-token': token },
    });
    const merchantId = ((await profile.json()) as { id: string }).id;
    const sql = postgres(infra.databaseUrl, { max: 1, onnotice: () => {} });
    let started = Date.now();
    await insertLedgerRows(sql, merchantId, { rows: ROWS, bankTransfers: EXPORT_ROWS });
    const perOther = Math.ceil(ROWS / OTHER_MERCHANTS);
    for (let index = 0; index < OTHER_MERCHANTS; index += 1)
      await insertLedgerRows(sql, crypto.randomUUID(), {
        rows: perOther,
        bankTransfers: Math.min(EXPORT_ROWS, perOther),
      });
    await sql`analyze processor_gateway.ledger`;
    log(
      `inserted ${ROWS + perOther * OTHER_MERCHANTS} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    await sql.end();

    // Warm-up of both sides at full load (the services' JIT, plans, pools), as long as WARMUP_SECONDS.
    const pageUrl = `${base}?${PAGE_QUERY}`;
    if (WARMUP_SECONDS > 0) await pageThroughGateway(pageUrl, token, WARMUP_SECONDS);
    const pids = new Map<string, number | undefined>([
      ...['gateway', 'processor-gateway'].map(
        (name) => [name, system?.children.get(name as never)?.pid] as [string, number | undefined],
      ),
      ['bench', process.pid],
    ]);
    // CPU of the processes, PostgreSQL's backends of the bench's database among them (this one left out).
    const probe = postgres(infra.databaseUrl, { max: 1, onnotice: () => {} });
    let before = await cpuSnapshot(pids, probe);
    const page = await pageThroughGateway(pageUrl, token);
    const pageCpu = cpuUsed(before, await cpuSnapshot(pids, probe));
    const bare = pageBaseline(infra.databaseUrl, merchantId);
    if (WARMUP_SECONDS > 0) await bare.run(WARMUP_SECONDS);
    before = await cpuSnapshot(pids, probe);
    const baseline = await bare.run(SECONDS);
    const baselineCpu = cpuUsed(before, await cpuSnapshot(pids, probe));
    await bare.end();
    log(
      `page through the gateway: ${page.requestsPerSecond.toFixed(0)} req/s, p50 ${page.p50} ms, p99 ${page.p99} ms` +
        (page.failures > 0 ? ` (${page.failures} failed)` : ''),
    );
    log(
      `baseline (same SELECT, postgres.js): ${baseline.requestsPerSecond.toFixed(0)} req/s, p50 ${baseline.p50.toFixed(1)} ms, p99 ${baseline.p99.toFixed(1)} ms`,
    );
    log(`CPU ms per page: ${cpuPer(pageCpu, page.requests)}`);
    log(`CPU ms per baseline SELECT: ${cpuPer(baselineCpu, baseline.requests)}`);

    const servicePids = new Map([...pids].filter(([name]) => name !== 'bench'));
    started = Date.now();
    before = await cpuSnapshot(pids, probe);
    const exported = await exportThroughGateway(`${base}?kind=BANK_TRANSFER`, token, servicePids);
    const exportCpu = cpuUsed(before, await cpuSnapshot(pids, probe));
    const rowsPerSecond = exported.rows / exported.seconds;
    const growth = Math.max(...exported.growth.values());
    log(
      `export: ${exported.rows} rows (${exported.distinct} distinct) in ${exported.seconds.toFixed(2)} s, ` +
        `${rowsPerSecond.toFixed(0)} rows/s; RSS growth ${[...exported.growth].map(([name, mb]) => `${name} ${mb.toFixed(0)} MB`).join(', ')}`,
    );
    log(`CPU ms per 1,000 exported rows: ${cpuPer(exportCpu, exported.rows / 1000)}`);
    await probe.end();
    if (process.env.BENCH_EXPLAIN === '1') await explainStatements(infra.databaseUrl, merchantId, 1000);

    const ratio = page.requestsPerSecond / baseline.requestsPerSecond;
    const checks = {
      pageRatio: ratio >= TARGET.pageRatio,
      pageP99: page.p99 <= TARGET.pageP99Ms,
      pageFailures: page.failures === 0,
      exportEveryRowOnce: exported.rows === EXPORT_ROWS && exported.distinct === EXPORT_ROWS,
      exportRate: rowsPerSecond >= TARGET.exportRowsPerSecond,
      rss: growth < TARGET.rssGrowthMb,
    };
    for (const [name, ok] of Object.entries(checks)) log(`target ${name}: ${ok ? 'met' : 'NOT met'}`);
    const pass = Object.values(checks).every(Boolean);
    log(
      `bench:payments: ${pass ? 'pass' : 'fail'} (rows ${ROWS}; page ${page.requestsPerSecond.toFixed(0)} req/s = ` +
        `${(ratio * 100).toFixed(0)} % of the baseline's ${baseline.requestsPerSecond.toFixed(0)}, p50 ${page.p50} ms, ` +
        `p99 ${page.p99} ms; export ${exported.rows} rows in ${exported.seconds.toFixed(2)} s = ${rowsPerSecond.toFixed(0)} rows/s, ` +
        `RSS growth ${growth.toFixed(0)} MB)`,
    );
    if (!pass) process.exitCode = 1;
  } catch (error) {
    process.stderr.write(`${serviceOutput.slice(-40).join('\n')}\n`);
    throw error;
  } finally {
    forget();
    await system?.stop();
    await infra.drop();
  }
}

main().then(
  () => endBench(Number(process.exitCode ?? 0)),
  (error) => endBench(1, `bench:payments failed: ${(error as Error).stack ?? error}\n`),
);
