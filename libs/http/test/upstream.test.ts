import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  callForAnswer,
  callForStream,
  callWithDeadline,
  httpUpstream,
  SERVER_KEEP_ALIVE_MS,
  UPSTREAM_IDLE_SOCKET_MS,
  UpstreamTimeout,
} from '../src/index';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A fake service over real HTTP; counts the TCP connections it was opened. */
async function fakeService(
  handle: (
    request: import('node:http').IncomingMessage,
    response: import('node:http').ServerResponse,
  ) => void,
): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer(handle);
  server.on('connection', () => {
    connections += 1;
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
  };
}

const request = () => new Request('http://internal/api/payrequests/7?x=1', { method: 'GET' });

describe('callWithDeadline', () => {
  it('answers what the service answered, body included', async () => {
    const service = await fakeService((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ path: req.url }));
    });
    const response = await callWithDeadline(httpUpstream(service.url), request(), 2_000);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ path: '/api/payrequests/7?x=1' });
  });

  it('gives up on a service that never answers, after the timeout', async () => {
    const service = await fakeService(() => undefined);
    const started = Date.now();
    await expect(callWithDeadline(httpUpstream(service.url), request(), 300)).rejects.toBeInstanceOf(
      UpstreamTimeout,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('gives up on a service that sends its headers and then stalls in the body', async () => {
    const service = await fakeService((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    });
    await expect(callWithDeadline(httpUpstream(service.url), request(), 300)).rejects.toBeInstanceOf(
      UpstreamTimeout,
    );
  });

  it('times out an in-memory upstream too (embedded mode)', async () => {
    const hanging = () => new Promise<Response>(() => undefined);
    await expect(callWithDeadline(hanging, request(), 100)).rejects.toBeInstanceOf(UpstreamTimeout);
  });

  it('passes an upstream failure through as it is', async () => {
    const refused = async () => {
      throw new TypeError('fetch failed');
    };
    await expect(callWithDeadline(refused, request(), 1_000)).rejects.toThrow('fetch failed');
  });
});

describe('httpUpstream', () => {
  it('keeps connections alive: ten consecutive calls do not open ten sockets', async () => {
    const service = await fakeService((_req, res) => res.end('ok'));
    const upstream = httpUpstream(service.url);
    for (let call = 0; call < 10; call += 1) {
      const response = await callWithDeadline(upstream, request(), 2_000);
      expect(await response.text()).toBe('ok');
    }
    // The pool may open a second socket while the first is being released; never one per call.
    expect(service.connections()).toBeLessThanOrEqual(2);
  });

  /** A service that resets, unanswered, the second request that comes on a connection. */
  async function resettingSecondCall() {
    const seen = new WeakMap<object, number>();
    let requests = 0;
    const service = await fakeService((req, res) => {
      requests += 1;
      const count = (seen.get(req.socket) ?? 0) + 1;
      seen.set(req.socket, count);
      if (count === 2) req.socket.resetAndDestroy();
      else res.end('ok');
    });
    return { service, requests: () => requests };
  }

  it('sends an idempotent call once more on a new connection when its kept-alive socket is reset before any answer', async () => {
    // As when the service closed the idle socket just as the call went out on it.
    const { service, requests } = await resettingSecondCall();
    const upstream = httpUpstream(service.url);
    const call = { method: 'GET', path: '/api/payrequests/7', headers: {} };
    expect((await callForAnswer(upstream, call, 2_000)).status).toBe(200);
    const again = await callForAnswer(upstream, call, 2_000);
    expect({ status: again.status, body: Buffer.from(again.body).toString() }).toEqual({
      status: 200,
      body: 'ok',
    });
    expect(requests()).toBe(3);
    expect(service.connections()).toBe(2);
  });

  it('does not send a POST twice on such a reset (the service may have run it), unless it carries its idempotency key', async () => {
    const plain = await resettingSecondCall();
    const upstream = httpUpstream(plain.service.url);
    const post = { method: 'POST', path: '/api/saleitems/add', headers: {}, body: Buffer.from('{}') };
    expect((await callForAnswer(upstream, post, 2_000)).status).toBe(200);
    await expect(callForAnswer(upstream, post, 2_000)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(plain.requests()).toBe(2);

    const keyed = await resettingSecondCall();
    const withKey = httpUpstream(keyed.service.url);
    const keyedPost = { ...post, headers: { 'Idempotency-Key': 'k-1' } };
    expect((await callForAnswer(withKey, keyedPost, 2_000)).status).toBe(200);
    expect((await callForAnswer(withKey, keyedPost, 2_000)).status).toBe(200);
    expect(keyed.requests()).toBe(3);
  });

  it('drops an idle kept-alive socket before the service would close it', async () => {
    expect(UPSTREAM_IDLE_SOCKET_MS).toBeLessThan(SERVER_KEEP_ALIVE_MS);
    const closedByClient: boolean[] = [];
    const service = await fakeService((req, res) => {
      req.socket.once('end', () => closedByClient.push(true));
      res.end('ok');
    });
    const upstream = httpUpstream(service.url);
    expect((await callForAnswer(upstream, { method: 'GET', path: '/', headers: {} }, 2_000)).status).toBe(
      200,
    );
    // Node's server would close it only after 5 s: before that, only the pool's idle timeout ends it.
    await new Promise((resolve) => setTimeout(resolve, UPSTREAM_IDLE_SOCKET_MS + 500));
    expect(closedByClient).toEqual([true]);
  }, 10_000);

  it('has a deadline of its own: a call to a service that never answers is aborted after timeoutMs', async () => {
    const service = await fakeService(() => {
      // never answers
    });
    const started = Date.now();
    await expect(httpUpstream(service.url, 150)(request())).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('callWithDeadline with a compressed answer', () => {
  it('hands back the decoded body without the headers that described the encoded one', async () => {
    const { gzipSync } = await import('node:zlib');
    const service = await fakeService((_req, res) => {
      const body = gzipSync(JSON.stringify({ compressed: true }));
      res.writeHead(201, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': body.length,
      });
      res.end(body);
    });
    const response = await callWithDeadline(httpUpstream(service.url), request(), 2_000);
    expect(response.status).toBe(201);
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(await response.json()).toEqual({ compressed: true });
  });
});

describe('callForAnswer', () => {
  const call = (body?: string) => ({
    method: body ? 'POST' : 'GET',
    path: '/api/saleitems/add?x=1',
    headers: { 'content-type': 'application/json', 'x-request-id': 'req-1' },
    body: body ? new TextEncoder().encode(body) : undefined,
  });

  it('sends path, headers and body over HTTP without web objects, and reads the whole answer', async () => {
    const service = await fakeService((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.setHeader('set-cookie', ['a=1', 'b=2']);
        res.statusCode = 201;
        res.end(
          JSON.stringify({
            path: req.url,
            requestId: req.headers['x-request-id'],
            length: req.headers['content-length'],
            body: Buffer.concat(chunks).toString(),
          }),
        );
      });
    });
    const upstream = httpUpstream(service.url);
    expect(upstream.direct).toBeTypeOf('function');
    const answer = await callForAnswer(upstream, call('{"label":"Lamp"}'), 2_000);
    expect(answer.status).toBe(201);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(answer.headers['content-length']).toBeUndefined();
    expect(JSON.parse(Buffer.from(answer.body).toString())).toEqual({
      path: '/api/saleitems/add?x=1',
      requestId: 'req-1',
      length: '16',
      body: '{"label":"Lamp"}',
    });
  });

  it('gives up with UpstreamTimeout on a service that stalls in the body, and on one that never answers', async () => {
    const stalls = await fakeService((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    });
    const started = Date.now();
    await expect(callForAnswer(httpUpstream(stalls.url), call(), 200)).rejects.toBeInstanceOf(
      UpstreamTimeout,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    const silent = await fakeService(() => undefined);
    await expect(callForAnswer(httpUpstream(silent.url), call('{}'), 200)).rejects.toBeInstanceOf(
      UpstreamTimeout,
    );
  });

  it('passes a refused connection through as it is', async () => {
    const service = await fakeService((_req, res) => res.end());
    const url = service.url;
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
    await expect(callForAnswer(httpUpstream(url), call(), 1_000)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('calls an in-memory upstream (embedded mode) with a request, within the deadline', async () => {
    const seen: string[] = [];
    const inMemory = async (request: Request) => {
      seen.push(
        `${request.method} ${request.url} ${request.headers.get('x-request-id')} ${await request.text()}`,
      );
      const headers = new Headers({ 'content-type': 'text/plain' });
      headers.append('set-cookie', 'a=1');
      headers.append('set-cookie', 'b=2');
      return new Response('ok', { status: 202, headers });
    };
    const answer = await callForAnswer(inMemory, call('{"a":1}'), 1_000);
    expect(seen).toEqual(['POST http://internal/api/saleitems/add?x=1 req-1 {"a":1}']);
    expect(answer).toMatchObject({
      status: 202,
      headers: { 'content-type': 'text/plain', 'set-cookie': ['a=1', 'b=2'] },
    });
    expect(Buffer.from(answer.body).toString()).toBe('ok');
    const hanging = () => new Promise<Response>(() => undefined);
    await expect(callForAnswer(hanging, call(), 100)).rejects.toBeInstanceOf(UpstreamTimeout);
  });
});

describe('httpUpstream, what goes over the wire', () => {
  it("hands on a request that carries its own connection's headers (the client writes those itself)", async () => {
    const service = await fakeService((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () =>
        res.end(
          JSON.stringify({
            connection: req.headers.connection,
            length: req.headers['content-length'],
            requestId: req.headers['x-request-id'],
            body: Buffer.concat(chunks).toString(),
          }),
        ),
      );
    });
    const upstream = httpUpstream(service.url);
    // As a request received by one service and handed on whole to another may carry them.
    const answer = await callForAnswer(
      upstream,
      {
        method: 'POST',
        path: '/api/customers',
        headers: {
          Connection: 'keep-alive',
          'keep-alive': 'timeout=5',
          'content-length': '99',
          'x-request-id': 'req-2',
        },
        body: new TextEncoder().encode('{"a":1}'),
      },
      2_000,
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(Buffer.from(answer.body).toString())).toEqual({
      connection: 'keep-alive',
      length: '7',
      requestId: 'req-2',
      body: '{"a":1}',
    });
  });

  it("gives the answer's headers as Node's client does: one set-cookie a list, a repeated header joined", async () => {
    const service = await fakeService((_req, res) => {
      res.setHeader('set-cookie', 'only=1');
      res.setHeader('x-seen', ['a', 'b']);
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end('<p>ok</p>');
    });
    const answer = await callForAnswer(
      httpUpstream(service.url),
      { method: 'GET', path: '/pay/x', headers: {} },
      2_000,
    );
    expect(answer.headers['set-cookie']).toEqual(['only=1']);
    expect(answer.headers['x-seen']).toBe('a, b');
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.headers['content-length']).toBeUndefined();
    expect(answer.headers.connection).toBeUndefined();
  });
});

describe('callForStream', () => {
  it('hands the answer on before the service has finished it, and the service waits for the reader', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let writtenBeforeRelease = 0;
    const service = await fakeService((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/csv' });
      response.write('id\r\n');
      // More than the socket buffers take: the writes stall until the client reads (backpressure).
      const chunk = 'x'.repeat(64 * 1024);
      const pump = () => {
        while (writtenBeforeRelease < 400) {
          writtenBeforeRelease += 1;
          if (!response.write(chunk)) {
            response.once('drain', pump);
            return;
          }
        }
        void released.then(() => response.end('end\r\n'));
      };
      pump();
    });
    const upstream = httpUpstream(service.url);
    const answer = await callForStream(upstream, { method: 'GET', path: '/export', headers: {} }, 5_000);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/csv');
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value).startsWith('id')).toBe(true);
    // Nobody reads for a moment: the service is held back far short of its 25 MB.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(writtenBeforeRelease).toBeLessThan(400);
    release();
    let bytes = first.value?.byteLength ?? 0;
    let last = '';
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      bytes += next.value.byteLength;
      last = new TextDecoder().decode(next.value.slice(-5));
    }
    expect(bytes).toBe('id\r\n'.length + 400 * 64 * 1024 + 'end\r\n'.length);
    expect(last).toBe('end\r\n');
  }, 30_000);
});
