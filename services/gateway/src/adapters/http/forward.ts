import type { MerchantContext } from '@payrail/contracts';
import {
  callForAnswer,
  HttpProblem,
  requestBytes,
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
  { prefix: '/api/subscriptions', service: 'subscriptions' },
  { prefix: '/api/bank-notification/', service: 'processor-gateway' },
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

async function forward(
  c: Context,
  upstream: Upstream,
  signed: Record<string, string>,
  timeoutMs: number,
): Promise<Response> {
  const headers = new Headers();
  for (const name of PASSED_HEADERS) {
    const value = c.req.header(name);
    if (value) headers.set(name, value);
  }
  headers.set('x-request-id', String(c.get('requestId' as never)));
  for (const [name, value] of Object.entries({
    ...currentTraceHeaders(),
    ...signed,
  })) {
    headers.set(name, value);
  }
  const url = new URL(c.req.url);
  const method = c.req.method;
  const body = method === 'GET' || method === 'HEAD' ? undefined : await requestBytes(c);
  let answer: UpstreamAnswer;
  try {
    answer = await callForAnswer(
      upstream,
      `http://internal${url.pathname}${url.search}`,
      { method, headers, body },
      timeoutMs,
    );
  } catch (error) {
    if (error instanceof UpstreamTimeout) {
      throw new HttpProblem(
        504,
        'UPSTREAM_TIMEOUT',
        `The service behind ${url.pathname} did not answer within ${timeoutMs} ms; the request may or may not have taken effect`,
      );
    }
    throw new HttpProblem(
      502,
      'UPSTREAM_UNAVAILABLE',
      `The service behind ${url.pathname} did not answer: ${(error as Error).message}`,
    );
  }
  const contentType = answer.headers.get('content-type');
  return answerOf(answer, contentType ? { 'content-type': contentType } : {});
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
  const headers = new Headers();
  for (const name of PUBLIC_REQUEST_HEADERS) {
    const value = c.req.header(name);
    if (value) headers.set(name, value);
  }
  headers.set('x-request-id', String(c.get('requestId' as never)));
  if (clientAddress) headers.set('x-forwarded-for', clientAddress);
  for (const [name, value] of Object.entries(currentTraceHeaders())) headers.set(name, value);
  const url = new URL(c.req.url);
  const method = c.req.method;
  const body = method === 'GET' || method === 'HEAD' ? undefined : await requestBytes(c);
  let answer: UpstreamAnswer;
  try {
    answer = await callForAnswer(
      upstream,
      `http://internal${url.pathname}${url.search}`,
      { method, headers, body, redirect: 'manual' },
      timeoutMs,
    );
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
  const out = new Headers();
  for (const name of PUBLIC_RESPONSE_HEADERS) {
    const value = answer.headers.get(name);
    if (value) out.set(name, value);
  }
  for (const cookie of answer.headers.getSetCookie()) out.append('set-cookie', cookie);
  return answerOf(answer, out);
}

/** The address of the peer that called the gateway (Node's server socket), when known. */
export function clientAddressOf(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}
