import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  aOneOffLink,
  createTestDatabase,
  deleteBrokerTopology,
  type TestDatabase,
  testAmqpUrl,
  uniqueName,
} from '@payrail/testing';
import { DEFAULT_PORTS } from '@payrail/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANT } from '../services/gateway/src/service';
import { CONSUMERS, DEMO_TOKEN, freePort, ROOT } from './support';

// `npm start` as a user runs it, through the real scripts: `npm start` itself or the process it starts
// (`node scripts/bootstrap.mjs start`), in both modes. What is checked is what the user sees: the
// printed banner, one-line refusals, and that a signal to the top process leaves no process and no port.

interface Started {
  child: ChildProcess;
  output(): string;
}

const OTHER_TOKEN_LINE = /demo Api-Token: {2}([0-9a-f-]{36})/;

function launch(via: 'npm' | 'bootstrap', env: Record<string, string | undefined>): Started {
  const [command, args] =
    via === 'npm'
      ? ['npm', ['start']]
      : [process.execPath, [path.join(ROOT, 'scripts', 'bootstrap.mjs'), 'start']];
  const child = spawn(command as string, args as string[], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, as a command typed in a terminal has: a Ctrl-C there signals the group.
    detached: true,
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return { child, output: () => output };
}

async function ready(started: Started): Promise<Started> {
  const deadline = Date.now() + 170_000;
  while (!started.output().includes('payrail is ready')) {
    if (started.child.exitCode !== null)
      throw new Error(`npm start exited with ${started.child.exitCode}:\n${started.output()}`);
    if (Date.now() > deadline) throw new Error(`npm start was not ready in time:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return started;
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
  });
}

/** Every process below `pid`, from the process table. */
function descendants(pid: number): number[] {
  const table = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift() as number;
    for (const [child, ppid] of table)
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
  }
  return found;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '0.0.0.0', exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * Signals the top process only, as `kill <pid>` does, or its whole process group, as a Ctrl-C in a
 * terminal does; then waits for every process it had started to end and for the ports to be free.
 */
async function signalAndExpectNothingLeft(
  started: Started,
  signal: NodeJS.Signals,
  ports: number[],
  to: 'process' | 'group' = 'process',
) {
  const pid = started.child.pid as number;
  const tree = [pid, ...descendants(pid)];
  const exited = exitOf(started.child);
  process.kill(to === 'group' ? -pid : pid, signal);
  await exited;
  const deadline = Date.now() + 40_000;
  while (tree.some(isRunning) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  expect(tree.filter(isRunning)).toEqual([]);
  for (const port of ports) expect(await portIsFree(port), `port ${port} free`).toBe(true);
}

/**
 * The command lines of a started system's processes: compiled JavaScript under plain node (as in the
 * images), no tsx loader and no esbuild left from the build.
 */
function expectCompiledProcessTree(started: Started) {
  const pid = started.child.pid as number;
  const commands = [pid, ...descendants(pid)].map((each) =>
    readFileSync(`/proc/${each}/cmdline`, 'utf8').split('\0').join(' ').trim(),
  );
  expect(commands.filter((command) => /tsx|esbuild/.test(command))).toEqual([]);
  return commands;
}

/** After a failed test: nothing this file started may keep running. */
function killTree(started: Started | undefined) {
  if (!started?.child.pid || started.child.exitCode !== null) return;
  for (const pid of [started.child.pid, ...descendants(started.child.pid)]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

const START_TIMEOUT = 240_000;

function bannerValue(output: string, label: string): string | undefined {
  return new RegExp(`^ {2}${label}: +(\\S+)`, 'm').exec(output)?.[1];
}

async function merchantCallStatus(gatewayUrl: string, token: string): Promise<number> {
  const response = await fetch(`${gatewayUrl}/api/saleitems/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'api-token': token },
    body: JSON.stringify(aOneOffLink()),
  });
  return response.status;
}

async function adminReadsDemoMerchant(gatewayUrl: string, adminToken: string): Promise<number> {
  const response = await fetch(`${gatewayUrl}/admin/merchants/${DEMO_MERCHANT.merchantId}`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  return response.status;
}

/** A start that must be refused: it exits non-zero at once with one line and no stack trace. */
function expectOneLineRefusal(output: string) {
  const lines = output.trim().split('\n');
  const last = lines.at(-1) ?? '';
  expect(last).toMatch(/^payrail did not start: /);
  expect(output).not.toMatch(/^\s+at /m);
  return last;
}

function baseEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of [
    'DATABASE_URL',
    'AMQP_URL',
    'INTERNAL_SECRET',
    'DEMO_API_TOKEN',
    'ADMIN_TOKEN',
    'PORT',
    'DATA_DIR',
  ])
    delete env[name];
  for (const name of Object.keys(env)) if (name.endsWith('_PORT')) delete env[name];
  return env;
}

describe('npm start with only one of DATABASE_URL and AMQP_URL', () => {
  it.each([
    ['DATABASE_URL', 'AMQP_URL', { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' }],
    ['AMQP_URL', 'DATABASE_URL', { AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672' }],
  ])(
    'refuses to start when only %s is set, and names %s',
    (given, missing, only) => {
      const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'bootstrap.mjs'), 'start'], {
        cwd: ROOT,
        env: { ...baseEnv(), ...only, PORT: '1' },
        encoding: 'utf8',
        // The first start builds what changed (esbuild) before it reads its settings: slow on a busy machine.
        timeout: 150_000,
      });
      expect(result.status).toBe(2);
      const line = expectOneLineRefusal(result.stderr);
      expect(line).toContain(`${given} is set but ${missing} is not`);
      expect(result.stdout).not.toContain('embedded mode');
    },
    180_000,
  );
});

describe('npm start, embedded', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'payrail-start-'));
  let port: number;
  let sandboxPort: number;
  let env: Record<string, string | undefined>;
  let running: Started | undefined;

  beforeAll(async () => {
    port = await freePort();
    sandboxPort = await freePort();
    env = { ...baseEnv(), DATA_DIR: dataDir, PORT: String(port), SANDBOX_PORT: String(sandboxPort) };
  });
  afterAll(() => {
    killTree(running);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'prints the gateway, the demo merchant id, its token and the admin token, which all work',
    async () => {
      running = await ready(launch('bootstrap', { ...env, DEMO_API_TOKEN: DEMO_TOKEN }));
      const output = running.output();
      const gatewayUrl = `http://localhost:${port}`;
      expect(bannerValue(output, 'gateway')).toBe(gatewayUrl);
      expect(bannerValue(output, 'processor sandbox')).toBe(`http://localhost:${sandboxPort}`);
      expect(bannerValue(output, 'demo merchant')).toBe(DEMO_MERCHANT.merchantId);
      expect(bannerValue(output, 'demo Api-Token')).toBe(DEMO_TOKEN);
      const adminToken = bannerValue(output, 'ADMIN_TOKEN') as string;
      expect(adminToken).toMatch(/^[0-9a-f-]{36}$/);
      expect(await merchantCallStatus(gatewayUrl, DEMO_TOKEN)).toBe(200);
      expect(await adminReadsDemoMerchant(gatewayUrl, adminToken)).toBe(200);
    },
    START_TIMEOUT,
  );

  it('runs the compiled system in the one process it started, no tsx', () => {
    const commands = expectCompiledProcessTree(running as Started);
    expect(commands).toEqual([`${process.execPath} ${path.join(ROOT, 'scripts', 'bootstrap.mjs')} start`]);
  });

  it('a second start on the same port says so in one line and leaves the first one working', async () => {
    expect(running?.child.exitCode, 'the first start is still running').toBeNull();
    const second = launch('bootstrap', {
      ...env,
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'payrail-start-')),
    });
    expect(await exitOf(second.child)).toBe(2);
    const line = expectOneLineRefusal(second.output());
    expect(line).toContain(`port ${port} (gateway) is already in use`);
    expect(line).toContain('set PORT');
    expect(await merchantCallStatus(`http://localhost:${port}`, DEMO_TOKEN)).toBe(200);
  });

  it('SIGTERM to the process npm start runs stops it and everything it started, and frees the port', async () => {
    await signalAndExpectNothingLeft(running as Started, 'SIGTERM', [port, sandboxPort]);
  });

  it(
    'a start with a new demo token (npm start, none given) revokes the previous one; Ctrl-C stops all',
    async () => {
      running = await ready(launch('npm', env));
      const token = OTHER_TOKEN_LINE.exec(running.output())?.[1] as string;
      expect(token).not.toBe(DEMO_TOKEN);
      expect(await merchantCallStatus(`http://localhost:${port}`, token)).toBe(200);
      expect(await merchantCallStatus(`http://localhost:${port}`, DEMO_TOKEN)).toBe(401);
      await signalAndExpectNothingLeft(running, 'SIGINT', [port, sandboxPort], 'group');
    },
    START_TIMEOUT,
  );

  it(
    'kill -INT of the npm start process alone stops it and frees the ports, as SIGTERM does',
    async () => {
      running = await ready(launch('npm', env));
      expect(
        await merchantCallStatus(
          `http://localhost:${port}`,
          OTHER_TOKEN_LINE.exec(running.output())?.[1] as string,
        ),
      ).toBe(200);
      await signalAndExpectNothingLeft(running, 'SIGINT', [port, sandboxPort]);
    },
    START_TIMEOUT,
  );
});

describe('npm start, one process per service', () => {
  let testDb: TestDatabase;
  let env: Record<string, string | undefined>;
  let ports: number[];
  let gatewayUrl: string;
  let running: Started | undefined;
  const exchange = uniqueName('start_events');
  const queuePrefix = `${uniqueName('start')}.`;
  // Where the processes' internal secret is kept.
  const secretDir = mkdtempSync(path.join(os.tmpdir(), 'payrail-start-'));

  beforeAll(async () => {
    testDb = await createTestDatabase('start');
    ports = [];
    for (let i = 0; i < 6; i += 1) ports.push(await freePort());
    const [gateway, links, subscriptions, scheduler, processorGateway, sandbox] = ports as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    gatewayUrl = `http://localhost:${gateway}`;
    env = {
      ...baseEnv(),
      DATA_DIR: secretDir,
      DATABASE_URL: testDb.url,
      AMQP_URL: testAmqpUrl(),
      EVENTS_EXCHANGE: exchange,
      QUEUE_PREFIX: queuePrefix,
      LOG_LEVEL: 'warn',
      PORT: String(gateway),
      LINKS_PORT: String(links),
      SUBSCRIPTIONS_PORT: String(subscriptions),
      BILLING_SCHEDULER_PORT: String(scheduler),
      PROCESSOR_GATEWAY_PORT: String(processorGateway),
      PROCESSOR_SANDBOX_PORT: String(sandbox),
    };
  });
  afterAll(async () => {
    killTree(running);
    await testDb?.drop();
    rmSync(secretDir, { recursive: true, force: true });
    await deleteBrokerTopology(
      testAmqpUrl(),
      exchange,
      CONSUMERS.map((consumer) => `${queuePrefix}${consumer}`),
    ).catch(() => {});
  });

  it(
    'prints the demo merchant id, its token and the admin token, which all work',
    async () => {
      running = await ready(launch('npm', { ...env, DEMO_API_TOKEN: DEMO_TOKEN }));
      const output = running.output();
      expect(output).toContain('payrail is ready (one process per service');
      expect(bannerValue(output, 'gateway')).toBe(gatewayUrl);
      expect(bannerValue(output, 'demo merchant')).toBe(DEMO_MERCHANT.merchantId);
      expect(bannerValue(output, 'demo Api-Token')).toBe(DEMO_TOKEN);
      const adminToken = bannerValue(output, 'ADMIN_TOKEN') as string;
      expect(adminToken).toMatch(/^[0-9a-f-]{36}$/);
      expect(await merchantCallStatus(gatewayUrl, DEMO_TOKEN)).toBe(200);
      expect(await adminReadsDemoMerchant(gatewayUrl, adminToken)).toBe(200);
    },
    START_TIMEOUT,
  );

  it('sends login codes somewhere a customer can sign in with: the development mailbox, said in the banner', async () => {
    const output = (running as Started).output();
    expect(output).toContain(`  login codes:     not mailed: read them at ${gatewayUrl}/dev/mailbox`);
    const mailbox = await fetch(`${gatewayUrl}/dev/mailbox`);
    expect(mailbox.status).toBe(200);
    expect(Array.isArray(await mailbox.json())).toBe(true);
    // No warning that codes cannot be sent: they can.
    expect(output).not.toMatch(/login codes cannot be sent/);
  });

  it('runs every service from its compiled bundle under plain node, no tsx', () => {
    const commands = expectCompiledProcessTree(running as Started);
    for (const service of Object.keys(DEFAULT_PORTS))
      expect(commands).toContain(
        // With the young generation the images give them too (SERVICE_NODE_OPTIONS, NODE_OPTIONS).
        `${process.execPath} --max-semi-space-size=32 ${path.join(ROOT, 'services', service, 'dist', 'main.js')}`,
      );
  });

  it('a second start on the same ports says so in one line', async () => {
    expect(running?.child.exitCode, 'the first start is still running').toBeNull();
    const second = launch('bootstrap', env);
    expect(await exitOf(second.child)).toBe(2);
    const line = expectOneLineRefusal(second.output());
    expect(line).toContain(`port ${ports[0]} (gateway) is already in use`);
  });

  it('SIGTERM to npm start stops every service process and frees all six ports', async () => {
    await signalAndExpectNothingLeft(running as Started, 'SIGTERM', ports);
  });

  it(
    'a start with another demo token revokes the previous one; SIGINT to its top process stops all',
    async () => {
      running = await ready(launch('bootstrap', env));
      const token = OTHER_TOKEN_LINE.exec(running.output())?.[1] as string;
      expect(token).not.toBe(DEMO_TOKEN);
      expect(await merchantCallStatus(gatewayUrl, token)).toBe(200);
      expect(await merchantCallStatus(gatewayUrl, DEMO_TOKEN)).toBe(401);
      await signalAndExpectNothingLeft(running, 'SIGINT', ports);
    },
    START_TIMEOUT,
  );

  it(
    'kill -INT of the npm start process alone (not its group) stops every service and frees all six ports',
    async () => {
      running = await ready(launch('npm', env));
      expect(
        await merchantCallStatus(gatewayUrl, OTHER_TOKEN_LINE.exec(running.output())?.[1] as string),
      ).toBe(200);
      await signalAndExpectNothingLeft(running, 'SIGINT', ports);
    },
    START_TIMEOUT,
  );
});
