import type { Context, MiddlewareHandler } from 'hono';
import { requestCookie } from '@payrail/http';
import { deleteCookie, setCookie } from 'hono/cookie';
import { type CustomerSessionDeps, customerOfSession } from '../../../application/customer-sessions';
import type { SessionCustomer } from '../../../domain/customer-session';

/** Who is paying: a customer of the link's merchant (links' `customers.id`), or nobody yet. */
export type PayCustomer = SessionCustomer;

export interface CustomerVariables {
  customer: PayCustomer | null;
}

/** The cookie that carries the session token (its hash is in `customer_sessions`). */
export const SESSION_COOKIE = 'payrail_session';

export interface CustomerSessionSettings extends CustomerSessionDeps {
  /** `Secure` cookies when the public base URL is https. */
  secureCookies: boolean;
  /** The merchant of a link, by its slug (undefined: no such link). */
  merchantOfSlug(slug: string): Promise<string | undefined>;
  /** Keeps the language of the customer's visit: their e-mails speak it (issue 29). */
  rememberLanguage?(customerId: number, lang: string): Promise<void>;
}

/** Paths under `/pay/` that are not a link's slug. */
const NOT_A_SLUG = new Set(['account', 'care']);

function slugOf(path: string): string | undefined {
  const match = /^\/pay\/([\w-]{1,64})(?:\/|$)/.exec(path);
  const slug = match?.[1];
  return slug && !NOT_A_SLUG.has(slug) ? slug : undefined;
}

/**
 * Sets `c.var.customer` from the HttpOnly session cookie. A session belongs to one merchant: on a link's
 * pages (`/pay/{slug}...`) a session of another merchant is nobody. Unknown, expired or ended: nobody.
 */
export function customerSession(
  settings: CustomerSessionSettings,
): MiddlewareHandler<{ Variables: CustomerVariables }> {
  return async (c, next) => {
    let customer = (await customerOfSession(settings, requestCookie(c, SESSION_COOKIE))) ?? null;
    const slug = slugOf(c.req.path);
    if (customer && slug && (await settings.merchantOfSlug(slug)) !== customer.merchantId) customer = null;
    c.set('customer', customer);
    const lang = c.get('lang' as never) as string | undefined;
    if (customer && lang && settings.rememberLanguage)
      await settings.rememberLanguage(customer.customerId, lang);
    await next();
  };
}

/** Gives the browser the session: HttpOnly, SameSite=Lax, Secure on https, for the pay pages only. */
export function setSessionCookie(
  c: Context,
  session: { token: string; expiresAt: Date },
  secureCookies: boolean,
  now: Date,
): void {
  setCookie(c, SESSION_COOKIE, session.token, {
    path: '/pay',
    httpOnly: true,
    sameSite: 'Lax',
    secure: secureCookies,
    maxAge: Math.max(0, Math.floor((session.expiresAt.getTime() - now.getTime()) / 1000)),
  });
}

export function clearSessionCookie(c: Context, secureCookies: boolean): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/pay', httpOnly: true, sameSite: 'Lax', secure: secureCookies });
}

/** The session token the browser sent, if any (for logout). */
export function sessionTokenOf(c: Context): string | undefined {
  return requestCookie(c, SESSION_COOKIE);
}

/** Nobody is signed in: for pages mounted without the session store (component tests of the page alone). */
export function noCustomerSession(): MiddlewareHandler<{ Variables: CustomerVariables }> {
  return async (c, next) => {
    c.set('customer', null);
    await next();
  };
}
