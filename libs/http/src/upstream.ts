/**
 * Internal HTTP between services, used only where a person is waiting, so every call has a deadline:
 * a service that hangs costs the caller `timeoutMs`, not a socket held until the client gives up.
 */

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

/**
 * An upstream over HTTP at `baseUrl`: the request's path and query against that base. Node's fetch
 * keeps its connections alive and pools them per origin, so consecutive calls reuse one socket
 * instead of paying a TCP handshake each. Every call has a deadline, `timeoutMs` (default
 * `DEFAULT_UPSTREAM_TIMEOUT_MS`), besides whatever signal the request carries: a caller that forgot
 * `callWithDeadline` still does not wait for ever on a hung service.
 */
export function httpUpstream(baseUrl: string, timeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS): Upstream {
  return (request) => {
    const target = new URL(request.url);
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]);
    return fetch(new Request(new URL(target.pathname + target.search, baseUrl), request), { signal });
  };
}

/**
 * Calls `upstream` and reads its whole answer before `timeoutMs` runs out, or rejects with
 * `UpstreamTimeout` and aborts the call. The body is read inside the deadline so that a service that
 * stalls half-way gives the caller a clean error rather than a truncated response.
 */
export async function callWithDeadline(
  upstream: Upstream,
  request: Request,
  timeoutMs: number,
): Promise<Response> {
  const controller = new AbortController();
  const timedOut = new UpstreamTimeout(timeoutMs);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(timedOut);
      reject(timedOut);
    }, timeoutMs);
  });
  const call = (async () => {
    const response = await upstream(new Request(request, { signal: controller.signal }));
    const body = await response.arrayBuffer();
    const headers = new Headers(response.headers);
    // They described the bytes on the wire; fetch has already decoded and de-chunked what we hold.
    for (const name of WIRE_HEADERS) headers.delete(name);
    return new Response(body.byteLength > 0 ? body : null, { status: response.status, headers });
  })();
  // The loser of the race must not surface as an unhandled rejection.
  call.catch(() => undefined);
  try {
    return await Promise.race([call, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
