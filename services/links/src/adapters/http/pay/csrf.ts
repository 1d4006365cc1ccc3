import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { requestCookie } from '@payrail/http';
import { setCookie } from 'hono/cookie';

/**
 * CSRF protection for every form the pay page posts: a random value in an HttpOnly cookie of this browser,
 * and in each form the HMAC of that value under the service's secret. Another site can make the browser
 * post, but cannot read the page to learn the field; the field alone, without this browser's cookie, is
 * worth nothing either.
 */
export const CSRF_COOKIE = 'payrail_csrf';
export const CSRF_FIELD = '_csrf';

export interface CsrfSettings {
  secret: string;
  /** `Secure` cookies when the public base URL is https. */
  secureCookies: boolean;
}

function tokenFor(secret: string, browserValue: string): string {
  return createHmac('sha256', secret).update(`pay-csrf.${browserValue}`).digest('base64url');
}

/** The token to put in a form this page renders (sets the browser's cookie on first use). */
export function csrfToken(c: Context, settings: CsrfSettings): string {
  let browserValue = requestCookie(c, CSRF_COOKIE);
  if (!browserValue || !/^[\w-]{22,64}$/.test(browserValue)) {
    browserValue = randomBytes(24).toString('base64url');
    setCookie(c, CSRF_COOKIE, browserValue, {
      path: '/pay',
      httpOnly: true,
      sameSite: 'Lax',
      secure: settings.secureCookies,
    });
  }
  return tokenFor(settings.secret, browserValue);
}

/** Whether the posted token belongs to this browser's cookie. */
export function csrfValid(c: Context, settings: CsrfSettings, posted: unknown): boolean {
  const browserValue = requestCookie(c, CSRF_COOKIE);
  if (!browserValue || typeof posted !== 'string') return false;
  const expected = Buffer.from(tokenFor(settings.secret, browserValue));
  const given = Buffer.from(posted);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Refuses (403, a short page) a form post whose token is missing or not this browser's. Runs before any
 * handler of a POST, so nothing is done on a forged request.
 */
export function requireCsrf(
  settings: CsrfSettings,
  refuse: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const body = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    if (!csrfValid(c, settings, (body as Record<string, unknown>)[CSRF_FIELD])) return refuse(c);
    return next();
  };
}
