import net from 'node:net';
import { DEFAULT_MAX_BODY_BYTES, listen, type RunningServer } from '@payrail/http';
import { rowsOf } from '@payrail/db';
import { type ServiceUnderTest, startService } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { gatewayService } from '../src/service';

const maxBodyBytesOf = (environment: Record<string, string>) => loadConfig(environment).MAX_BODY_BYTES;

// Request bodies beyond the limit are refused with 413 problem+json before the rest is read, on every
// path (merchant API, v1 operations, admin), declared length or chunked, and nothing reaches a service.
const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const FIFTY_MB = 50 * 1024 * 1024;

const forwarded: string[] = [];
const upstream = async (request: Request) => {
  forwarded.push(new URL(request.url).pathname);
  await request.arrayBuffer();
  return Response.json({ ok: true });
};

let gateway: ServiceUnderTest;
let small: ServiceUnderTest;
let server: RunningServer;
let apiToken: string;

beforeAll(async () => {
  const upstreams = { links: upstream, subscriptions: upstream };
  [gateway, small] = await Promise.all([
    startService(gatewayService, { env: { ADMIN_TOKEN }, upstreams }),
    startService(gatewayService, { env: { ADMIN_TOKEN, MAX_BODY_BYTES: '2048' }, upstreams }),
  ]);
  server = await listen(gateway.instance.app, 0, '127.0.0.1');
  const created = await gateway.request('POST', '/admin/merchants', {
    body: { name: 'Gym', instance: 'NATIONAL' },
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  apiToken = ((await created.json()) as { apiToken: string }).apiToken;
});

afterAll(async () => {
  await server?.close();
  await Promise.all([gateway?.stop(), small?.stop()]);
});

interface RawOutcome {
  status: number;
  contentType: string;
  body: string;
  bytesSent: number;
}

/**
 * Sends a request over a real socket, body in 64 KiB pieces up to `bodyBytes`, and stops sending as
 * soon as an answer arrives: `bytesSent` tells how much the server made us send before it answered.
 */
function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  bodyBytes: number,
  chunked: boolean,
): Promise<RawOutcome> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1');
    let answer = '';
    let bytesSent = 0;
    let answered = false;
    const head = [
      `${method} ${path} HTTP/1.1`,
      'host: 127.0.0.1',
      'content-type: application/json',
      chunked ? 'transfer-encoding: chunked' : `content-length: ${bodyBytes}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      '',
      '',
    ].join('\r\n');
    const piece = Buffer.alloc(64 * 1024, 'a');
    const pump = () => {
      while (!answered && bytesSent < bodyBytes) {
        const size = Math.min(piece.length, bodyBytes - bytesSent);
        const data = chunked
          ? Buffer.concat([
              Buffer.from(`${size.toString(16)}\r\n`),
              piece.subarray(0, size),
              Buffer.from('\r\n'),
            ])
          : piece.subarray(0, size);
        bytesSent += size;
        if (!socket.write(data)) return void socket.once('drain', pump);
      }
      if (!answered && chunked) socket.write('0\r\n\r\n');
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
    socket.on('data', (data) => {
      answered = true;
      answer += data.toString('utf8');
      const [rawHead = '', rawBody = ''] = answer.split('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(rawHead);
      if (length && Buffer.byteLength(rawBody) >= Number(length[1])) {
        socket.destroy();
        resolve({
          status: Number(rawHead.split(' ')[1]),
          contentType: /content-type: ([^\r]+)/i.exec(rawHead)?.[1] ?? '',
          body: rawBody,
          bytesSent,
        });
      }
    });
    socket.on('error', (error) => (answered ? undefined : reject(error)));
  });
}

async function merchantCount(): Promise<number> {
  const rows = rowsOf<{ count: number }>(
    await gateway.database.db.execute(sql`select count(*)::int as count from gateway.merchants`),
  );
  return rows[0]?.count ?? 0;
}

const asMerchant = () => ({ 'api-token': apiToken });
const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('request body limit', () => {
  it('is 1 MiB by default: enough for a 200 × 60 bulk', () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(1_048_576);
  });

  const cases: Array<[string, string, () => Record<string, string>]> = [
    ['POST', '/api/saleitems/add', asMerchant],
    ['POST', '/api/ext-app/payrequests/signed-in-user', asMerchant],
    ['PATCH', '/api/subscriptions/installments/bulk', asMerchant],
    ['PUT', '/api/subscriptions/modify-all', asMerchant],
    ['POST', '/api/subscriptions/cancel-all', asMerchant],
    ['POST', '/admin/merchants', () => asAdmin],
  ];

  for (const [method, path, headers] of cases) {
    for (const chunked of [false, true]) {
      it(`${method} ${path}: 413 problem+json for a 50 MB ${chunked ? 'chunked' : 'declared'} body, before reading it`, async () => {
        forwarded.length = 0;
        const merchantsBefore = await merchantCount();
        const outcome = await rawRequest(method, path, headers(), FIFTY_MB, chunked);
        expect(outcome.status).toBe(413);
        expect(outcome.contentType).toBe('application/problem+json');
        expect(JSON.parse(outcome.body)).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
        // A declared length is refused at once; a chunked body is read only up to the limit (plus what
        // the socket buffers on the way), never to its end.
        expect(outcome.bytesSent).toBeLessThan(chunked ? 8 * 1024 * 1024 : 4 * 1024 * 1024);
        expect(forwarded).toEqual([]);
        expect(await merchantCount()).toBe(merchantsBefore);
      });
    }
  }

  it('is 413 before authentication: an anonymous 50 MB body is not read either', async () => {
    const outcome = await rawRequest('POST', '/api/saleitems/add', {}, FIFTY_MB, false);
    expect(outcome.status).toBe(413);
    expect(outcome.bytesSent).toBeLessThan(4 * 1024 * 1024);
  });

  it('is configurable with MAX_BODY_BYTES: the same request passes under the limit and is 413 over it', async () => {
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const fits = await small.request('POST', '/admin/merchants', {
      body: { name: 'G'.repeat(100), instance: 'NATIONAL' },
      headers,
    });
    expect(fits.status).toBe(201);
    const tooLarge = await small.request('POST', '/admin/merchants', {
      rawBody: JSON.stringify({ name: 'G'.repeat(3000), instance: 'NATIONAL' }),
      headers,
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('content-type')).toBe('application/problem+json');
  });

  it('refuses a MAX_BODY_BYTES that is not a sensible byte count (the service does not start)', () => {
    for (const value of ['lots', '12.5', '0', String(2 * 1024 ** 3)]) {
      expect(() => maxBodyBytesOf({ MAX_BODY_BYTES: value })).toThrow(/MAX_BODY_BYTES/);
    }
    expect(maxBodyBytesOf({ MAX_BODY_BYTES: '5000000' })).toBe(5_000_000);
    expect(maxBodyBytesOf({})).toBe(DEFAULT_MAX_BODY_BYTES);
  });
});
