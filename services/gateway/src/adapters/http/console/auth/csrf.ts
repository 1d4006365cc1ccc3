import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';

/**
 * CSRF protection of every console form (the pay page's way): a random value in an HttpOnly,
 * SameSite=Strict cookie of this browser, and in each form the HMAC of that value under a key of the
 * gateway's, as the hidden field `csrf`. Another site can make a browser post, but can neither read the
 * field from our page nor make it without this browser's cookie.
 */
export const CSRF_COOKIE = 'payrail_console_csrf';
export const CSRF_FIELD = 'csrf';
export const CSRF_HEADER = 'x-csrf-token';

export interface CsrfSettings {
  key: string;
  secureCookies: boolean;
}

function tokenFor(key: string, browserValue: string): string {
  return createHmac('sha256', key).update(`console-csrf.${browserValue}`).digest('base64url');
}

/** The token of this browser's forms (its cookie set on first use). */
export function csrfTokenOf(c: Context, settings: CsrfSettings): string {
  let browserValue = getCookie(c, CSRF_COOKIE);
  if (!browserValue || !/^[\w-]{32}$/.test(browserValue)) {
    browserValue = randomBytes(24).toString('base64url');
    setCookie(c, CSRF_COOKIE, browserValue, {
      path: '/console',
      httpOnly: true,
      sameSite: 'Strict',
      secure: settings.secureCookies,
    });
  }
  return tokenFor(settings.key, browserValue);
}

/**
 * Whether a form post (or a script's request with the `x-csrf-token` header) carries this browser's
 * token. The body is parsed once here; Hono keeps it for the handler.
 */
export async function csrfValid(c: Context, settings: CsrfSettings): Promise<boolean> {
  const browserValue = getCookie(c, CSRF_COOKIE);
  if (!browserValue) return false;
  let given = c.req.header(CSRF_HEADER);
  if (!given) {
    const body = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const field = body[CSRF_FIELD];
    given = typeof field === 'string' ? field : undefined;
  }
  if (!given) return false;
  const expected = Buffer.from(tokenFor(settings.key, browserValue));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
