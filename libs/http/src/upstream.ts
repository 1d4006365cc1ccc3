/**
 * Internal HTTP between services, used only where a person is waiting, so every call has a deadline:
 * a service that hangs costs the caller `timeoutMs`, not a socket held until the client gives up.
 */
import http from 'node:http';
import https from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type Pool from 'undici/lib/dispatcher/pool.js';

/**
 * One internal call without web `Request`/`Response` objects, as the gateway forwards. `path` is the
 * path and query from the service's root; header names are lower case.
 */
export interface UpstreamCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

/** What `callForAnswer` reads: the status, the headers that describe the answer, the whole body. */
export interface UpstreamAnswer {
  status: number;
  /** Lower-case names; `set-cookie` as a list. The wire headers (encoding, length, connection) are gone. */
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array;
}

/**
 * How one service reaches another: a URL in process mode, the other's app in memory when embedded.
 * Over HTTP (`httpUpstream`) it also has `direct`: the same call without a WHATWG request, a web stream
 * and an abort signal per call, which cost more than the rest of a forwarded request.
 */
export type Upstream = ((request: Request) => Promise<Response>) & {
  direct?: (call: UpstreamCall, timeoutMs: number) => Promise<UpstreamAnswer>;
  /** The same call with its body handed on as it arrives (`callForStream`). */
  streamed?: (call: UpstreamCall, timeoutMs: number) => Promise<StreamedAnswer>;
};

/**
 * What `callForStream` gives: status and headers once they arrived, the body as a stream that reads from
 * the service only as fast as it is read (an export of any size through constant memory).
 */
export interface StreamedAnswer {
  status: number;
  headers: UpstreamAnswer['headers'];
  body: ReadableStream<Uint8Array> | null;
}

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

/** An answer as the client read it: the status, its headers (lower-case names), the decoded body. */
interface ClientAnswer {
  status: number;
  headers: UpstreamAnswer['headers'];
  body: Buffer<ArrayBufferLike>;
}

/**
 * How long a kept-alive socket to a service may stay idle in the pool: under the 5 s after which the
 * services' servers close an idle connection (`SERVER_KEEP_ALIVE_MS`).
 */
export const UPSTREAM_IDLE_SOCKET_MS = 4_000;

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

function safeToSendTwice(method: string, headers: Record<string, string>): boolean {
  if (IDEMPOTENT_METHODS.has(method.toUpperCase())) return true;
  for (const name of Object.keys(headers)) if (name.toLowerCase() === 'idempotency-key') return true;
  return false;
}

/**
 * Request headers the client writes itself or refuses (undici throws on the connection's own headers):
 * a request handed on whole may carry them from the call that reached this service.
 */
const CLIENT_OWN_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'expect',
  'content-length',
]);

/** `headers` without `CLIENT_OWN_HEADERS`; the same object when it has none (the usual case). */
function sendableHeaders(headers: Record<string, string>): Record<string, string> {
  let out: Record<string, string> | undefined;
  for (const name in headers) {
    if (!CLIENT_OWN_HEADERS.has(name.toLowerCase())) continue;
    out ??= { ...headers };
    delete out[name];
  }
  return out ?? headers;
}

/**
 * The answer's headers as Node's client gives them: `set-cookie` always a list, any other header sent
 * twice joined with `, `, the wire headers (encoding, length, connection) left out.
 */
function answerHeaders(parsed: Record<string, string | string[] | undefined>): UpstreamAnswer['headers'] {
  for (const name of WIRE_HEADERS) delete parsed[name];
  for (const name in parsed) {
    const value = parsed[name];
    if (name === 'set-cookie') {
      if (typeof value === 'string') parsed[name] = [value];
    } else if (Array.isArray(value)) parsed[name] = value.join(', ');
  }
  return parsed;
}

/** A socket the service closed or reset before any answer: a kept-alive one, most often, closed while idle. */
const closedBeforeAnswer = (error: NodeJS.ErrnoException) =>
  error.code === 'ECONNRESET' || error.code === 'UND_ERR_SOCKET';

/**
 * undici's pool class, loaded at the first call over HTTP: a process whose services talk in memory (the
 * embedded system) never loads it.
 */
let poolClass: Promise<typeof Pool> | undefined;
const loadPoolClass = () =>
  (poolClass ??= import('undici/lib/dispatcher/pool.js').then((loaded) => loaded.default));

/**
 * An upstream over HTTP at `baseUrl`: the request's path and query against that base, through undici's
 * connection pool (keep-alive: consecutive calls reuse a socket instead of paying a TCP handshake each;
 * its `dispatch` costs about half the CPU of `node:http`'s client per call, which cost an eighth of
 * `fetch`'s). The whole answer is read, a compressed one decoded; redirects are handed back, never
 * followed. Every call has a deadline, `timeoutMs` (default `DEFAULT_UPSTREAM_TIMEOUT_MS`), besides
 * whatever signal the request carries: a caller that forgot `callWithDeadline` still does not wait for
 * ever on a hung service.
 */
export function httpUpstream(baseUrl: string, timeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS): Upstream {
  const base = new URL(baseUrl);
  const transport = base.protocol === 'https:' ? https : http;
  // An idle socket is dropped by this side before the service's server would close it (the race in which
  // a call goes out on a socket the other side is closing); a socket in use is not timed by this. The
  // server's own `Keep-Alive: timeout=` hint, less 2 s, shortens it further.
  let pool: Pool | undefined;
  let poolMade: Promise<unknown> | undefined;
  const makePool = () =>
    (poolMade ??= loadPoolClass().then((PoolClass) => {
      pool = new PoolClass(base.origin, {
        keepAliveTimeout: UPSTREAM_IDLE_SOCKET_MS,
        keepAliveMaxTimeout: UPSTREAM_IDLE_SOCKET_MS,
        pipelining: 1,
        // The call's deadline below is the only timer: these would fail a slow answer with errors of their own.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
    }));
  // The streamed answers (exports) go through Node's client, whose stream reads only as fast as it is read.
  const agent = new transport.Agent({ keepAlive: true, timeout: UPSTREAM_IDLE_SOCKET_MS });
  const basePath = base.pathname.replace(/\/$/, '');

  /** One call, answered whole within `deadlineMs` (else aborted with `UpstreamTimeout`) or aborted by `signal`. */
  function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: Uint8Array | undefined,
    deadlineMs: number,
    signal?: AbortSignal,
    retryClosedSocket = true,
  ): Promise<ClientAnswer> {
    const ready = pool;
    if (!ready)
      return makePool().then(() => send(method, path, headers, body, deadlineMs, signal, retryClosedSocket));
    return new Promise<ClientAnswer>((resolve, reject) => {
      let settled = false;
      let answered = false;
      let status = 502;
      let answerHeadersParsed: Record<string, string | string[] | undefined> = {};
      const chunks: Buffer[] = [];
      let controller: { abort(reason: Error): void } | undefined;
      /** Why the call was given up before it reached a socket (then aborted as soon as it does). */
      let givenUp: Error | undefined;
      const giveUp = (reason: Error) => {
        if (controller) controller.abort(reason);
        else {
          givenUp = reason;
          fail(reason);
        }
      };
      // The error is made only when the deadline passes: an Error per call (its stack) is not free.
      const timer = setTimeout(() => giveUp(new UpstreamTimeout(deadlineMs)), deadlineMs);
      const onAbort = () => giveUp(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      function done() {
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
      function fail(error: Error) {
        if (settled) return;
        done();
        reject(error);
      }
      ready.dispatch(
        { origin: base.origin, path: `${basePath}${path}`, method, headers: sendableHeaders(headers), body },
        {
          onRequestStart(started) {
            controller = started;
            if (givenUp) started.abort(givenUp);
          },
          onResponseStart(_controller, statusCode, parsed) {
            if (statusCode < 200) return; // an informational answer: the real one follows
            answered = true;
            status = statusCode;
            answerHeadersParsed = parsed;
          },
          onResponseData(_controller, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            if (settled) return;
            done();
            try {
              let bytes: Buffer<ArrayBufferLike> =
                chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
              const encoding = answerHeadersParsed['content-encoding'];
              const decode =
                typeof encoding === 'string' ? DECODERS[encoding.trim().toLowerCase()] : undefined;
              if (decode && bytes.byteLength > 0) bytes = decode(bytes);
              // Handed back once undici has put the socket back in the pool, which it does on the next turn
              // of the event loop (`setImmediate`, queued as this returns): a call the caller makes at once
              // then reuses it instead of opening another connection.
              const answer = { status, headers: answerHeaders(answerHeadersParsed), body: bytes };
              process.nextTick(() => setImmediate(resolve, answer));
            } catch (error) {
              reject(error);
            }
          },
          onResponseError(_controller, error: NodeJS.ErrnoException) {
            if (settled) return;
            // A kept-alive socket closed or reset before any answer: most often the other side closed it
            // while idle just as this call went out, and the call never reached the service; but a service
            // that died while handling the call looks the same. So it is sent once more, on a new
            // connection, only when running it twice is harmless: an idempotent method, or a call that
            // carries its idempotency key.
            if (
              retryClosedSocket &&
              !answered &&
              closedBeforeAnswer(error) &&
              safeToSendTwice(method, headers)
            ) {
              done();
              send(method, path, headers, body, deadlineMs, signal, false).then(resolve, reject);
              return;
            }
            fail(error);
          },
        },
      );
    });
  }

  const viaRequest = async (request: Request): Promise<Response> => {
    const target = new URL(request.url);
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const signal = request.signal;
    signal.throwIfAborted();
    const answer = await send(
      request.method,
      `${target.pathname}${target.search}`,
      headers,
      body,
      timeoutMs,
      signal,
    );
    const out = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (typeof value === 'string') out.append(name, value);
      else for (const each of value ?? []) out.append(name, each);
    }
    const empty = answer.body.byteLength === 0 || nullBodyStatus(answer.status);
    return new Response(empty ? null : new Uint8Array(answer.body), { status: answer.status, headers: out });
  };
  const direct = async (
    { method, path, headers, body }: UpstreamCall,
    deadlineMs: number,
  ): Promise<UpstreamAnswer> => {
    const answer = await send(method, path, headers, body, Math.min(deadlineMs, timeoutMs));
    return { status: answer.status, headers: answer.headers, body: answer.body };
  };
  /**
   * The call answered as a stream: the deadline covers the status and headers only (an export may take
   * minutes); the body is read from the socket as the stream is pulled, so the service's sending is held
   * back by the client's reading (TCP backpressure) and nothing is gathered here. Never sent twice.
   */
  const streamed = (
    { method, path, headers, body }: UpstreamCall,
    deadlineMs: number,
  ): Promise<StreamedAnswer> =>
    new Promise<StreamedAnswer>((resolve, reject) => {
      const sent = body ? { ...headers, 'content-length': String(body.byteLength) } : headers;
      const call = transport.request(
        {
          protocol: base.protocol,
          hostname: base.hostname,
          port: base.port,
          path: `${basePath}${path}`,
          method,
          headers: sent,
          agent,
        },
        (answer) => {
          clearTimeout(timer);
          const out: UpstreamAnswer['headers'] = { ...answer.headers };
          for (const name of WIRE_HEADERS) delete out[name];
          const chunks = answer[Symbol.asyncIterator]();
          const stream = new ReadableStream<Uint8Array>(
            {
              async pull(controller) {
                try {
                  const next = await chunks.next();
                  if (next.done) {
                    if (!answer.complete) controller.error(new Error('the answer was cut short'));
                    else controller.close();
                    return;
                  }
                  const chunk = next.value as Buffer;
                  controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
                } catch (error) {
                  controller.error(error);
                }
              },
              cancel() {
                answer.destroy();
              },
            },
            { highWaterMark: 0 },
          );
          resolve({
            status: answer.statusCode ?? 502,
            headers: out,
            body: nullBodyStatus(answer.statusCode ?? 502) ? null : stream,
          });
        },
      );
      const timer = setTimeout(
        () => call.destroy(new UpstreamTimeout(deadlineMs)),
        Math.min(deadlineMs, timeoutMs),
      );
      call.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      call.end(body);
    });
  return Object.assign(viaRequest, { direct, streamed });
}

/**
 * Runs `call` and reads its whole answer before `timeoutMs` runs out, or rejects with `UpstreamTimeout`
 * and aborts the call (through the signal it is given). The body is read inside the deadline so that a
 * service that stalls half-way gives the caller a clean error rather than a truncated response.
 */
async function answerWithin(
  timeoutMs: number,
  call: (signal: AbortSignal) => Promise<Response>,
): Promise<{ status: number; headers: Headers; body: Uint8Array }> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const timedOut = new UpstreamTimeout(timeoutMs);
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

/** The headers of a web answer as `UpstreamAnswer` holds them. */
function headerRecord(headers: Headers): UpstreamAnswer['headers'] {
  const out: UpstreamAnswer['headers'] = {};
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') out[name] = value;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out['set-cookie'] = cookies;
  return out;
}

/**
 * Makes `call` to `upstream` and reads its whole answer before `timeoutMs` runs out (or rejects with
 * `UpstreamTimeout`): status, headers and bytes. Over HTTP without web objects (`Upstream.direct`); an
 * in-memory upstream (embedded mode) gets a `Request`.
 */
export async function callForAnswer(
  upstream: Upstream,
  call: UpstreamCall,
  timeoutMs: number,
): Promise<UpstreamAnswer> {
  if (upstream.direct) return upstream.direct(call, timeoutMs);
  const { status, headers, body } = await answerWithin(timeoutMs, (signal) =>
    upstream(
      new Request(`http://internal${call.path}`, {
        method: call.method,
        headers: call.headers,
        body: call.body,
        signal,
        redirect: 'manual',
      }),
    ),
  );
  return { status, headers: headerRecord(headers), body };
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

/**
 * Makes `call` to `upstream` and hands its answer on as it arrives: status and headers before `timeoutMs`
 * (over HTTP, else `UpstreamTimeout`), the body as a stream read only as fast as the caller reads it. Over HTTP
 * through `Upstream.streamed`; an in-memory upstream (embedded mode) answers a `Response` whose body is a
 * stream.
 */
export async function callForStream(
  upstream: Upstream,
  call: UpstreamCall,
  timeoutMs: number,
): Promise<StreamedAnswer> {
  if (upstream.streamed) return upstream.streamed(call, timeoutMs);
  // In memory the service's app answers at once with its stream: there is no socket to time out.
  const response = await upstream(
    new Request(`http://internal${call.path}`, {
      method: call.method,
      headers: call.headers,
      body: call.body,
      redirect: 'manual',
    }),
  );
  const headers = new Headers(response.headers);
  for (const name of WIRE_HEADERS) headers.delete(name);
  return { status: response.status, headers: headerRecord(headers), body: response.body };
}
