/**
 * Internal HTTP between services, used only where a person is waiting, so every call has a deadline:
 * a service that hangs costs the caller `timeoutMs`, not a socket held until the client gives up.
 */
import http from 'node:http';
import https from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

/** How one service reaches another: a URL in process mode, the other's app in memory when embedded. */
export type Upstream = (request: Request) => Promise<Response>;

/** Long enough for a 200 × 60 bulk under load, short enough that a hung service does not pile up callers. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;

const WIRE_HEADERS = ['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive'];

export class UpstreamTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`);
    this.name = 'UpstreamTimeout';
  }
}

const DECODERS: Record<string, (body: Buffer) => Buffer<ArrayBufferLike>> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/** A status that may not carry a body in a `Response`. */
const nullBodyStatus = (status: number) =>
  status === 101 || status === 204 || status === 205 || status === 304;

/**
 * An upstream over HTTP at `baseUrl`: the request's path and query against that base, through Node's
 * `http.request` and a keep-alive agent (consecutive calls reuse a socket instead of paying a TCP
 * handshake each; `fetch` cost about eight times the CPU per internal call). The whole answer is read,
 * a compressed one decoded; redirects are handed back, never followed. Every call has a deadline,
 * `timeoutMs` (default `DEFAULT_UPSTREAM_TIMEOUT_MS`), besides whatever signal the request carries: a
 * caller that forgot `callWithDeadline` still does not wait for ever on a hung service.
 */
export function httpUpstream(baseUrl: string, timeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS): Upstream {
  const base = new URL(baseUrl);
  const transport = base.protocol === 'https:' ? https : http;
  const agent = new transport.Agent({ keepAlive: true });
  const basePath = base.pathname.replace(/\/$/, '');
  return async (request) => {
    const target = new URL(request.url);
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (body) headers['content-length'] = String(body.byteLength);
    const signal = request.signal;
    signal.throwIfAborted();
    return new Promise<Response>((resolve, reject) => {
      const call = transport.request(
        {
          protocol: base.protocol,
          hostname: base.hostname,
          port: base.port,
          path: `${basePath}${target.pathname}${target.search}`,
          method: request.method,
          headers,
          agent,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('error', fail);
          answer.on('close', () => {
            if (!answer.complete) fail(new Error('the answer was cut short'));
          });
          answer.on('end', () => {
            done();
            try {
              const status = answer.statusCode ?? 502;
              const out = new Headers();
              const raw = answer.rawHeaders;
              for (let index = 0; index < raw.length; index += 2)
                out.append(raw[index] as string, raw[index + 1] as string);
              let bytes: Buffer<ArrayBufferLike> = Buffer.concat(chunks);
              const decode = DECODERS[(out.get('content-encoding') ?? '').trim().toLowerCase()];
              if (decode && bytes.byteLength > 0) bytes = decode(bytes);
              for (const name of WIRE_HEADERS) out.delete(name);
              const empty = bytes.byteLength === 0 || nullBodyStatus(status);
              resolve(new Response(empty ? null : new Uint8Array(bytes), { status, headers: out }));
            } catch (error) {
              reject(error);
            }
          });
        },
      );
      const timer = setTimeout(() => call.destroy(new UpstreamTimeout(timeoutMs)), timeoutMs);
      const onAbort = () =>
        call.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      }
      function fail(error: Error) {
        done();
        reject(error);
      }
      call.on('error', fail);
      call.end(body);
    });
  };
}

/** What `callForAnswer` reads: the status, the headers that describe the answer, the whole body. */
export interface UpstreamAnswer {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

/**
 * Runs `call` and reads its whole answer before `timeoutMs` runs out, or rejects with `UpstreamTimeout`
 * and aborts the call (through the signal it is given). The body is read inside the deadline so that a
 * service that stalls half-way gives the caller a clean error rather than a truncated response.
 */
async function answerWithin(
  timeoutMs: number,
  call: (signal: AbortSignal) => Promise<Response>,
): Promise<UpstreamAnswer> {
  const controller = new AbortController();
  const timedOut = new UpstreamTimeout(timeoutMs);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(timedOut);
      reject(timedOut);
    }, timeoutMs);
  });
  const answer = (async () => {
    const response = await call(controller.signal);
    const body = new Uint8Array(await response.arrayBuffer());
    const headers = new Headers(response.headers);
    // They described the bytes on the wire; what we hold is decoded and de-chunked.
    for (const name of WIRE_HEADERS) headers.delete(name);
    return { status: response.status, headers, body };
  })();
  // The loser of the race must not surface as an unhandled rejection.
  answer.catch(() => undefined);
  try {
    return await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Calls `upstream` with the request `url` and `init` describe, and reads its whole answer before
 * `timeoutMs` runs out (or rejects with `UpstreamTimeout`): status, headers and bytes.
 */
export function callForAnswer(
  upstream: Upstream,
  url: string,
  init: Omit<RequestInit, 'signal'>,
  timeoutMs: number,
): Promise<UpstreamAnswer> {
  return answerWithin(timeoutMs, (signal) => upstream(new Request(url, { ...init, signal })));
}

/** The same for a request already made, handed back as a `Response`. */
export async function callWithDeadline(
  upstream: Upstream,
  request: Request,
  timeoutMs: number,
): Promise<Response> {
  const { status, headers, body } = await answerWithin(timeoutMs, (signal) =>
    upstream(new Request(request, { signal })),
  );
  return new Response(body.byteLength > 0 ? body : null, { status, headers });
}
