import http from 'node:http';
import net from 'node:net';
import { createLogger } from '@payrail/observability';
import { afterEach, describe, expect, it } from 'vitest';
import { discardRestOfBody } from '../src/body';
import { createApp, listen, readJson, requestBytes, type RunningServer } from '../src/index';

const logger = createLogger('test', 'silent');
const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** The app behind a real Node server, as services run (the body comes from Node's request stream). */
async function serve(maxBodyBytes = 1024) {
  const { app } = createApp({ service: 't', logger, errors: {}, maxBodyBytes });
  // The body read straight from the stream, then again through Hono (as the idempotency check and
  // the forward both read it).
  app.post('/twice', async (c) => {
    const parsed = await readJson(c);
    const again = await c.req.text();
    const bytes = await requestBytes(c);
    return c.json({ parsed, again, length: bytes.byteLength });
  });
  // Hono's reader first, then ours: the same bytes.
  app.post('/hono-first', async (c) => {
    const text = await c.req.text();
    return c.json({ text, parsed: await readJson(c) });
  });
  app.get('/json', (c) => c.json({ ok: true }));
  app.get('/made', () => new Response('made by hand', { status: 202 }));
  const server = await listen(app, 0, '127.0.0.1');
  servers.push(server);
  return server.port;
}

/** A POST with a declared length, or chunked (no Content-Length) when `chunked`. */
function post(port: number, path: string, body: string, chunked = false) {
  return new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    request.on('error', reject);
    if (chunked) {
      for (const part of body.match(/.{1,7}/gs) ?? []) request.write(part);
      request.end();
    } else {
      request.setHeader('content-length', Buffer.byteLength(body));
      request.end(body);
    }
  });
}

describe('responses under the Node server', () => {
  it('carry the request id, whoever made them (Hono or the handler), with their body', async () => {
    const port = await serve();
    for (const [path, status, body] of [
      ['/json', 200, '{"ok":true}'],
      ['/made', 202, 'made by hand'],
      ['/nowhere', 404, undefined],
    ] as const) {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-request-id': path } });
      expect(response.status).toBe(status);
      expect(response.headers.get('x-request-id')).toBe(path);
      if (body) expect(await response.text()).toBe(body);
      else await response.arrayBuffer();
    }
  });
});

describe('request bodies under the Node server', () => {
  const body = JSON.stringify({ label: 'Cuota de gimnasio ñandutí', amount: 150000 });

  it('reads a declared-length body once and hands the same bytes to every later reader', async () => {
    const port = await serve();
    const { status, json } = await post(port, '/twice', body);
    expect(status).toBe(200);
    expect(json).toEqual({ parsed: JSON.parse(body), again: body, length: Buffer.byteLength(body) });
  });

  it('reads a chunked body (counted against the limit as it comes)', async () => {
    const port = await serve();
    const { status, json } = await post(port, '/twice', body, true);
    expect(status).toBe(200);
    expect(json.parsed).toEqual(JSON.parse(body));
  });

  it('reads what Hono already read', async () => {
    const port = await serve();
    const { json } = await post(port, '/hono-first', body);
    expect(json).toEqual({ text: body, parsed: JSON.parse(body) });
  });

  it('refuses a body over the limit, declared or chunked, with 413', async () => {
    const port = await serve(1024);
    const large = JSON.stringify({ label: 'x'.repeat(2000) });
    expect((await post(port, '/twice', large)).status).toBe(413);
    expect((await post(port, '/twice', large, true)).status).toBe(413);
    expect((await post(port, '/twice', body)).status).toBe(200);
  });
});

/** A request written byte for byte on a socket, and the status line of the answer (or `no answer`). */
function rawExchange(port: number, request: string | Buffer, waitMs = 1000) {
  return new Promise<{ statusLine: string; ms: number }>((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let received = '';
    const done = (statusLine: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ statusLine, ms: Date.now() - started });
    };
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n\r\n')) done(received.split('\r\n')[0] as string);
    });
    socket.on('error', () => done('connection error'));
    const timer = setTimeout(() => done('no answer'), waitMs);
  });
}

describe('a POST without a body', () => {
  it('is answered at once with neither Content-Length nor Transfer-Encoding (curl -X POST), or an empty chunked body', async () => {
    const port = await serve();
    for (const head of ['', 'Transfer-Encoding: chunked\r\n', 'Content-Length: 0\r\n']) {
      const body = head.startsWith('Transfer') ? '0\r\n\r\n' : '';
      const answer = await rawExchange(port, `POST /twice HTTP/1.1\r\nHost: t\r\n${head}\r\n${body}`);
      expect(answer.statusLine, head || 'no length').toBe('HTTP/1.1 400 Bad Request');
      expect(answer.ms).toBeLessThan(1000);
    }
  });
});

describe('a body that is not UTF-8', () => {
  async function postBytes(port: number, bytes: Buffer) {
    const response = await fetch(`http://127.0.0.1:${port}/twice`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bytes,
    });
    return { status: response.status, problem: (await response.json()) as Record<string, unknown> };
  }
  /** Text and raw bytes, in order. */
  const withBytes = (...parts: Array<string | number[]>) =>
    Buffer.concat(parts.map((part) => Buffer.from(part as string)));

  it('is a 400 naming each field whose text is broken, wherever it is', async () => {
    const port = await serve();
    const cases: Array<[Buffer, string[]]> = [
      // U+110000, beyond Unicode.
      [withBytes('{"bankName":"', [0xf4, 0x90, 0x80, 0x80], '","amount":1}'), ['bankName']],
      // An overlong "/", a lone continuation byte, an encoded surrogate.
      [withBytes('{"a":{"b":["ok","x', [0xc0, 0xaf], '"]},"c":"', [0x80], '"}'), ['a.b.1', 'c']],
      [withBytes('{"label":"', [0xed, 0xa0, 0x80], '"}'), ['label']],
      // A field's name.
      [withBytes('{"ok":"é","n', [0xff], 'me":"x"}'), ['n\ufffdme']],
      // Outside any string: the body is named.
      [withBytes('{"amount":1', [0xfe], '}'), ['(body)']],
    ];
    for (const [bytes, paths] of cases) {
      const { status, problem } = await postBytes(port, bytes);
      expect(status, bytes.toString('hex')).toBe(400);
      expect(problem.code).toBe('VALIDATION_ERROR');
      expect((problem.errors as Array<{ path: string }>).map((error) => error.path)).toEqual(paths);
    }
  });

  it('keeps valid text as it is, a replacement character and a byte-order mark included', async () => {
    const port = await serve();
    const text = '{"label":"\ufffd Gs. ñandutí 😀"}';
    const response = await fetch(`http://127.0.0.1:${port}/twice`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { parsed: unknown }).parsed).toEqual(JSON.parse(text));
  });
});

/**
 * node:http sending `size` bytes, declared or chunked, without waiting for `100 Continue`: at once, or
 * in pieces of `piece` bytes every `everyMs` (a slower network). Settles once the request is over (its
 * connection closed or kept for the next), with the answer read and any error the client saw meanwhile.
 * A keep-alive agent, as Node's default one is: the client keeps sending after the answer.
 */
function upload(port: number, size: number, options: { chunked: boolean; piece?: number; everyMs?: number }) {
  const agent = new http.Agent({ keepAlive: true });
  return new Promise<{ status: number; body: string; error?: string }>((resolve) => {
    const answer: { status: number; body: string; error?: string } = { status: 0, body: '' };
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/twice',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          ...(options.chunked ? {} : { 'content-length': size }),
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
    if (!options.piece) {
      request.end(Buffer.alloc(size, 0x20));
      return;
    }
    let sent = 0;
    const piece = options.piece;
    const pump = setInterval(() => {
      if (request.destroyed) return clearInterval(pump);
      const length = Math.min(piece, size - sent);
      sent += length;
      if (sent >= size) {
        clearInterval(pump);
        request.end(Buffer.alloc(length, 0x20));
      } else request.write(Buffer.alloc(length, 0x20));
    }, options.everyMs);
  });
}

/** Runs `body` and fails if any error reaches the process meanwhile (a client socket's EPIPE, say). */
async function withoutStrayErrors(body: () => Promise<void>) {
  const errors: unknown[] = [];
  const onUncaught = (error: unknown) => errors.push(error);
  process.on('uncaughtException', onUncaught);
  try {
    await body();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(errors).toEqual([]);
  } finally {
    process.off('uncaughtException', onUncaught);
  }
}

describe('a body over the limit sent without waiting for 100 Continue', () => {
  it('is answered 413 and the client reads it, declared or chunked (50 MB written at once)', async () => {
    const port = await serve(1024 * 1024);
    await withoutStrayErrors(async () => {
      for (const chunked of [false, true]) {
        const answer = await upload(port, 50 * 1024 * 1024, { chunked });
        expect(answer.error, chunked ? 'chunked' : 'declared').toBeUndefined();
        expect(answer.status).toBe(413);
        expect(JSON.parse(answer.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
      }
    });
  }, 60_000);

  it('is read to its end when it takes longer than a moment to arrive (24 MB over about 1.5 s)', async () => {
    const port = await serve(1024 * 1024);
    await withoutStrayErrors(async () => {
      for (const chunked of [false, true]) {
        const answer = await upload(port, 24 * 1024 * 1024, { chunked, piece: 1024 * 1024, everyMs: 60 });
        expect(answer.error, chunked ? 'chunked' : 'declared').toBeUndefined();
        expect(answer.status).toBe(413);
      }
    });
  }, 60_000);

  it('keeps the connection for the next request once the refused body is read', async () => {
    const port = await serve(1024);
    const size = 4 * 1024 * 1024;
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.write(`POST /twice HTTP/1.1\r\nHost: t\r\nContent-Length: ${size}\r\n\r\n`);
    socket.write(Buffer.alloc(size, 0x20));
    socket.write('GET /json HTTP/1.1\r\nHost: t\r\n\r\n');
    const deadline = Date.now() + 5000;
    while (!received.includes('{"ok":true}') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 413 Payload Too Large/);
    expect(received).toContain('HTTP/1.1 200 OK');
  });
});

describe('discardRestOfBody', () => {
  /** A server that answers at once and discards the body with small limits. */
  async function refusingServer(limits: { maxBytes: number; maxMs: number; closeGraceMs: number }) {
    const server = http.createServer((incoming, outgoing) => {
      discardRestOfBody(incoming, limits);
      outgoing.writeHead(413, { 'content-length': '2' });
      outgoing.end('no');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  /** Sends a body that never ends, `piece` every 5 ms, until the server closes; what the client saw. */
  function endlessUpload(port: number, piece: Buffer) {
    return new Promise<{ events: string[]; ms: number }>((resolve) => {
      const started = Date.now();
      const events: string[] = [];
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write('POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100000000\r\n\r\n');
        const pump = setInterval(() => {
          if (socket.destroyed || !socket.writable) return clearInterval(pump);
          socket.write(piece);
        }, 5);
      });
      socket.on('data', (chunk) => {
        if (chunk.toString().startsWith('HTTP/1.1 413')) events.push('answer');
      });
      socket.on('end', () => events.push('half-closed'));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        events.push('closed');
        resolve({ events, ms: Date.now() - started });
      });
    });
  }

  it('answers first, half-closes after the byte limit, and closes a little later', async () => {
    const server = await refusingServer({ maxBytes: 64 * 1024, maxMs: 5000, closeGraceMs: 300 });
    const { port } = server.address() as net.AddressInfo;
    const { events, ms } = await endlessUpload(port, Buffer.alloc(16 * 1024, 0x20));
    expect(events).toEqual(['answer', 'half-closed', 'closed']);
    expect(ms).toBeLessThan(3000);
    server.close();
  });

  it('closes a body still arriving after the time limit', async () => {
    const server = await refusingServer({ maxBytes: 1024 ** 3, maxMs: 300, closeGraceMs: 100 });
    const { port } = server.address() as net.AddressInfo;
    const { events, ms } = await endlessUpload(port, Buffer.from('x'));
    expect(events).toEqual(['answer', 'half-closed', 'closed']);
    expect(ms).toBeGreaterThanOrEqual(300);
    expect(ms).toBeLessThan(3000);
    server.close();
  });
});
