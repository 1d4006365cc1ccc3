import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SERVER_KEEP_ALIVE_MS } from '@payrail/http';
import { startTelemetry } from '@payrail/observability';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createProcessorHttp, PROCESSOR_IDLE_SOCKET_MS } from '../src/adapters/processors/processor-http';

/**
 * The processor exchange's own transport (node:http and a keep-alive agent) against a real local server,
 * one fault at a time. The money rules: `answered` only with a whole reply, `not-sent` only when nothing
 * can have left, `no-answer` for everything else, within the one deadline, and never a request sent twice.
 */

type Exporter = NonNullable<Parameters<typeof startTelemetry>[0]['exporter']>;
type Finished = Parameters<Exporter['export']>[0][number];
const spans: Finished[] = [];
const exporter: Exporter = {
  export(batch, done) {
    spans.push(...batch);
    done({ code: 0 });
  },
  shutdown: async () => {},
};
const telemetry = startTelemetry({ serviceName: 'processor-http-test', exporter });
afterAll(() => telemetry.shutdown());

interface TestServer {
  url: string;
  port: number;
  /** Requests the server read, in order (method, path, headers, body). */
  requests: { method: string; path: string; headers: IncomingMessage['headers']; body: string }[];
  connections: number;
  close(): Promise<void>;
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A node:http server on a free port; `handle` sees each request once its body has been read. */
async function serve(
  handle: (request: IncomingMessage, response: ServerResponse, index: number) => void,
): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      handle(request, response, requests.length - 1);
    });
  });
  server.keepAliveTimeout = SERVER_KEEP_ALIVE_MS;
  const state = { connections: 0 };
  server.on('connection', () => state.connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/processor`,
    port,
    requests,
    get connections() {
      return state.connections;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
};

describe('processor exchange over node:http', () => {
  it('a whole JSON reply is answered, with the request as the processor must see it and the client span', async () => {
    const server = await serve((_request, response) => json(response, 201, { status: 'success', id: 7 }));
    const exchange = createProcessorHttp({ baseUrl: server.url, timeoutMs: 2_000 });

    const outcome = await exchange('POST', '/api/charge', { amount: '1000.00', reference: 'ñandú' });

    expect(outcome).toEqual({
      kind: 'answered',
      status: 201,
      body: { status: 'success', id: 7 },
      text: '{"status":"success","id":7}',
    });
    const [seen] = server.requests;
    expect(seen).toMatchObject({ method: 'POST', path: '/processor/api/charge' });
    expect(JSON.parse(seen?.body ?? '')).toEqual({ amount: '1000.00', reference: 'ñandú' });
    expect(seen?.headers).toMatchObject({ 'content-type': 'application/json', accept: 'application/json' });
    expect(seen?.headers['content-length']).toBe(String(Buffer.byteLength(seen?.body ?? '')));
    const span = spans.find((each) => each.name === 'POST processor');
    expect(span?.kind).toBe(2); // SpanKind.CLIENT
    expect(span?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.path': '/processor/api/charge',
      'http.response.status_code': 201,
    });
    // The processor gets the client span's own context.
    expect(seen?.headers.traceparent).toBe(
      `00-${span?.spanContext().traceId}-${span?.spanContext().spanId}-01`,
    );
  });

  it('an error status, an empty body and a page that is not JSON are answered as they came', async () => {
    const server = await serve((_request, response, index) => {
      if (index === 0) json(response, 400, { status: 'error' });
      else if (index === 1) response.writeHead(504).end();
      else response.writeHead(200, { 'content-type': 'text/html' }).end('<html>ok</html>');
    });
    const exchange = createProcessorHttp({ baseUrl: server.url, timeoutMs: 2_000 });
    expect(await exchange('POST', 'a', {})).toEqual({
      kind: 'answered',
      status: 400,
      body: { status: 'error' },
      text: '{"status":"error"}',
    });
    expect(await exchange('GET', 'b')).toEqual({ kind: 'answered', status: 504, body: undefined, text: '' });
    expect(await exchange('DELETE', 'c', {})).toEqual({
      kind: 'answered',
      status: 200,
      body: undefined,
      text: '<html>ok</html>',
    });
    // One kept-alive connection for the three.
    expect(server.connections).toBe(1);
  });

  it.each([
    ['with a content-length', { 'content-length': '200' }],
    ['chunked', {}],
  ])('a reply cut mid-body (%s) is no-answer', async (_case, headers) => {
    const server = await serve((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', ...headers });
      response.write('{"status":"succ');
      setTimeout(() => request.socket.destroy(), 20);
    });
    const exchange = createProcessorHttp({ baseUrl: server.url, timeoutMs: 2_000 });
    const outcome = await exchange('POST', 'charge', { amount: 1 });
    expect(outcome).toMatchObject({ kind: 'no-answer', reason: expect.stringMatching(/^reply cut/) });
    expect(server.requests).toHaveLength(1);
  });

  it('a processor that accepts and never answers is no-answer within the deadline', async () => {
    const server = await serve(() => {});
    const exchange = createProcessorHttp({ baseUrl: server.url, timeoutMs: 300 });
    const started = performance.now();
    expect(await exchange('POST', 'charge', { amount: 1 })).toEqual({ kind: 'no-answer', reason: 'timeout' });
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1_000);
    expect(server.requests).toHaveLength(1);
  });

  it('the deadline covers the body: headers and then a stall is no-answer within it', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"status":');
    });
    const exchange = createProcessorHttp({ baseUrl: server.url, timeoutMs: 300 });
    const started = performance.now();
    expect(await exchange('POST', 'charge', { amount: 1 })).toEqual({ kind: 'no-answer', reason: 'timeout' });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('a refused port is not-sent', async () => {
    const gone = await serve(() => {});
    await gone.close();
    servers.length = 0;
    const exchange = createProcessorHttp({ baseUrl: gone.url, timeoutMs: 2_000 });
    expect(await exchange('POST', 'charge', { amount: 1 })).toEqual({
      kind: 'not-sent',
      reason: 'ECONNREFUSED',
    });
  });

  it.each([
    ['resets', (request: IncomingMessage) => request.socket.resetAndDestroy()],
    ['closes', (request: IncomingMessage) => request.socket.end()],
  ])(
    'a processor that %s a kept-alive socket on the next request: no-answer, never sent again',
    async (_case, drop) => {
      const server = await serve((request, response, index) => {
        if (index === 0) json(response, 200, { status: 'success' });
        else drop(request);
      });
      const exchange = createProcessorHttp({ baseUrl: server.url, timeoutMs: 2_000 });
      expect(await exchange('POST', 'first', { n: 1 })).toMatchObject({ kind: 'answered', status: 200 });

      const outcome = await exchange('POST', 'charge', { n: 2 });

      expect(outcome.kind).toBe('no-answer');
      // The charge reached the processor once, on the reused connection, and was not sent again on another.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(server.requests.map((each) => each.path)).toEqual(['/processor/first', '/processor/charge']);
      expect(server.connections).toBe(1);
    },
  );

  it('an unreachable host on a connection that was already up is no-answer, not not-sent', async () => {
    // The same code (EHOSTUNREACH) proves nothing was sent only before the socket connected.
    const sockets: Socket[] = [];
    const create = http.Agent.prototype.createConnection;
    const spy = vi.spyOn(http.Agent.prototype, 'createConnection').mockImplementation(function (
      this: http.Agent,
      ...args: Parameters<typeof create>
    ) {
      const socket = create.apply(this, args) as Socket;
      sockets.push(socket);
      return socket;
    });
    try {
      const server = await serve(() => {
        sockets[0]?.destroy(Object.assign(new Error('connect EHOSTUNREACH'), { code: 'EHOSTUNREACH' }));
      });
      const exchange = createProcessorHttp({ baseUrl: server.url, timeoutMs: 2_000 });
      expect(await exchange('POST', 'charge', { amount: 1 })).toMatchObject({ kind: 'no-answer' });
      expect(server.requests).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('an idle socket leaves the pool before the server would close it', () => {
    expect(PROCESSOR_IDLE_SOCKET_MS).toBeLessThan(SERVER_KEEP_ALIVE_MS);
  });
});
