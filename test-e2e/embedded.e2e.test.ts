import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { aOneOffLink } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TOKEN, freePort, ROOT } from './support';

// `npm start` as a newcomer runs it: no DATABASE_URL/AMQP_URL, so every service in one process on PGlite.
interface Embedded {
  child: ChildProcess;
  output: () => string;
  gatewayUrl: string;
}

type Json = Record<string, unknown>;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'payrail-embedded-'));
let running: Embedded;

async function startEmbedded(): Promise<Embedded> {
  const port = await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    // Its own free port too: PORT + 5 (the default) may be taken, by another test or an outgoing
    // connection's ephemeral port (it once was, between a stop and the restart).
    SANDBOX_PORT: String(await freePort()),
    DEMO_API_TOKEN: DEMO_TOKEN,
  };
  delete env.DATABASE_URL;
  delete env.AMQP_URL;
  delete env.INTERNAL_SECRET;
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'bootstrap.mjs'), 'start'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
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
  return { child, output: () => output, gatewayUrl: `http://localhost:${port}` };
}

async function stopEmbedded(system: Embedded): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => system.child.once('exit', (code) => resolve(code)));
  system.child.kill('SIGTERM');
  return exited;
}

const linkBody = JSON.stringify(aOneOffLink());

function createLink(gatewayUrl: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${gatewayUrl}/api/saleitems/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: linkBody,
  });
}

beforeAll(async () => {
  running = await startEmbedded();
});

afterAll(() => {
  if (running && running.child.exitCode === null) running.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start (embedded)', () => {
  let firstLink: Record<string, unknown>;

  it('prints the gateway URL and the demo token once ready', () => {
    expect(running.output()).toContain(`gateway:         ${running.gatewayUrl}`);
    expect(running.output()).toContain(`demo Api-Token:  ${DEMO_TOKEN}`);
  });

  it('creates a link with the demo token and refuses one without it', async () => {
    const ok = await createLink(running.gatewayUrl, {
      'api-token': DEMO_TOKEN,
      'idempotency-key': 'restart-1',
    });
    expect(ok.status).toBe(200);
    firstLink = (await ok.json()) as Record<string, unknown>;
    expect(firstLink).toMatchObject({ currency: 'PYG', ammount: '150000.00', statusId: 1 });
    expect(firstLink.publicPayUrl).toBe(`${running.gatewayUrl}/pay/${firstLink.slug}`);
    expect((await createLink(running.gatewayUrl, {})).status).toBe(401);
  });

  it("serves the link's pay page through the gateway with its security headers (links read in memory)", async () => {
    const response = await fetch(firstLink.publicPayUrl as string);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(html).toContain('data-testid="pay-label"');
    const csp = response.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(html).toContain(`nonce="${nonce}"`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('keeps the mail it would send in the development mailbox, shown at GET /dev/mailbox (on by default here)', async () => {
    const loginPath = `/pay/${firstLink.slug}/login`;
    const form = await fetch(`${running.gatewayUrl}${loginPath}`);
    const csrfCookie = form.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const sent = await fetch(`${running.gatewayUrl}${loginPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
      body: new URLSearchParams({ _csrf: csrf, step: 'send', email: 'embedded@example.com' }).toString(),
    });
    expect(sent.status).toBe(200);
    const mailbox = await fetch(`${running.gatewayUrl}/dev/mailbox`);
    expect(mailbox.status).toBe(200);
    const [newest] = (await mailbox.json()) as Array<{ to: string; text: string }>;
    expect(newest?.to).toBe('embedded@example.com');
    expect(newest?.text).toMatch(/\b\d{6}\b/);
  });

  it('keeps its data in DATA_DIR, one database for every service', () => {
    expect(readdirSync(dataDir).sort()).toEqual([
      'internal-secret',
      'pglite',
      'start.pid',
      'webhook-encryption-key',
    ]);
  });

  it('sends webhooks to a receiver on this machine (allowed in embedded mode), from the PGlite event log', async () => {
    const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
    const receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const headers = { 'content-type': 'application/json', 'api-token': DEMO_TOKEN };
      const { port } = receiver.address() as AddressInfo;
      const endpoint = await fetch(`${running.gatewayUrl}/api/webhook-endpoints`, {
        method: 'POST',
        headers,
        // Every kind: the payment and the transfer's notice (a new endpoint takes the payment events only).
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hooks`, events: ['*'] }),
      });
      expect(endpoint.status).toBe(201);
      const link = (await (await createLink(running.gatewayUrl, { 'api-token': DEMO_TOKEN })).json()) as {
        id: number;
      };
      const paid = await fetch(`${running.gatewayUrl}/api/bank-notification/add`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          payRequestId: link.id,
          amount: 150000,
          currency: 'PYG',
          bankName: 'Banco Nacional de Fomento',
          reference: `TRF-EMBEDDED-${link.id}`,
          transferDate: '2026-11-20',
        }),
      });
      expect(paid.status).toBe(200);
      const deadline = Date.now() + 20_000;
      while (received.length < 2 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const events = received.map((request) => JSON.parse(request.body) as { event: string; data: Json });
      expect(events.map((event) => event.event).sort()).toEqual([
        'BANK_TRANSFER_REGISTERED',
        'PAYMENT_SUCCESS',
      ]);
      const payment = events.find((event) => event.event === 'PAYMENT_SUCCESS')?.data;
      expect(payment).toMatchObject({
        payRequestId: link.id,
        amount: 150000,
        statusId: 200,
        method: 'BANK_TRANSFER',
        bankReference: `TRF-EMBEDDED-${link.id}`,
      });
      // One payment; the notice has the same txId and reads as none.
      const notice = events.find((event) => event.event === 'BANK_TRANSFER_REGISTERED')?.data;
      expect(notice).toMatchObject({ txId: (payment as { txId: string }).txId });
      expect(notice).not.toHaveProperty('statusId');
      expect(
        received.every((request) => String(request.headers['webhook-signature']).startsWith('v1,')),
      ).toBe(true);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  it('shuts down cleanly on SIGTERM, and after a restart still has the link and its idempotent response', async () => {
    expect(await stopEmbedded(running)).toBe(0);
    running = await startEmbedded();
    const read = await fetch(`${running.gatewayUrl}/api/payrequests/${firstLink.id}`, {
      headers: { 'api-token': DEMO_TOKEN },
    });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id: firstLink.id, slug: firstLink.slug });
    const replay = await createLink(running.gatewayUrl, {
      'api-token': DEMO_TOKEN,
      'idempotency-key': 'restart-1',
    });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ id: firstLink.id, slug: firstLink.slug });
    expect(await stopEmbedded(running)).toBe(0);
  });
});
