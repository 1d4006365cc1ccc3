import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
import { freePort, ROOT } from './support';

// What runs in production is compiled: `npm run build` (esbuild) writes services/<name>/dist/main.js, and a
// service starts from it with plain `node`, no tsx. Here links, on the real PostgreSQL and RabbitMQ.
const promtool = spawnSync('promtool', ['--version']).status === 0;
const exchange = uniqueName('compiled_events');
const queuePrefix = `${uniqueName('compiled')}.`;
let testDb: TestDatabase;
let child: ChildProcess;
let url: string;
let output = '';

beforeAll(async () => {
  const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(build.status, build.stderr).toBe(0);
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
  await deleteBrokerTopology(testAmqpUrl(), exchange, [
    `${queuePrefix}links.cancel-link-on-subscription-cancelled`,
    `${queuePrefix}links.settle-link-on-payment`,
  ]).catch(() => {});
});

describe('a service started from its compiled output', () => {
  it('runs plain JavaScript under node, no loader in between', () => {
    const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(cmdline).toEqual([process.execPath, path.join(ROOT, 'services', 'links', 'dist', 'main.js')]);
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
