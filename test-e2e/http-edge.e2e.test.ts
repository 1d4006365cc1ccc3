import http from 'node:http';
import net from 'node:net';
import { signMerchantContext, signOperatorContext } from '@payrail/http';
import type { ServiceName } from '@payrail/runtime';
import {
  createTestDatabase,
  deleteBrokerTopology,
  type TestDatabase,
  testAmqpUrl,
  uniqueName,
} from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf } from '../services/gateway/src/adapters/http/forward';
import { DEMO_MERCHANT } from '../services/gateway/src/service';
import { CONSUMERS, DEMO_TOKEN, type E2eSystem, startSystem } from './support';

// HTTP at the edges, with every service as its own process on real ports: the gateway and each
// service's internal port answer a wrong method with the path's real methods, a POST without a body at
// once, an oversized body with a 413 the client reads (even one that does not wait for 100 Continue),
// and bytes that are not UTF-8 with a 400 naming the field. Generated from the served OpenAPI document.

const INTERNAL_SECRET = 'e2e-internal-secret-0123456789';
const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
const SOME_UUID = '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10';

type Json = Record<string, unknown>;

let testDb: TestDatabase;
let system: E2eSystem;
let document: { paths: Record<string, Record<string, Json>> };
const exchange = uniqueName('e2e_edge_events');
const queuePrefix = `${uniqueName('e2e_edge')}.`;

beforeAll(async () => {
  testDb = await createTestDatabase('e2e_edge');
  system = await startSystem({
    DATABASE_URL: testDb.url,
    AMQP_URL: testAmqpUrl(),
    EVENTS_EXCHANGE: exchange,
    QUEUE_PREFIX: queuePrefix,
    DEMO_API_TOKEN: DEMO_TOKEN,
    ADMIN_TOKEN,
    INTERNAL_SECRET,
    LOG_LEVEL: 'warn',
  });
  document = (await (await fetch(`${system.gatewayUrl}/openapi.json`)).json()) as typeof document;
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await testDb?.drop();
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    CONSUMERS.map((consumer) => `${queuePrefix}${consumer}`),
  ).catch(() => {});
});

interface Operation {
  method: string;
  template: string;
  security: 'apiToken' | 'adminToken' | 'none';
}

function operations(): Operation[] {
  return Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const security = ((operation.security as Json[] | undefined)?.[0] ?? {}) as Json;
      return {
        method: method.toUpperCase(),
        template,
        security: 'apiToken' in security ? 'apiToken' : 'adminToken' in security ? 'adminToken' : 'none',
      } as Operation;
    }),
  );
}

/** A path of the template with ids of the right shape (what they name need not exist). */
function pathOf(template: string): string {
  return template.replace(/\{(\w+)\}/g, () => (template.startsWith('/admin/') ? SOME_UUID : '1'));
}

function credentials(operation: Pick<Operation, 'security'>): Record<string, string> {
  if (operation.security === 'apiToken') return { 'api-token': DEMO_TOKEN };
  if (operation.security === 'adminToken') return { authorization: `Bearer ${ADMIN_TOKEN}` };
  return {};
}

/**
 * The service port a gateway operation is forwarded to, and the signed headers it needs there (the
 * merchant's context, or the operator's signature); undefined for the gateway's own operations.
 */
function internalTarget(operation: Operation): { url: string; headers: Record<string, string> } | undefined {
  const path = pathOf(operation.template);
  if (operation.template.startsWith('/admin/billing/')) {
    return {
      url: system.urls['billing-scheduler'],
      headers: signOperatorContext(operation.method, path, INTERNAL_SECRET),
    };
  }
  if (operation.security !== 'apiToken') return undefined;
  const owner = ownerOf(operation.template) as ServiceName | undefined;
  if (!owner) return undefined;
  return { url: system.urls[owner], headers: signMerchantContext(DEMO_MERCHANT, INTERNAL_SECRET) };
}

/** Writes `request` on a socket as it is; the status line of the answer and how long it took. */
function exchangeRaw(url: string, request: string, waitMs = 5000) {
  const { hostname, port } = new URL(url);
  return new Promise<{ statusLine: string; ms: number }>((resolve) => {
    const started = Date.now();
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    let received = '';
    const done = (statusLine: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ statusLine, ms: Date.now() - started });
    };
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n')) done(received.split('\r\n')[0] as string);
    });
    socket.on('error', (error) => done(`error ${(error as NodeJS.ErrnoException).code}`));
    const timer = setTimeout(() => done('no answer'), waitMs);
  });
}

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
}

describe('a wrong method on a documented path', () => {
  it('is 405 with Allow listing the methods the document gives that path, at the gateway, for every path', async () => {
    const checked: string[] = [];
    for (const [template, methods] of Object.entries(document.paths)) {
      const documented = Object.keys(methods).map((method) => method.toUpperCase());
      const expected = new Set(documented.includes('GET') ? [...documented, 'HEAD'] : documented);
      const auth = credentials(
        operations().find((operation) => operation.template === template) as Operation,
      );
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !documented.includes(m))) {
        const response = await fetch(`${system.gatewayUrl}${pathOf(template)}`, {
          method,
          headers: { 'content-type': 'application/json', ...auth },
          body: method === 'GET' ? undefined : '{}',
        });
        const context = `${method} ${template}`;
        expect(response.status, context).toBe(405);
        const allow = new Set((response.headers.get('allow') ?? '').split(',').map((name) => name.trim()));
        expect([...allow].sort(), context).toEqual([...expected].sort());
        expect(((await response.json()) as { code: string }).code, context).toBe('METHOD_NOT_ALLOWED');
        checked.push(context);
      }
    }
    // The case of the report, among them.
    expect(checked).toContain('DELETE /api/subscriptions/cancel-all');
    expect(checked.length).toBeGreaterThan(Object.keys(document.paths).length * 2);
  });

  it('DELETE /api/subscriptions/cancel-all says Allow: POST, at the gateway and on the subscriptions port', async () => {
    const atGateway = await fetch(`${system.gatewayUrl}/api/subscriptions/cancel-all`, {
      method: 'DELETE',
      headers: { 'api-token': DEMO_TOKEN },
    });
    expect(atGateway.status).toBe(405);
    expect(atGateway.headers.get('allow')).toBe('POST');
    const internal = await fetch(`${system.urls.subscriptions}/api/subscriptions/cancel-all`, {
      method: 'DELETE',
      headers: signMerchantContext(DEMO_MERCHANT, INTERNAL_SECRET),
    });
    expect(internal.status).toBe(405);
    expect(internal.headers.get('allow')).toBe('POST');
  });
});

describe('a POST without a body', () => {
  const posts = () => operations().filter((operation) => operation.method === 'POST');

  it('is answered within a second on every POST operation (no Content-Length, as plain curl -X POST sends it)', async () => {
    expect(posts().length).toBeGreaterThan(15);
    for (const operation of posts()) {
      const request = `POST ${pathOf(operation.template)} HTTP/1.1\r\nHost: edge.test\r\n${headerLines(credentials(operation))}\r\n`;
      const answer = await exchangeRaw(system.gatewayUrl, request);
      expect(answer.statusLine, operation.template).toMatch(/^HTTP\/1\.1 [2-4]\d\d /);
      expect(answer.ms, operation.template).toBeLessThan(1000);
    }
  });

  it('is answered within a second with an empty chunked body, at the gateway', async () => {
    for (const operation of posts()) {
      const request = `POST ${pathOf(operation.template)} HTTP/1.1\r\nHost: edge.test\r\n${headerLines(credentials(operation))}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n`;
      const answer = await exchangeRaw(system.gatewayUrl, request);
      expect(answer.statusLine, operation.template).toMatch(/^HTTP\/1\.1 [2-4]\d\d /);
      expect(answer.ms, operation.template).toBeLessThan(1000);
    }
  });

  it("is answered within a second on the owning service's internal port too, both ways", async () => {
    const forwarded = posts().filter((operation) => internalTarget(operation));
    expect(forwarded.map((operation) => operation.template)).toEqual(
      expect.arrayContaining([
        '/api/payrequests/{id}/cancel',
        '/api/subscriptions/installments/{id}/cancel',
        '/api/subscriptions/cancel-all',
        '/api/bank-notification/add',
        '/admin/billing/runs',
      ]),
    );
    for (const operation of forwarded) {
      const target = internalTarget(operation) as { url: string; headers: Record<string, string> };
      for (const framing of ['', 'Transfer-Encoding: chunked\r\n']) {
        const body = framing ? '0\r\n\r\n' : '';
        const request = `POST ${pathOf(operation.template)} HTTP/1.1\r\nHost: edge.test\r\n${headerLines(target.headers)}${framing}\r\n${body}`;
        const answer = await exchangeRaw(target.url, request);
        const context = `${target.url} ${operation.template} ${framing ? 'chunked' : 'no length'}`;
        expect(answer.statusLine, context).toMatch(/^HTTP\/1\.1 [2-4]\d\d /);
        expect(answer.ms, context).toBeLessThan(1000);
      }
    }
  });
});

/**
 * node:http writing `size` bytes without waiting for `100 Continue` (Node's default keep-alive agent): at
 * once, or a megabyte every `everyMs` (a slower network); settles once the request is over, with the
 * answer and any error the client saw.
 */
function upload(
  url: string,
  headers: Record<string, string>,
  size: number,
  chunked: boolean,
  everyMs?: number,
) {
  const agent = new http.Agent({ keepAlive: true });
  return new Promise<{ status: number; body: string; error?: string }>((resolve) => {
    const answer: { status: number; body: string; error?: string } = { status: 0, body: '' };
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          ...headers,
          ...(chunked ? {} : { 'content-length': String(size) }),
        },
      },
      (response) => {
        answer.status = response.statusCode ?? 0;
        response.on('data', (chunk) => {
          answer.body += chunk;
        });
      },
    );
    request.on('error', (error) => {
      answer.error = (error as NodeJS.ErrnoException).code ?? error.message;
    });
    request.on('close', () => {
      agent.destroy();
      resolve(answer);
    });
    if (!everyMs) {
      request.end(Buffer.alloc(size, 0x20));
      return;
    }
    let sent = 0;
    const piece = 1024 * 1024;
    const pump = setInterval(() => {
      if (request.destroyed) return clearInterval(pump);
      sent += piece;
      if (sent < size) return void request.write(Buffer.alloc(piece, 0x20));
      clearInterval(pump);
      request.end(Buffer.alloc(piece - (sent - size), 0x20));
    }, everyMs);
  });
}

describe('a body over the limit from a client that does not wait for 100 Continue', () => {
  it('reads the 413, at the gateway and on an internal port, declared or chunked (50 MB written at once)', async () => {
    const targets: Array<[string, string, Record<string, string>]> = [
      ['gateway', `${system.gatewayUrl}/api/saleitems/add`, { 'api-token': DEMO_TOKEN }],
      [
        'links',
        `${system.urls.links}/api/saleitems/add`,
        signMerchantContext(DEMO_MERCHANT, INTERNAL_SECRET),
      ],
    ];
    for (const [name, url, headers] of targets) {
      for (const chunked of [false, true]) {
        const answer = await upload(url, headers, 50 * 1024 * 1024, chunked);
        const context = `${name} ${chunked ? 'chunked' : 'declared'}`;
        expect(answer.error, context).toBeUndefined();
        expect(answer.status, context).toBe(413);
        expect(JSON.parse(answer.body), context).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
      }
    }
    // Still serving.
    expect((await fetch(`${system.gatewayUrl}/healthz`)).status).toBe(200);
  }, 120_000);

  it('reads the 413 when the body takes longer than a moment to arrive (24 MB over about 1.5 s)', async () => {
    for (const chunked of [false, true]) {
      const answer = await upload(
        `${system.gatewayUrl}/api/saleitems/add`,
        { 'api-token': DEMO_TOKEN },
        24 * 1024 * 1024,
        chunked,
        60,
      );
      expect(answer.error, chunked ? 'chunked' : 'declared').toBeUndefined();
      expect(answer.status).toBe(413);
    }
  }, 60_000);
});

describe('bytes that are not UTF-8 in a body', () => {
  it('are a 400 naming the field at the gateway and on the internal port (bankName of a bank notification)', async () => {
    const body = Buffer.concat([
      Buffer.from('{"payRequestId":1,"amount":150000,"bankName":"Banco '),
      Buffer.from([0xf4, 0x90, 0x80, 0x80]),
      Buffer.from('","reference":"TRF-1","transferDate":"2026-11-20"}'),
    ]);
    const targets: Array<[string, Record<string, string>]> = [
      [system.gatewayUrl, { 'api-token': DEMO_TOKEN }],
      [system.urls['processor-gateway'], signMerchantContext(DEMO_MERCHANT, INTERNAL_SECRET)],
    ];
    for (const [base, headers] of targets) {
      const response = await fetch(`${base}/api/bank-notification/add`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      expect(response.status, base).toBe(400);
      const problem = (await response.json()) as { errors: Array<{ path: string }> };
      expect(
        problem.errors.map((error) => error.path),
        base,
      ).toEqual(['bankName']);
    }
  });
});
