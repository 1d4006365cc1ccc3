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
  const rest = (formTargets: readonly string[]) =>
    [
      "img-src 'self' data:",
      `frame-src${processors.length > 0 ? processors : " 'none'"}`,
      `form-action 'self'${[...new Set(formTargets)].map((origin) => ` ${origin}`).join('')}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "connect-src 'self'",
    ].join('; ');
  const usual = rest(processorOrigins);
  return (nonce, formRedirectOrigins) =>
    `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; ${
      formRedirectOrigins.length === 0 ? usual : rest([...processorOrigins, ...formRedirectOrigins])
    }`;
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
 * no referrer: the page's URL is the customer's credential, and may carry a login code).
 *
 * They are given to Hono before the handler runs (`c.header` then), so the response the handler makes
 * carries them from the start. Set after, Hono's `c.header` rebuilds the finished response around a stream
 * of its body for each header, which the Node server then reads back to write; and setting them in place on
 * the finished response is not seen by every reader of it (`@hono/node-server`'s response keeps the
 * headers it was made with for a reader in memory: the embedded system's gateway). A page whose form may
 * lead to the merchant's site (`formRedirectOrigins`, known only once the handler ran), or a response made
 * without Hono's helpers, gets them after, Hono's way.
 */
export function securityHeaders(processorOrigins: readonly string[]): MiddlewareHandler<{
  Variables: PayVariables;
}> {
  const policy = policyWriter([...new Set(processorOrigins)]);
  return async (c, next) => {
    const nonce = nonceBytes(16).toString('base64');
    c.set('cspNonce', nonce);
    const common = policy(nonce, []);
    c.header('content-security-policy', common);
    for (const [name, value] of FIXED_HEADERS) c.header(name, value);
    await next();
    const formTargets = c.get('formRedirectOrigins') ?? [];
    const headers = c.res.headers;
    if (headers.get('content-security-policy') === common && headers.get('x-frame-options') === 'DENY') {
      if (formTargets.length > 0) c.header('content-security-policy', policy(nonce, formTargets));
      return;
    }
    c.header('content-security-policy', policy(nonce, formTargets));
    for (const [name, value] of FIXED_HEADERS) c.header(name, value);
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
