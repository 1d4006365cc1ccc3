import http from 'node:http';
import { createLogger } from '@payrail/observability';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, listen, readJson, requestBytes, type RunningServer } from '../src/index';

const logger = createLogger('test', 'silent');
const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** The app behind a real Node server, as services run (the body comes from Node's request stream). */
async function serve(maxBodyBytes = 1024) {
  const { app } = createApp({ service: 't', logger, maxBodyBytes });
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
