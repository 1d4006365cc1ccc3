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
  fetch?: typeof fetch;
}

// Errors that happen before a single byte of the request is written.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export function createProcessorHttp(options: ProcessorHttpOptions) {
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;

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
      async (span) => {
        let response: Response;
        try {
          response = await doFetch(url, {
            method,
            headers: {
              ...currentTraceHeaders(),
              accept: 'application/json',
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: AbortSignal.timeout(options.timeoutMs),
          });
        } catch (error) {
          return classifyFailure(error);
        }
        span.setAttribute('http.response.status_code', response.status);
        let text: string;
        try {
          // The same deadline covers the body: a processor that sends headers and then stalls is a lost reply.
          text = await response.text();
        } catch (error) {
          return { kind: 'no-answer', reason: `reply cut: ${describe(error)}` };
        }
        return { kind: 'answered', status: response.status, body: parseJson(text), text };
      },
    );
  };
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
