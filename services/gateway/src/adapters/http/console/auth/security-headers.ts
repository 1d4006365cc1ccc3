import type { MiddlewareHandler } from 'hono';

/**
 * The Content-Security-Policy of every console response: everything from our own origin only, no inline
 * script and no inline style at all (the pages' script and styles are files), forms post only to us, no
 * one may frame the console. No referrer (an invitation or reset link is a credential), nothing cached.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function consoleSecurityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.header('content-security-policy', CONSOLE_CSP);
    c.header('x-frame-options', 'DENY');
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', 'no-referrer');
    if (!c.res.headers.has('cache-control')) c.header('cache-control', 'no-store');
  };
}
