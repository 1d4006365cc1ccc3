import { DEFAULT_PORTS, randomPool } from '@payrail/runtime';
import type { MiddlewareHandler } from 'hono';
import type { LinksConfig } from '../../../config';

/** What the pay page's handlers read from the context: the nonce of this response's inline style/script. */
export interface PayVariables {
  cspNonce: string;
  /**
   * Where a form of this page may also lead: the merchant's `redirectUrl` origin, reached by a 303 right
   * after a one-click payment (browsers hold redirects after a form post to `form-action` too).
   */
  formRedirectOrigins?: string[];
}

/** The origin (`scheme://host:port`) of a URL, or undefined when it is not an http(s) URL. */
export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Content-Security-Policy of a pay page. Nothing loads from elsewhere; frames only from the card
 * processors' origins (PROCESSOR_A's form lives in an iframe); forms post to us, or to a processor (a
 * redirect after our own post counts as the form's target). Inline style and script only with this
 * response's nonce. No one may frame the pay page itself (clickjacking).
 */
export function contentSecurityPolicy(
  nonce: string,
  processorOrigins: readonly string[],
  formRedirectOrigins: readonly string[] = [],
): string {
  return policyWriter(processorOrigins)(nonce, formRedirectOrigins);
}

/**
 * `contentSecurityPolicy` for one list of processors, its text written once: per response only the nonce
 * (and, after a one-click payment, the merchant's origin) goes in.
 */
function policyWriter(
  processorOrigins: readonly string[],
): (nonce: string, formRedirectOrigins: readonly string[]) => string {
  const processors = processorOrigins.length > 0 ? ` ${processorOrigins.join(' ')}` : '';
  const frames = `frame-src${processors.length > 0 ? processors : " 'none'"}`;
  const formAction = (targets: readonly string[]) =>
    `form-action 'self'${targets.map((origin) => ` ${origin}`).join('')}`;
  const tail = [
    "img-src 'self' data:",
    frames,
    formAction([...new Set(processorOrigins)]),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "connect-src 'self'",
  ].join('; ');
  return (nonce, formRedirectOrigins) => {
    const head = `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; `;
    if (formRedirectOrigins.length === 0) return head + tail;
    return (
      head +
      [
        "img-src 'self' data:",
        frames,
        formAction([...new Set([...processorOrigins, ...formRedirectOrigins])]),
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "connect-src 'self'",
      ].join('; ')
    );
  };
}

/** The nonces' bytes, drawn from the system's generator a few KiB at a time (each byte used once). */
const nonceBytes = randomPool();

/** The headers of every pay page response besides its CSP: the same on each. */
const FIXED_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['x-frame-options', 'DENY'],
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
  ['cache-control', 'no-store'],
];

/**
 * Sets the security headers of every pay page response (CSP with a fresh nonce, no framing, no sniffing,
 * no referrer: the page's URL is the customer's credential, and may carry a login code). They are set on
 * the response the handler made, in place: Hono's `c.header` on a finished response rebuilds it around a
 * stream of its body, which the Node server then writes chunk by chunk (chunked, a write each) instead of
 * in one piece with its length. A response whose headers may not change goes Hono's way.
 */
export function securityHeaders(processorOrigins: readonly string[]): MiddlewareHandler<{
  Variables: PayVariables;
}> {
  const policy = policyWriter([...new Set(processorOrigins)]);
  return async (c, next) => {
    const nonce = nonceBytes(16).toString('base64');
    c.set('cspNonce', nonce);
    await next();
    const csp = policy(nonce, c.get('formRedirectOrigins') ?? []);
    try {
      const headers = c.res.headers;
      headers.set('content-security-policy', csp);
      for (const [name, value] of FIXED_HEADERS) headers.set(name, value);
    } catch {
      c.header('content-security-policy', csp);
      for (const [name, value] of FIXED_HEADERS) c.header(name, value);
    }
  };
}

/** What the pay page's CSP reads of links' configuration (`src/config.ts`). */
export type ProcessorUrls = Pick<
  LinksConfig,
  'PROCESSOR_A_URL' | 'PROCESSOR_B_URL' | 'PROCESSOR_SANDBOX_PUBLIC_URL' | 'PROCESSOR_SANDBOX_URL'
>;

/**
 * The processors' origins from the same settings processor-gateway builds their form URLs from: each
 * processor's own URL, the sandbox's (internal and, where browsers reach it elsewhere, public), else the
 * sandbox's default.
 */
export function processorOrigins(urls: ProcessorUrls): string[] {
  const origins = [
    urls.PROCESSOR_A_URL,
    urls.PROCESSOR_B_URL,
    urls.PROCESSOR_SANDBOX_PUBLIC_URL,
    urls.PROCESSOR_SANDBOX_URL,
  ]
    .map(originOf)
    .filter((origin): origin is string => origin !== undefined);
  return origins.length > 0
    ? [...new Set(origins)]
    : [`http://127.0.0.1:${DEFAULT_PORTS['processor-sandbox']}`];
}
