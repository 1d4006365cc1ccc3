/**
 * `npm run bench:start`: how long the system takes from start to ready, and its memory when idle.
 *  - one process per service on PostgreSQL and RabbitMQ (as `npm start` with DATABASE_URL and AMQP_URL),
 *    the time from spawning a service to its `/readyz` answering 200:
 *    - each service started alone (nothing else starting beside it: the other services are not needed
 *      for `/readyz`), on an empty database (it applies its migrations) and again on the same database
 *      (migrations applied): the per-process figure;
 *    - all six at once, as `npm start` starts them, on an empty database and again on the same one, and
 *      each process's RSS after BENCH_IDLE_SECONDS (default 5) idle;
 *  - embedded (`npm start` without them): package.json's start command as npm runs it (its Node flags
 *    included, npm itself left out), after the build, from spawning it on an empty DATA_DIR to the
 *    gateway's `/readyz`, then again on the same DATA_DIR (migrations already applied), and the RSS of
 *    its process tree after the idle wait.
 * The first start after a build writes each bundle's code cache (libs/runtime/src/compile-cache.ts): a
 * warm-up start of each service comes first, untimed, as a second `npm start` would find it.
 * Targets printed beside the figures: ≤ 3 s per process, ≤ 5 s embedded, ≤ 100 MB per service process,
 * ≤ 300 MB embedded. Not a test: it prints figures.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ServiceName } from '@payrail/runtime';
import { SERVICES, startProcesses } from '../scripts/processes';
import {
  benchServicesEnv,
  buildServices,
  cleanUpOnInterrupt,
  endBench,
  freshInfrastructure,
  log as logger,
  machine,
  ROOT,
  rssMb,
  servicePortsEnv,
  spawnNode,
  stopChild,
  treeRssMb,
  type Infrastructure,
  undoOnInterrupt,
  waitReady,
} from './support';

const log = logger('bench:start');
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 5);
const PROCESS_TARGET_MS = 3000;
const pad = (text: string, width: number) => text.padEnd(width);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

interface Started {
  /** Start to ready of each service, ms. */
  ready: Map<ServiceName, number>;
  /** Idle RSS of each service's process, MB (when measured). */
  rss: Map<ServiceName, number>;
}

/**
 * Starts `only` (default: every service at once, as `npm start` does) on `infra`, times each one's start
 * to ready, optionally waits idle and reads each process's RSS, and stops them.
 */
async function startAndTime(
  infra: Infrastructure,
  options: { only?: ServiceName[]; idle?: boolean } = {},
): Promise<Started> {
  const ports = await servicePortsEnv();
  const ready = new Map<ServiceName, number>();
  const rss = new Map<ServiceName, number>();
  const output: string[] = [];
  const started = performance.now();
  let system: Awaited<ReturnType<typeof startProcesses>> | undefined;
  // The services have their own process group: a Ctrl-C does not reach them.
  const forgetProcesses = cleanUpOnInterrupt(async () => system?.stop());
  try {
    system = await startProcesses({
      root: ROOT,
      // The pool of each process kept small: the PostgreSQL server may be shared.
      env: { ...benchServicesEnv(infra, ports), DATABASE_POOL_MAX: process.env.DATABASE_POOL_MAX ?? '4' },
      port: ports.gatewayPort,
      compiled: true,
      only: options.only,
      output: (service, line) => output.push(`[${service}] ${line}`),
      onReady: (service) => ready.set(service, performance.now() - started),
    });
    if (options.idle) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
      for (const [name, child] of system.children) rss.set(name, rssMb(child.pid) ?? Number.NaN);
    }
    return { ready, rss };
  } catch (error) {
    process.stderr.write(`${output.slice(-40).join('\n')}\n`);
    throw error;
  } finally {
    forgetProcesses();
    await system?.stop();
  }
}

/** Each service alone: its figures on an empty database, then on the same one with migrations applied. */
async function alone(): Promise<Map<ServiceName, number>> {
  const empty = await freshInfrastructure('start_alone');
  const timed = { empty: new Map<ServiceName, number>(), migrated: new Map<ServiceName, number>() };
  try {
    for (const round of ['empty', 'migrated'] as const)
      for (const name of SERVICES) {
        const { ready } = await startAndTime(empty, { only: [name] });
        timed[round].set(name, ready.get(name) ?? Number.NaN);
      }
  } finally {
    await empty.drop();
  }
  log('one process per service (PostgreSQL, RabbitMQ), each started alone:');
  log(`${pad('service', 20)}${pad('empty database', 17)}migrations applied`);
  for (const name of SERVICES)
    log(
      `${pad(name, 20)}${pad(seconds(timed.empty.get(name) ?? Number.NaN), 17)}${seconds(timed.migrated.get(name) ?? Number.NaN)}`,
    );
  return timed.migrated;
}

/** All six at once, as `npm start`: on an empty database, then again on it with migrations applied. */
async function together(): Promise<Started> {
  const infra = await freshInfrastructure('start');
  try {
    const empty = await startAndTime(infra);
    const migrated = await startAndTime(infra, { idle: true });
    log('one process per service, all six started at once (as npm start):');
    log(`${pad('service', 20)}${pad('empty database', 17)}${pad('migrations applied', 21)}idle RSS`);
    for (const name of SERVICES)
      log(
        `${pad(name, 20)}${pad(seconds(empty.ready.get(name) ?? Number.NaN), 17)}${pad(seconds(migrated.ready.get(name) ?? Number.NaN), 21)}${(migrated.rss.get(name) ?? Number.NaN).toFixed(0)} MB`,
      );
    return migrated;
  } finally {
    await infra.drop();
  }
}

/** Each target's verdict, for the last line. */
const targets: Array<{ name: string; met: boolean; figure: string }> = [];
function judge(name: string, met: boolean, figure: string): string {
  targets.push({ name, met, figure });
  return verdict(met);
}

async function processes(): Promise<void> {
  // A first start of each service after the build writes its code cache; the figures are of the next.
  const warmUp = await freshInfrastructure('start_warmup');
  try {
    // Idle a while: the cache is saved shortly after ready.
    await startAndTime(warmUp, { idle: true });
  } finally {
    await warmUp.drop();
  }
  const each = await alone();
  const all = await together();
  const slowestAlone = Math.max(...each.values());
  const slowestTogether = Math.max(...all.ready.values());
  const largest = Math.max(...all.rss.values());
  log(
    `target: start to ready ≤ 3 s per process (each alone, migrations applied): slowest ${seconds(slowestAlone)} (${judge('process start', slowestAlone <= PROCESS_TARGET_MS, seconds(slowestAlone))})`,
  );
  log(
    `        all six at once (migrations applied): slowest ${seconds(slowestTogether)} (${judge('six at once', slowestTogether <= PROCESS_TARGET_MS, seconds(slowestTogether))})`,
  );
  log(
    `target: idle RSS ≤ 100 MB per service process: largest ${largest.toFixed(0)} MB (${judge('process RSS', largest <= 100, `${largest.toFixed(0)} MB`)})`,
  );
}

/**
 * The arguments of `node` in package.json's start command (`[exec] node <flags> scripts/bootstrap.mjs start`:
 * the shell's `exec` makes node npm's child, so a signal to npm's child reaches it).
 */
function npmStartArgs(
  start = (
    JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
  ).scripts.start,
): string[] {
  const words = start.trim().split(/\s+/);
  const [command, ...args] = words[0] === 'exec' ? words.slice(1) : words;
  if (command !== 'node') throw new Error(`the start command does not run node: ${command}`);
  return args;
}

async function embeddedOnce(dataDir: string, label: string): Promise<{ readyMs: number; rss: number }> {
  const { env: portsEnv, gatewayPort } = await servicePortsEnv();
  const started = performance.now();
  const { child, output } = spawnNode(npmStartArgs(), {
    ...portsEnv,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    AMQP_URL: '',
    LOG_LEVEL: 'warn',
  });
  try {
    await waitReady(`http://127.0.0.1:${gatewayPort}/readyz`, child, 120_000);
    const readyMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const rss = treeRssMb(child.pid) ?? Number.NaN;
    log(`${pad(label, 36)}${pad(seconds(readyMs), 17)}${rss.toFixed(0)} MB`);
    return { readyMs, rss };
  } catch (error) {
    process.stderr.write(output.join(''));
    throw error;
  } finally {
    await stopChild(child);
  }
}

async function embedded(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'payrail-bench-start-'));
  try {
    log(
      `embedded (every service in one process, PGlite), as npm start runs it: node ${npmStartArgs().join(' ')}`,
    );
    log(`${pad('', 36)}${pad('start to ready', 17)}idle RSS`);
    await embeddedOnce(dataDir, 'first start (empty DATA_DIR)');
    const again = await embeddedOnce(dataDir, 'next start (migrations applied)');
    log(
      `target: start to ready ≤ 5 s embedded: ${seconds(again.readyMs)} (${judge('embedded start', again.readyMs <= 5000, seconds(again.readyMs))})`,
    );
    log(
      `target: embedded idle RSS ≤ 300 MB: ${again.rss.toFixed(0)} MB (${judge('embedded RSS', again.rss <= 300, `${again.rss.toFixed(0)} MB`)})`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  undoOnInterrupt(log);
  log(`machine: ${machine()}`);
  buildServices();
  await processes();
  await embedded();
  log(`machine at the end: ${machine()}`);
}

main().then(
  () => {
    // The one last line every bench ends with: the verdict, then each target's figure.
    const passed = targets.length === 5 && targets.every((target) => target.met);
    process.stdout.write(
      `bench:start: ${passed ? 'pass' : 'fail'} ${targets.map((target) => `${target.name} ${target.figure}${target.met ? '' : ' (missed)'}`).join(', ')}\n`,
    );
    return endBench(passed ? 0 : 1);
  },
  (error) => endBench(1, `bench:start failed: ${(error as Error).stack ?? error}\n`),
);
