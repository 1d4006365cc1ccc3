import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  createTestDatabase,
  deleteBrokerTopology,
  type TestDatabase,
  testAmqpUrl,
  uniqueName,
  waitFor,
} from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMERS, freePort, ROOT } from './support';

// What runs in production is compiled: `npm run build` (esbuild) writes services/<name>/dist/main.js, and a
// service starts from it with plain `node`, no tsx. Here links, on the real PostgreSQL and RabbitMQ.
const promtool = spawnSync('promtool', ['--version']).status === 0;
const exchange = uniqueName('compiled_events');
const queuePrefix = `${uniqueName('compiled')}.`;
let testDb: TestDatabase;
let child: ChildProcess;
let url: string;
let output = '';
const bundle = path.join(ROOT, 'services', 'links', 'dist', 'main.bundle.js');

beforeAll(async () => {
  const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(build.status, build.stderr).toBe(0);
  // This start makes the code cache (the build's first one, or an earlier start's, is removed).
  rmSync(`${bundle}.code-cache`, { force: true });
  testDb = await createTestDatabase('compiled');
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, [path.join(ROOT, 'services', 'links', 'dist', 'main.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      DATABASE_URL: testDb.url,
      AMQP_URL: testAmqpUrl(),
      EVENTS_EXCHANGE: exchange,
      QUEUE_PREFIX: queuePrefix,
      INTERNAL_SECRET: 'compiled-internal-secret-0123456789',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk) => (output += String(chunk)));
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`links exited with ${child.exitCode}: ${output}`);
      return (await fetch(`${url}/readyz`).catch(() => undefined))?.ok;
    },
    60_000,
    100,
  );
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await testDb?.drop();
  // Every consumer links declares (the system's list, not one kept here by hand).
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    CONSUMERS.filter((consumer) => consumer.startsWith('links.')).map(
      (consumer) => `${queuePrefix}${consumer}`,
    ),
  ).catch(() => {});
});

describe('a service started from its compiled output', () => {
  it('runs plain JavaScript under node, no loader in between', () => {
    const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(cmdline).toEqual([process.execPath, path.join(ROOT, 'services', 'links', 'dist', 'main.js')]);
  });

  it('runs its bundle with a V8 code cache that it saves once ready, and that a next start accepts', async () => {
    const cache = `${bundle}.code-cache`;
    await waitFor(
      () =>
        existsSync(cache) &&
        readFileSync(cache).subarray(0, 200).toString().split('\n')[0]?.endsWith(' warm'),
      15_000,
      100,
    );
    const content = readFileSync(cache);
    const header = content.subarray(0, content.indexOf(10)).toString();
    expect(header).toContain(` ${process.version} `);
    // What the loader does at the next start, in a fresh process (the bundle is the CommonJS wrapper
    // function itself): V8 takes the saved code.
    const probe = spawnSync(
      process.execPath,
      [
        '-e',
        `const vm = require('node:vm'), fs = require('node:fs');
         const file = process.argv[1], content = fs.readFileSync(file + '.code-cache');
         const script = new vm.Script(fs.readFileSync(file, 'utf8'), {
           filename: file, cachedData: content.subarray(content.indexOf(10) + 1) });
         process.stdout.write(String(script.cachedDataRejected));`,
        bundle,
      ],
      { encoding: 'utf8' },
    );
    expect(probe.stderr).toBe('');
    expect(probe.stdout).toBe('false');
  });

  it('has no PGlite in a service run as its own process (the embedded mode only)', () => {
    const source = readFileSync(bundle, 'utf8');
    expect(source).toMatch(/require\("[^"]*postgres\/cjs\/src\/index\.js"\)/);
    expect(source).not.toMatch(/require\("[^"]*@electric-sql\/pglite[^"]*"\)/);
  });

  it('serves /metrics in the Prometheus text format, with its own series', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(
      /^payrail_http_requests_total\{service="links",method="GET",route="\/healthz",status="200"\} 1$/m,
    );
    expect(text).toMatch(/^payrail_outbox_backlog\{service="links"\} 0$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    if (promtool) {
      const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect(checked.stdout + checked.stderr).toBe('');
      expect(checked.status).toBe(0);
    }
  });
});
