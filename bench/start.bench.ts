/**
 * `npm run bench:start`: how long the system takes from start to ready, and its memory when idle.
 *  - one process per service on PostgreSQL and RabbitMQ (as `npm start` with DATABASE_URL and AMQP_URL):
 *    the time from spawning each service to its `/readyz` answering 200 (all six start at once, as
 *    `npm start` starts them), and each one's RSS after BENCH_IDLE_SECONDS (default 5) idle;
 *  - embedded (`npm start` without them): package.json's start command as npm runs it (its Node flags
 *    included, npm itself left out), after the build, from spawning it on an empty DATA_DIR to the
 *    gateway's `/readyz`, then again on the same DATA_DIR (migrations already applied), and the RSS of
 *    its process tree after the idle wait.
 * Targets printed beside the figures: ≤ 3 s per process, ≤ 5 s embedded, ≤ 100 MB per service process,
 * ≤ 300 MB embedded. Not a test: it prints figures.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startProcesses } from '../scripts/processes';
import {
  buildServices,
  demoToken,
  freshInfrastructure,
  log as logger,
  machine,
  ROOT,
  rssMb,
  servicePortsEnv,
  spawnNode,
  stopChild,
  treeRssMb,
  waitReady,
} from './support';

const log = logger('bench:start');
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 5);
const pad = (text: string, width: number) => text.padEnd(width);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

async function processes(): Promise<void> {
  const infra = await freshInfrastructure('start');
  const { env: portsEnv, gatewayPort } = await servicePortsEnv();
  const readyAfter = new Map<string, number>();
  const output: string[] = [];
  const started = performance.now();
  let system: Awaited<ReturnType<typeof startProcesses>> | undefined;
  try {
    system = await startProcesses({
      root: ROOT,
      env: {
        ...(process.env as Record<string, string>),
        ...portsEnv,
        DATABASE_URL: infra.databaseUrl,
        AMQP_URL: infra.amqpUrl,
        EVENTS_EXCHANGE: infra.exchange,
        QUEUE_PREFIX: infra.queuePrefix,
        DEMO_API_TOKEN: demoToken(),
        ADMIN_TOKEN: demoToken(),
        INTERNAL_SECRET: `bench-${demoToken()}`,
        LOG_LEVEL: 'warn',
      },
      port: gatewayPort,
      compiled: true,
      output: (service, line) => output.push(`[${service}] ${line}`),
      onReady: (service) => readyAfter.set(service, performance.now() - started),
    });
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    log('one process per service (PostgreSQL, RabbitMQ), all started at once:');
    log(`${pad('service', 20)}${pad('start to ready', 17)}idle RSS`);
    let slowest = 0;
    let largest = 0;
    for (const [name, child] of system.children) {
      const ready = readyAfter.get(name) ?? Number.NaN;
      const rss = rssMb(child.pid) ?? Number.NaN;
      slowest = Math.max(slowest, ready);
      largest = Math.max(largest, rss);
      log(`${pad(name, 20)}${pad(seconds(ready), 17)}${rss.toFixed(0)} MB`);
    }
    log(
      `target: start to ready ≤ 3 s per process: slowest ${seconds(slowest)} (${verdict(slowest <= 3000)})`,
    );
    log(
      `target: idle RSS ≤ 100 MB per service process: largest ${largest.toFixed(0)} MB (${verdict(largest <= 100)})`,
    );
  } catch (error) {
    process.stderr.write(`${output.slice(-40).join('\n')}\n`);
    throw error;
  } finally {
    await system?.stop();
    await infra.drop();
  }
}

/** The arguments of `node` in package.json's start command (`node <flags> scripts/bootstrap.mjs start`). */
function npmStartArgs(): string[] {
  const [command, ...args] = (
    JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
  ).scripts.start.split(/\s+/);
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
      `target: start to ready ≤ 5 s embedded: ${seconds(again.readyMs)} (${verdict(again.readyMs <= 5000)})`,
    );
    log(`target: embedded idle RSS ≤ 300 MB: ${again.rss.toFixed(0)} MB (${verdict(again.rss <= 300)})`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  log(`machine: ${machine()}`);
  buildServices();
  await processes();
  await embedded();
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench:start failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
