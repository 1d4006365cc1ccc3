import type { MerchantContext } from '@payrail/contracts';
import {
  callForAnswer,
  callForStream,
  HttpProblem,
  requestBytes,
  requestHeader,
  signMerchantContext,
  signOperatorContext,
  type Upstream,
  type UpstreamAnswer,
  UpstreamTimeout,
} from '@payrail/http';
import { currentTraceHeaders } from '@payrail/observability';
import type { ServiceName } from '@payrail/runtime';
import type { Context } from 'hono';

/** Which service owns which public path prefix of the merchant API. */
export const ROUTES: Array<{ prefix: string; service: ServiceName }> = [
  { prefix: '/api/saleitems/', service: 'links' },
  { prefix: '/api/payrequests', service: 'links' },
  { prefix: '/api/ext-app/', service: 'links' },
  { prefix: '/api/customers', service: 'links' },
  { prefix: '/api/customer-emails', service: 'links' },
  { prefix: '/api/subscriptions', service: 'subscriptions' },
  { prefix: '/api/bank-notification/', service: 'processor-gateway' },
  { prefix: '/api/payments', service: 'processor-gateway' },
  { prefix: '/api/reports/', service: 'processor-gateway' },
];

export function ownerOf(path: string): ServiceName | undefined {
  return ROUTES.find((route) => path.startsWith(route.prefix))?.service;
}

const PASSED_HEADERS = ['content-type', 'accept', 'idempotency-key'];

export interface ForwardSettings {
  internalSecret: string;
  /** A service that has not answered completely by then gets the merchant a 504. */
  timeoutMs: number;
}

/**
 * Forwards an authenticated merchant request to the owning service, with the signed merchant context,
 * the request id and the trace context. The `Api-Token` itself never leaves the gateway.
 */
export async function forwardToService(
  c: Context,
  upstream: Upstream,
  merchant: MerchantContext,
  settings: ForwardSettings,
): Promise<Response> {
  return forward(c, upstream, signMerchantContext(merchant, settings.internalSecret), settings.timeoutMs);
}

/**
 * Forwards an operator request (`/admin/*`, bearer token checked here) to the service that owns it, signed
 * as the operator's for that method and path.
 */
export async function forwardOperatorRequest(
  c: Context,
  upstream: Upstream,
  settings: ForwardSettings,
): Promise<Response> {
  const signed = signOperatorContext(c.req.method, new URL(c.req.url).pathname, settings.internalSecret);
  return forward(c, upstream, signed, settings.timeoutMs);
}

/** The path and query of a request URL (`http://host/a/b?c` → `/a/b?c`), without parsing it again. */
function pathAndQueryOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const hash = url.indexOf('#', start);
  return hash < 0 ? url.slice(start) : url.slice(start, hash);
}

/** The request body's bytes (none for GET and HEAD), straight from Node's request where it can be. */
async function bodyOf(c: Context, method: string): Promise<Uint8Array | undefined> {
  if (method === 'GET' || method === 'HEAD') return undefined;
  return new Uint8Array(await requestBytes(c));
}

async function forward(
  c: Context,
  upstream: Upstream,
  signed: Record<string, string>,
  timeoutMs: number,
): Promise<Response> {
  const headers: Record<string, string> = {};
  for (const name of PASSED_HEADERS) {
    const value = requestHeader(c, name);
    if (value) headers[name] = value;
  }
  headers['x-request-id'] = String(c.get('requestId' as never));
  Object.assign(headers, currentTraceHeaders(), signed);
  const path = pathAndQueryOf(c.req.url);
  const method = c.req.method;
  const body = await bodyOf(c, method);
  let answer: UpstreamAnswer;
  try {
    if (asksForExport(method, path, headers.accept)) {
      // An export (the payments ledger's CSV) of any size: handed on as it arrives, never gathered here.
      const streamed = await callForStream(upstream, { method, path, headers, body }, timeoutMs);
      const contentType = streamed.headers['content-type'];
      const out: Record<string, string> =
        typeof contentType === 'string' ? { 'content-type': contentType } : {};
      const disposition = streamed.headers['content-disposition'];
      if (typeof disposition === 'string') out['content-disposition'] = disposition;
      return new Response(streamed.body, { status: streamed.status, headers: out });
    }
    answer = await callForAnswer(upstream, { method, path, headers, body }, timeoutMs);
  } catch (error) {
    const pathname = path.split('?')[0];
    if (error instanceof UpstreamTimeout) {
      throw new HttpProblem(
        504,
        'UPSTREAM_TIMEOUT',
        `The service behind ${pathname} did not answer within ${timeoutMs} ms; the request may or may not have taken effect`,
      );
    }
    throw new HttpProblem(
      502,
      'UPSTREAM_UNAVAILABLE',
      `The service behind ${pathname} did not answer: ${(error as Error).message}`,
    );
  }
  const contentType = answer.headers['content-type'];
  return answerOf(answer, typeof contentType === 'string' ? { 'content-type': contentType } : {});
}

/**
 * A read asking for CSV (`Accept: text/csv`, or `format=csv` in its query): an export, whose answer is
 * streamed rather than read whole.
 */
function asksForExport(method: string, path: string, accept: string | undefined): boolean {
  if (method !== 'GET') return false;
  const query = path.indexOf('?');
  if (query >= 0 && /[?&]format=csv(&|$)/.test(path.slice(query))) return true;
  return accept !== undefined && /(^|[,\s])text\/csv\b/i.test(accept);
}

/** The service's answer as the gateway's response, with the headers chosen to pass. */
function answerOf(answer: UpstreamAnswer, headers: Headers | Record<string, string>): Response {
  const body = answer.body.byteLength > 0 ? answer.body : null;
  return new Response(body, { status: answer.status, headers });
}

/** Request headers a browser's pay page request keeps on its way to links. */
const PUBLIC_REQUEST_HEADERS = ['content-type', 'accept', 'accept-language', 'cookie', 'user-agent'];
/** Response headers of the pay page that reach the browser (cookies, redirects, its security headers). */
const PUBLIC_RESPONSE_HEADERS = [
  'content-type',
  'location',
  'cache-control',
  'content-security-policy',
  'x-frame-options',
  'x-content-type-options',
  'referrer-policy',
  'retry-after',
];

/**
 * Forwards a customer's browser request for the hosted pay page (`/pay/*`) to links: public, so no
 * merchant context and no token; the browser's cookies go along (the customer session, the CSRF value)
 * and links' cookies, redirects and security headers come back. The client address goes as
 * `x-forwarded-for` (rate limits on login codes).
 */
export async function forwardPublicPage(
  c: Context,
  upstream: Upstream,
  clientAddress: string | undefined,
  { timeoutMs }: Pick<ForwardSettings, 'timeoutMs'>,
): Promise<Response> {
  const headers: Record<string, string> = {};
  for (const name of PUBLIC_REQUEST_HEADERS) {
    const value = requestHeader(c, name);
    if (value) headers[name] = value;
  }
  headers['x-request-id'] = String(c.get('requestId' as never));
  if (clientAddress) headers['x-forwarded-for'] = clientAddress;
  Object.assign(headers, currentTraceHeaders());
  const path = pathAndQueryOf(c.req.url);
  const method = c.req.method;
  const body = await bodyOf(c, method);
  let answer: UpstreamAnswer;
  try {
    answer = await callForAnswer(upstream, { method, path, headers, body }, timeoutMs);
  } catch (error) {
    const status = error instanceof UpstreamTimeout ? 504 : 502;
    return new Response(
      '<!doctype html><title>Payment page unavailable</title><p>Try again in a moment.</p>',
      {
        status,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'retry-after': '5',
        },
      },
    );
  }
  // A plain record where it can be: Node's server writes it as it is, where `Headers` would be built here
  // and taken apart again to write the answer. Cookies need `Headers` (a record cannot hold two of them
  // through every path an answer takes).
  const cookies = answer.headers['set-cookie'];
  const out: Record<string, string> | Headers =
    cookies === undefined || cookies.length === 0 ? {} : new Headers();
  for (const name of PUBLIC_RESPONSE_HEADERS) {
    const value = answer.headers[name];
    if (typeof value !== 'string' || !value) continue;
    if (out instanceof Headers) out.set(name, value);
    else out[name] = value;
  }
  if (out instanceof Headers)
    for (const cookie of typeof cookies === 'string' ? [cookies] : (cookies ?? []))
      out.append('set-cookie', cookie);
  return answerOf(answer, out);
}

/** The address of the peer that called the gateway (Node's server socket), when known. */
export function clientAddressOf(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}
