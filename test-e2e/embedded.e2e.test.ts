import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TOKEN, freePort, ROOT } from './support';

// `npm start` as a newcomer runs it: no DATABASE_URL/AMQP_URL, so every service in one process on PGlite.
let child: ChildProcess;
let output = '';
let gatewayUrl = '';
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'payrail-embedded-'));

beforeAll(async () => {
  const port = await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    DEMO_API_TOKEN: DEMO_TOKEN,
  };
  delete env.DATABASE_URL;
  delete env.AMQP_URL;
  child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'bootstrap.mjs'), 'start'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 90_000;
  while (!output.includes('payrail is ready')) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm start was not ready in time:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  gatewayUrl = `http://localhost:${port}`;
});

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start (embedded)', () => {
  it('prints the gateway URL and the demo token once ready', () => {
    expect(output).toContain(`gateway:         ${gatewayUrl}`);
    expect(output).toContain(`demo Api-Token:  ${DEMO_TOKEN}`);
  });

  it('creates a link with the demo token and refuses one without it', async () => {
    const body = JSON.stringify({
      label: 'Gym membership',
      amount: 150000,
      handleValue: 'ana@example.com',
      handleLabel: 'Ana',
      singlePayment: true,
      creditAndDebitCard: true,
    });
    const ok = await fetch(`${gatewayUrl}/api/saleitems/add`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-token': DEMO_TOKEN },
      body,
    });
    expect(ok.status).toBe(200);
    const link = (await ok.json()) as Record<string, unknown>;
    expect(link).toMatchObject({ currency: 'PYG', ammount: '150000.00', statusId: 1 });
    expect(link.publicPayUrl).toBe(`${gatewayUrl}/pay/${link.slug}`);
    const refused = await fetch(`${gatewayUrl}/api/saleitems/add`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(refused.status).toBe(401);
  });

  it('keeps its data in DATA_DIR, one database per service', () => {
    expect(readdirSync(dataDir).sort()).toEqual([
      'billing-scheduler',
      'gateway',
      'links',
      'processor-gateway',
      'subscriptions',
    ]);
  });

  it('shuts down cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
