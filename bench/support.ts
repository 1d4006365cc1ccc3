/** What the system benchmarks share: a throw-away database and broker names, free ports, RSS, figures. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import amqp from 'amqplib';
import postgres from 'postgres';
import { CONSUMERS, freePort } from '../scripts/processes';

const LOCAL_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The PostgreSQL server the benches use: `DATABASE_URL`'s, else the local one. */
const serverUrl = () => process.env.DATABASE_URL ?? LOCAL_POSTGRES_URL;
const LOCAL_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

/** Removes the bench's exchange and each consumer's main, retry and dead-letter queues. */
async function deleteBrokerTopology(url: string, exchange: string, queues: string[]): Promise<void> {
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    for (const queue of queues)
      for (const name of [queue, `${queue}.retry`, `${queue}.dlq`]) await channel.deleteQueue(name);
    await channel.deleteExchange(exchange);
    await channel.close();
  } finally {
    await connection.close();
  }
}

export const ROOT = path.resolve(__dirname, '..');

/** What an interrupted bench still has to undo, in the order it was set up. */
const onInterrupt: Array<() => Promise<void>> = [];

/**
 * Registers what to undo should the bench be interrupted before its own `finally` ran (its processes
 * stopped, its database and broker queues removed). The undoing runs last registered first, as nested
 * `finally` blocks would. Returns the function that unregisters it, for when the bench undid it itself.
 * Nothing runs unless the bench's entry point called `undoOnInterrupt()`.
 */
export function cleanUpOnInterrupt(cleanup: () => Promise<void>): () => void {
  onInterrupt.push(cleanup);
  return () => {
    const index = onInterrupt.indexOf(cleanup);
    if (index >= 0) onInterrupt.splice(index, 1);
  };
}

/** Set once a signal's undoing began: the process ends when it is done, not before. */
let interrupted = false;

/** Whether a signal's undoing is under way (a failure now is most likely its doing). */
export const interruptedNow = (): boolean => interrupted;

/**
 * How a bench's entry point ends (`main().then(() => endBench(0), (error) => endBench(1, …))`). While an
 * interrupt is being undone, the bench's own failure (its services were just stopped under it: a publish on
 * a closed channel, a refused connection) does not end the process before its database and broker names
 * are removed: the interrupt's handler ends it with 130 or 143 once they are.
 */
export function endBench(code: number, failure?: string): void {
  if (interrupted) return;
  if (failure !== undefined) process.stderr.write(failure);
  process.exit(code);
}

/**
 * For a bench's entry point: on Ctrl-C (SIGINT) or SIGTERM, what `cleanUpOnInterrupt` registered is undone
 * before the process ends (130 or 143), so that a stopped bench leaves no database, exchange or queues
 * behind. A second signal ends it at once.
 */
export function undoOnInterrupt(write: (line: string) => void): void {
  const handle = (signal: NodeJS.Signals) => {
    const code = signal === 'SIGINT' ? 130 : 143;
    if (interrupted) process.exit(code);
    interrupted = true;
    // What stopping the services breaks under the bench (an amqplib channel's error event, a request's
    // rejection nobody awaits any more) is reported, not allowed to end the process before the undoing.
    const report = (error: unknown) =>
      write(`while undoing ${signal}: ${error instanceof Error ? error.message : String(error)}`);
    process.on('uncaughtException', report);
    process.on('unhandledRejection', report);
    write(
      `${signal}: stopping the services, removing the bench's database and broker queues (again to quit now)`,
    );
    void (async () => {
      for (const cleanup of [...onInterrupt].reverse()) await cleanup().catch(() => undefined);
      process.exit(code);
    })();
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
}

export const log = (bench: string) => (line: string) => process.stdout.write(`[${bench}] ${line}\n`);

export interface Infrastructure {
  databaseUrl: string;
  amqpUrl: string;
  exchange: string;
  queuePrefix: string;
  /** The database's name on the server. */
  database: string;
  drop(): Promise<void>;
}

/**
 * A fresh database on the server of `DATABASE_URL` (default the local one) and unique broker names on
 * `AMQP_URL`'s RabbitMQ: nothing another run or a test uses. `drop()` removes both.
 */
export async function freshInfrastructure(name: string, template?: string): Promise<Infrastructure> {
  const server = serverUrl();
  const amqpUrl = process.env.AMQP_URL ?? LOCAL_AMQP_URL;
  const suffix = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const database = `payrail_bench_${name}_${suffix}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${database}"${template ? ` template "${template}"` : ''}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${database}`;
  const exchange = `bench_${name}_${suffix}`;
  const queuePrefix = `bench_${name}_${suffix}.`;
  const drop = async () => {
    forget();
    await deleteBrokerTopology(
      amqpUrl,
      exchange,
      CONSUMERS.map((consumer) => `${queuePrefix}${consumer}`),
    ).catch(() => undefined);
    const again = postgres(server, { max: 1, onnotice: () => {} });
    await again.unsafe(`drop database if exists "${database}" with (force)`).catch(() => undefined);
    await again.end();
  };
  const forget = cleanUpOnInterrupt(drop);
  return { databaseUrl: url.toString(), database, amqpUrl, exchange, queuePrefix, drop };
}

export { freePort };

/** Whether the server has a database of that name. */
export async function databaseExists(name: string): Promise<boolean> {
  const server = postgres(serverUrl(), { max: 1, onnotice: () => {} });
  try {
    return (await server`select 1 from pg_database where datname = ${name}`).length > 0;
  } finally {
    await server.end();
  }
}

/** Copies `source` (which must have no connections) as the database `name`. */
export async function copyDatabase(source: string, name: string): Promise<void> {
  const server = postgres(serverUrl(), { max: 1, onnotice: () => {} });
  try {
    await server.unsafe(`create database "${name}" template "${source}"`);
  } finally {
    await server.end();
  }
}

/** Free ports for every service, as the `<NAME>_PORT` variables `npm start` reads (the gateway's is PORT). */
export async function servicePortsEnv(): Promise<{ env: Record<string, string>; gatewayPort: number }> {
  const env: Record<string, string> = {};
  for (const name of ['LINKS', 'SUBSCRIPTIONS', 'BILLING_SCHEDULER', 'PROCESSOR_GATEWAY', 'SANDBOX'])
    env[`${name}_PORT`] = String(await freePort());
  const gatewayPort = await freePort();
  env.PORT = String(gatewayPort);
  return { env, gatewayPort };
}

/** Resident set size of a process in MB (Linux /proc), or undefined where it cannot be read. */
export function rssMb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Polls `url` until it answers 2xx; rejects when the child exits or the time runs out. */
export async function waitReady(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with code ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${url} was not ready after ${timeoutMs} ms`);
}

/** Starts Node with `args` as its own process (output kept for a failure report). */
export function spawnNode(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; output: string[] } {
  const output: string[] = [];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr])
    stream?.on('data', (chunk) => output.push(String(chunk)));
  return { child, output };
}

/** Starts a TypeScript file as its own Node process, through tsx. */
export function spawnTs(
  file: string,
  env: Record<string, string>,
): { child: ChildProcess; output: string[] } {
  return spawnNode(['--import', 'tsx', file], env);
}

/** Resident set size of a process and every process below it, in MB (Linux `ps`). */
export function treeRssMb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  const table = spawnSync('ps', ['-A', '-o', 'pid=,ppid=,rss='], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number, number]);
  let kb = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift() as number;
    for (const [each, parent, rss] of table) {
      if (each === current) kb += rss;
      if (parent === current) queue.push(each);
    }
  }
  return kb > 0 ? kb / 1024 : undefined;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux), or 0 where unreadable. */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    // Fields after the command's parenthesis: state is field 3, utime 14 and stime 15 (clock ticks, 100/s).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The pids of processes whose command is `name` (e.g. RabbitMQ's `beam.smp`), from /proc. */
export function pidsNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * CPU seconds used so far by each of `pids`, and by each PostgreSQL backend serving the database `sql` is
 * connected to (keyed `postgres:<pid>`; the server's shared processes are left out). `cpuUsed` turns two of
 * these into seconds per process, the backends summed as `postgres`.
 */
export async function cpuSnapshot(
  pids: Map<string, number | undefined>,
  sql: postgres.Sql,
): Promise<Map<string, number>> {
  const backends = await sql<Array<{ pid: number }>>`
    select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
  const figures = new Map([...pids].map(([name, pid]) => [name, cpuSeconds(pid)]));
  for (const { pid } of backends) figures.set(`postgres:${pid}`, cpuSeconds(pid));
  return figures;
}

/** CPU seconds each process used between two `cpuSnapshot`s (a backend that started in between counts whole). */
export function cpuUsed(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const used = new Map<string, number>();
  for (const [key, seconds] of after) {
    const name = key.startsWith('postgres:') ? 'postgres' : key;
    used.set(name, (used.get(name) ?? 0) + Math.max(0, seconds - (before.get(key) ?? 0)));
  }
  return used;
}

export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** One line describing the machine, printed with every figure. */
export function machine(): string {
  const cpus = os.cpus();
  const load = os.loadavg().map((value) => value.toFixed(2));
  return `${cpus.length} × ${cpus[0]?.model ?? 'CPU'}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GB RAM, ${os.type()} ${os.release()}, Node ${process.versions.node}, load average ${load.join(' ')}`;
}

export const demoToken = () => randomUUID();

/**
 * What every bench gives its services: its database and broker names, the ports of `servicePortsEnv`, fresh
 * tokens and secret, the gateway's public URL, `LOG_LEVEL` (default warn). Add or override what a bench needs.
 */
export function benchServicesEnv(
  infra: Infrastructure,
  ports: { env: Record<string, string>; gatewayPort: number },
): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    ...ports.env,
    DATABASE_URL: infra.databaseUrl,
    AMQP_URL: infra.amqpUrl,
    EVENTS_EXCHANGE: infra.exchange,
    QUEUE_PREFIX: infra.queuePrefix,
    DEMO_API_TOKEN: demoToken(),
    ADMIN_TOKEN: demoToken(),
    INTERNAL_SECRET: `bench-${demoToken()}`,
    PUBLIC_BASE_URL: `http://127.0.0.1:${ports.gatewayPort}`,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // As deployed: published outbox rows deleted (the test suites, which run the bench's smoke test, keep them).
    OUTBOX_KEEP_PUBLISHED: 'false',
  };
}

/** `npm run build` (skipped when nothing changed): the benches run the compiled services, as images do. */
export function buildServices(): void {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm run build failed');
}

/** Autovacuum's thresholds, as the server has them set. */
interface AutovacuumSettings {
  naptimeSeconds: number;
  vacuumThreshold: number;
  vacuumScaleFactor: number;
  insertThreshold: number;
  insertScaleFactor: number;
  analyzeThreshold: number;
  analyzeScaleFactor: number;
  costDelayMs: number;
}

/** One table the stand-in vacuumed or analyzed: when it began (epoch ms) and how long it took. */
export interface AutovacuumAction {
  table: string;
  what: 'vacuum' | 'vacuum (analyze)' | 'analyze';
  at: number;
  ms: number;
}

export interface AutovacuumStandIn {
  /** Tables vacuumed and analyzed so far. */
  readonly vacuumed: number;
  readonly analyzed: number;
  /** What it did so far, in order (empty when the server's own autovacuum is on). */
  readonly actions: readonly AutovacuumAction[];
  stop(): Promise<void>;
}

/**
 * What autovacuum does for one database, on a server that runs without it (this machine's PostgreSQL has
 * `autovacuum = off` for its tests): every `autovacuum_naptime`, each table past autovacuum's thresholds
 * (dead rows, rows inserted since the last vacuum, rows changed since the last analyze) is vacuumed or
 * analyzed, throttled by `autovacuum_vacuum_cost_delay` as autovacuum is. Without it a benchmark's tables
 * never get statistics, and the plans its services prepared on empty tables (sequential scans, hash joins)
 * are kept for ever. Does nothing when the server's own autovacuum is on.
 */
export async function autovacuumStandIn(databaseUrl: string): Promise<AutovacuumStandIn> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const settings = await sql<Array<{ name: string; setting: string }>>`
    select name, setting from pg_settings where name like 'autovacuum%'`;
  const setting = (name: string) => Number(settings.find((row) => row.name === name)?.setting);
  const state = { vacuumed: 0, analyzed: 0 };
  const actions: AutovacuumAction[] = [];
  if (settings.find((row) => row.name === 'autovacuum')?.setting === 'on') {
    await sql.end();
    return { ...state, actions, stop: async () => undefined };
  }
  const limits: AutovacuumSettings = {
    naptimeSeconds: setting('autovacuum_naptime'),
    vacuumThreshold: setting('autovacuum_vacuum_threshold'),
    vacuumScaleFactor: setting('autovacuum_vacuum_scale_factor'),
    insertThreshold: setting('autovacuum_vacuum_insert_threshold'),
    insertScaleFactor: setting('autovacuum_vacuum_insert_scale_factor'),
    analyzeThreshold: setting('autovacuum_analyze_threshold'),
    analyzeScaleFactor: setting('autovacuum_analyze_scale_factor'),
    costDelayMs: setting('autovacuum_vacuum_cost_delay'),
  };
  await sql.unsafe(`set vacuum_cost_delay = '${limits.costDelayMs}ms'`);
  let stopped = false;
  let wake: (() => void) | undefined;
  const pass = async () => {
    const tables = await sql<
      Array<{ name: string; dead: number; inserted: number; changed: number; tuples: number }>
    >`
      select format('%I.%I', s.schemaname, s.relname) as name, s.n_dead_tup::float8 as dead,
             s.n_ins_since_vacuum::float8 as inserted, s.n_mod_since_analyze::float8 as changed,
             greatest(c.reltuples, 0)::float8 as tuples
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid`;
    for (const table of tables) {
      if (stopped) return;
      const vacuum =
        table.dead > limits.vacuumThreshold + limits.vacuumScaleFactor * table.tuples ||
        table.inserted > limits.insertThreshold + limits.insertScaleFactor * table.tuples;
      const analyze = table.changed > limits.analyzeThreshold + limits.analyzeScaleFactor * table.tuples;
      if (!vacuum && !analyze) continue;
      const what = vacuum ? (analyze ? 'vacuum (analyze)' : 'vacuum') : 'analyze';
      const at = Date.now();
      await sql.unsafe(`${what} ${table.name}`);
      actions.push({ table: table.name, what, at, ms: Date.now() - at });
      if (vacuum) state.vacuumed += 1;
      if (analyze) state.analyzed += 1;
    }
  };
  const loop = (async () => {
    while (!stopped) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, limits.naptimeSeconds * 1000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (!stopped) await pass().catch(() => undefined);
    }
  })();
  return {
    get vacuumed() {
      return state.vacuumed;
    },
    get analyzed() {
      return state.analyzed;
    },
    actions,
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      await sql.end();
    },
  };
}

/**
 * A merchant's payments ledger at size, straight into `processor_gateway.ledger` with generate_series (not
 * through the API), in statements of 100,000 rows: row g is `g × secondsApart` seconds back from now
 * (default 1), a tenth of the card rows declined; the first `bankTransfers` rows bank transfers, the
 * others card payments and installment charges, alternately. Used by bench:payments and bench:console.
 */
export async function insertLedgerRows(
  sql: postgres.Sql,
  merchantId: string,
  options: { rows: number; bankTransfers?: number; secondsApart?: number },
): Promise<void> {
  const { rows } = options;
  const transfers = options.bankTransfers ?? 0;
  const apart = options.secondsApart ?? 1;
  const chunk = 100_000;
  for (let from = 1; from <= rows; from += chunk) {
    const to = Math.min(rows, from + chunk - 1);
    await sql`
      insert into processor_gateway.ledger
        (id, merchant_id, kind, status, method, processor, amount, currency, card_brand, card_last4,
         link_id, label, handle_value, handle_label, custom_identifier, reference, created_at, settled_at,
         decline_code, decline_category)
      select gen_random_uuid(), ${merchantId}::uuid,
             case when g <= ${transfers} then 'BANK_TRANSFER' when g % 2 = 0 then 'LINK_PAYMENT' else 'INSTALLMENT_CHARGE' end,
             case when g % 10 = 0 and g > ${transfers} then 'declined' else 'succeeded' end,
             case when g <= ${transfers} then 'BANK_TRANSFER' else 'CARD' end,
             case when g <= ${transfers} then null else 'PARAGUAY.PROCESSOR_A' end,
             ((g % 500) * 1000 + 1000)::numeric, 'PYG',
             case when g <= ${transfers} then null else 'VISA' end,
             case when g <= ${transfers} then null else lpad((g % 10000)::text, 4, '0') end,
             g % 50000 + 1, 'Plan "' || (g % 100) || '", monthly', 'customer' || (g % 20000) || '@example.com',
             'Customer ' || (g % 20000), 'CUST-' || (g % 20000),
             case when g <= ${transfers} then 'TRF-' || g else null end,
             now() - g * ${apart}::float8 * interval '1 second', now() - g * ${apart}::float8 * interval '1 second',
             case when g % 10 = 0 and g > ${transfers} then 'INSUFFICIENT_FUNDS' else null end,
             case when g % 10 = 0 and g > ${transfers} then 'soft' else null end
      from generate_series(${from}::int, ${to}::int) g`;
  }
}
