/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { Hono, type MiddlewareHandler } from 'hono';
import { customersPages } from './customers';
import { developersPages } from './developers';
import { homePage } from './home';
import { type ConsoleEnv, type Ctx, type MerchantProfile, PageRefused, page, read, t } from './kit';
import { linksPages } from './links';
import { operatorPages } from './operator';
import { paymentsPages } from './payments';
import { settingsPages } from './settings';
import { NotFoundInstallment, subscriptionsPages } from './subscriptions';

/**
 * The headers of every console page: nothing from elsewhere, styles and scripts only from the console's
 * own files (no inline style or script), forms post to the console only, never framed, never cached.
 * The sign-in may set its own policy first; these are set where it set none.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "script-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "connect-src 'self'",
].join('; ');

const pageHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  const set = (name: string, value: string) => {
    if (!c.res.headers.has(name)) c.header(name, value);
  };
  set('content-security-policy', CONSOLE_CSP);
  set('x-frame-options', 'DENY');
  set('x-content-type-options', 'nosniff');
  set('referrer-policy', 'same-origin');
  set('cache-control', 'no-store');
};

/**
 * The console's pages (`/console/*` once signed in): each reads only the seam's variables
 * (`console-context.ts`) and acts only through `consoleApi`, the public API as the signed-in user. A
 * merchant user gets the merchant's pages, the operator `/console/operator/*`.
 */
export function consolePages(): Hono<ConsoleEnv> {
  const console = new Hono<ConsoleEnv>();
  console.use('*', pageHeaders);
  console.use('*', async (c, next) => {
    // Without the sign-in's variables nobody is signed in: its login page.
    if (!c.get('consoleUser') || !c.get('consoleApi')) return c.redirect('/console/login', 303);
    // The user's own language, as the sign-in stores it (its switch is the sign-in's `/console/language`);
    // never the cookie the sign-in pages keep for a browser nobody is signed in on.
    c.set('lang', c.var.consoleUser.language);
    return next();
  });

  const operator = new Hono<ConsoleEnv>();
  const operatorOnly: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
    if (c.var.consoleUser.kind !== 'operator') return notFound(c);
    return next();
  };
  operator.use('/operator', operatorOnly);
  operator.use('/operator/*', operatorOnly);
  operatorPages(operator);
  console.route('/', operator);

  const merchant = new Hono<ConsoleEnv>();
  merchant.use('*', async (c, next) => {
    if (c.req.path === '/console/operator' || c.req.path.startsWith('/console/operator/')) return next();
    if (c.var.consoleUser.kind !== 'merchant-user') {
      if (c.req.path === '/console' || c.req.path === '/console/')
        return c.redirect('/console/operator', 303);
      return notFound(c);
    }
    c.set('merchantProfile', await read<MerchantProfile>(c, '/api/merchant'));
    return next();
  });
  homePage(merchant);
  linksPages(merchant);
  subscriptionsPages(merchant);
  paymentsPages(merchant);
  customersPages(merchant);
  developersPages(merchant);
  settingsPages(merchant);
  console.route('/', merchant);

  console.notFound((c) => notFound(c as Ctx));
  console.onError((error, c) => {
    if (error instanceof NotFoundInstallment) return notFound(c as Ctx);
    if (error instanceof PageRefused) return refusedPage(c as Ctx, error);
    throw error;
  });
  return console;
}

function notFound(c: Ctx): Response {
  const text = t(c);
  return page(
    c,
    {
      title: text.notFound,
      section: c.var.consoleUser.kind === 'operator' ? 'merchants' : 'home',
      status: 404,
    },
    <>
      <h1>{text.notFound}</h1>
      <p>{text.notFoundHint}</p>
      <p>
        <a href="/console">{text.nav.home}</a>
      </p>
    </>,
  );
}

/** A page whose read the API refused: not found (another merchant's included), not allowed, or down. */
function refusedPage(c: Ctx, error: PageRefused): Response {
  if (error.problem.status === 404 || error.problem.status === 400) return notFound(c);
  const text = t(c);
  const status = error.problem.status === 403 ? 403 : error.problem.status === 401 ? 403 : 502;
  return page(
    c,
    { title: status === 403 ? text.problems.forbidden : text.problems.unavailable, section: 'home', status },
    <>
      <h1>{status === 403 ? text.problems.forbidden : text.problems.unavailable}</h1>
      <p class="muted">{error.problem.detail}</p>
    </>,
  );
}
