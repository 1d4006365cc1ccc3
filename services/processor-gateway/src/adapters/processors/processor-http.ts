import http from 'node:http';
import https from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { currentTraceHeaders, inSpan, SpanKind } from '@payrail/observability';

/**
 * One HTTP exchange with a processor, reduced to what the money rules care about: did the processor answer
 * (and what), or can we prove the request never reached it, or do we not know.
 */
export type ProcessorExchange =
  | { kind: 'answered'; status: number; body: unknown; text: string }
  /** Nothing left this machine (connection refused, no such host): nothing can have been charged. */
  | { kind: 'not-sent'; reason: string }
  /** The request may have reached the processor (timeout, reset, cut reply): anything may have happened. */
  | { kind: 'no-answer'; reason: string };

export interface ProcessorHttpOptions {
  baseUrl: string;
  timeoutMs: number;
  /**
   * Tests only: exchange through this `fetch` (a stub, or one that plays a dying process) instead of
   * node:http. The same rules read its answers and errors.
   */
  fetch?: typeof fetch;
}

/**
 * How long a kept-alive socket to a processor may stay idle in the pool: under the 5 s after which our
 * servers (the sandbox) close an idle connection (`SERVER_KEEP_ALIVE_MS` in `@payrail/http`), so a request
 * rarely goes out on a socket the processor is closing. A processor that announces a shorter
 * `Keep-Alive: timeout=N` is honoured too (Node's agent drops the socket a second before it).
 */
export const PROCESSOR_IDLE_SOCKET_MS = 4_000;

// Errors that happen before a single byte of the request is written.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export function createProcessorHttp(options: ProcessorHttpOptions) {
  const base = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  const send = options.fetch
    ? viaFetch(options.fetch, options.timeoutMs)
    : viaNodeHttp(new URL(base), options.timeoutMs);

  return async function exchange(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<ProcessorExchange> {
    const url = new URL(path.replace(/^\//, ''), base);
    // A client span in the caller's trace; the processor gets its context (W3C `traceparent`) too, which a
    // processor that does not trace ignores.
    return inSpan(
      'processor-gateway',
      `${method} processor`,
      { kind: SpanKind.CLIENT, attributes: { 'http.request.method': method, 'url.path': url.pathname } },
      (span) =>
        send(
          method,
          url,
          {
            ...currentTraceHeaders(),
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body === undefined ? undefined : JSON.stringify(body),
          (status) => span.setAttribute('http.response.status_code', status),
        ),
    );
  };
}

type Send = (
  method: string,
  url: URL,
  headers: Record<string, string>,
  body: string | undefined,
  onStatus: (status: number) => void,
) => Promise<ProcessorExchange>;

/**
 * The exchange over node:http / node:https and a keep-alive agent: no web `Request`, stream or abort signal
 * per call (through `fetch` they were most of the exchange's CPU). One timer is the whole deadline: connect,
 * headers and body. Never sent twice: Node's client does not retry, and neither does this. A request on a
 * reused socket that the processor closed or reset (an idle socket closed just as it went out, or a
 * processor that died on it) may have been read and acted on, so it is `no-answer`, never sent again.
 */
function viaNodeHttp(base: URL, timeoutMs: number): Send {
  const transport = base.protocol === 'https:' ? https : http;
  // `timeout` here times only idle sockets in the pool (a socket in use is timed by the deadline below).
  const agent = new transport.Agent({ keepAlive: true, timeout: PROCESSOR_IDLE_SOCKET_MS });

  return (method, url, headers, body, onStatus) =>
    new Promise<ProcessorExchange>((resolve) => {
      let settled = false;
      // Whether a byte of this request can have left: from the moment its socket is connected (a reused
      // socket always is). Before that, a refused connection or an unknown host proves nothing was sent.
      let connected = false;
      const payload = body === undefined ? undefined : Buffer.from(body);
      if (payload) headers['content-length'] = String(payload.byteLength);

      const call = transport.request(
        {
          protocol: url.protocol,
          hostname: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method,
          headers,
          agent,
        },
        (answer) => {
          const status = answer.statusCode ?? 0;
          onStatus(status);
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('error', (error) =>
            settle({ kind: 'no-answer', reason: `reply cut: ${describe(error)}` }),
          );
          answer.on('close', () => {
            if (!answer.complete) settle({ kind: 'no-answer', reason: 'reply cut: connection closed' });
          });
          answer.on('end', () => {
            let text: string;
            try {
              text = decodeText(
                chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks),
                answer.headers['content-encoding'],
              );
            } catch (error) {
              settle({ kind: 'no-answer', reason: `reply unreadable: ${describe(error)}` });
              return;
            }
            settle({ kind: 'answered', status, body: parseJson(text), text });
          });
        },
      );
      call.on('socket', (socket) => {
        if (!socket.connecting) connected = true;
        else socket.once('connect', () => (connected = true));
      });
      call.on('error', (error) => {
        const code = errorCode(error);
        if (!connected && code && NOT_SENT_CODES.has(code)) settle({ kind: 'not-sent', reason: code });
        else settle({ kind: 'no-answer', reason: describe(error) });
      });
      const timer = setTimeout(() => {
        settle({ kind: 'no-answer', reason: 'timeout' });
        call.destroy();
      }, timeoutMs);

      function settle(outcome: ProcessorExchange) {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      }

      call.end(payload);
    });
}

/** The exchange through a `fetch` (tests): `AbortSignal.timeout` covers the call and the body. */
function viaFetch(doFetch: typeof fetch, timeoutMs: number): Send {
  return async (method, url, headers, body, onStatus) => {
    let response: Response;
    try {
      response = await doFetch(url, { method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      return classifyFailure(error);
    }
    onStatus(response.status);
    let text: string;
    try {
      // The same deadline covers the body: a processor that sends headers and then stalls is a lost reply.
      text = await response.text();
    } catch (error) {
      return { kind: 'no-answer', reason: `reply cut: ${describe(error)}` };
    }
    return { kind: 'answered', status: response.status, body: parseJson(text), text };
  };
}

const DECODERS: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/** The body as `fetch`'s `text()` reads it: decompressed, UTF-8, a leading byte-order mark dropped. */
function decodeText(bytes: Buffer, encoding: string | undefined): string {
  let plain = bytes;
  if (encoding && bytes.byteLength > 0) {
    const name = encoding.trim().toLowerCase();
    if (name !== 'identity') {
      const decode = DECODERS[name];
      if (!decode) throw new Error(`content-encoding ${name}`);
      plain = decode(bytes);
    }
  }
  const text = plain.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export type ProcessorHttp = ReturnType<typeof createProcessorHttp>;

function classifyFailure(error: unknown): ProcessorExchange {
  const code = errorCode(error);
  if (code && NOT_SENT_CODES.has(code)) return { kind: 'not-sent', reason: code };
  return { kind: 'no-answer', reason: describe(error) };
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return 'timeout';
    const code = errorCode(error);
    return code ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * For an answer to a call that moves money and carries none of the processor's own refusals: whether it
 * could still hide a charge. A success status with an unreadable body, a request timeout or a gateway error
 * may come after the processor acted; only an outage page (503) or a client error proves it did not.
 */
export function answerMayHideACharge(status: number): boolean {
  if (status === 503) return false;
  return status < 400 || status === 408 || status >= 500;
}
