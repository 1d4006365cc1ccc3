/**
 * The merchants' webhook receiver of `npm run bench:webhooks`, its own process so that its work is not the
 * bench's: `POST /m/<merchant>` answers 200 after 1–5 ms (random), or after HANG_MS (10 s) for a merchant
 * told to hang (`POST /__hang/<merchant>`). Each arrival is kept as [merchant, payRequestId, ms since the
 * epoch, webhook-id] and read back with `GET /__arrivals?after=<n>`. PORT.
 */
import http from 'node:http';

const HANG_MS = Number(process.env.HANG_MS ?? 10_000);
const arrivals: Array<[number, number, number, string]> = [];
const hanging = new Set<number>();

const server = http.createServer((request, response) => {
  const url = request.url ?? '/';
  if (request.method === 'GET' && url.startsWith('/__arrivals')) {
    const after = Number(new URL(url, 'http://receiver').searchParams.get('after') ?? 0);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ arrivals: arrivals.slice(after), total: arrivals.length }));
    return;
  }
  const hang = /^\/__hang\/(\d+)$/.exec(url);
  if (request.method === 'POST' && hang) {
    hanging.add(Number(hang[1]));
    response.writeHead(204).end();
    return;
  }
  const merchant = Number(/^\/m\/(\d+)$/.exec(url)?.[1] ?? -1);
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    if (hanging.has(merchant)) {
      setTimeout(() => response.writeHead(200).end('ok'), HANG_MS);
      return;
    }
    let payRequestId = -1;
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        data?: { payRequestId?: number };
      };
      payRequestId = body.data?.payRequestId ?? -1;
    } catch {
      // not JSON: counted with -1
    }
    arrivals.push([merchant, payRequestId, Date.now(), String(request.headers['webhook-id'] ?? '')]);
    setTimeout(() => response.writeHead(200).end('ok'), 1 + Math.floor(Math.random() * 5));
  });
});
server.keepAliveTimeout = 5_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
