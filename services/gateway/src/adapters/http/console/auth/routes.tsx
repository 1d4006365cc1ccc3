/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { CONSOLE_LANGUAGES, type ConsoleLanguage } from '@payrail/contracts';
import type { Logger } from '@payrail/observability';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AccessDeps } from '../../../../application/access/deps';
import {
  acceptInvitation,
  beginEnrolment,
  changePassword,
  completeSignIn,
  confirmEnrolment,
  disableSecondFactor,
  endSession,
  finishEnrolment,
  type IssuedSession,
  invitedUser,
  requestPasswordReset,
  resetLinkValid,
  resetPassword,
  sessionOf,
  signIn,
} from '../../../../application/access/sign-in';
import { setLanguage } from '../../../../application/access/people';
import type { ConsoleSessionRecord } from '../../../../ports/console-session-store';
import { clientAddressOf } from '../../forward';
import { type AppFetch, callAs, type InProcessCaller } from '../../in-process-caller';
import type { ConsoleApi, ConsoleUser, ConsoleVariables } from '../console-context';
import { csrfTokenOf, csrfValid, type CsrfSettings } from './csrf';
import { fill, MESSAGES } from './i18n';
import { AUTH_STYLESHEET, htmlDocument } from './layout';
import {
  EnrolPage,
  InvitationPage,
  LoginPage,
  MessagePage,
  PasswordChangePage,
  RecoveryCodesPage,
  ResetPage,
  ResetRequestPage,
  SecondFactorOnPage,
  SecondFactorPage,
} from './pages';
import { consoleSecurityHeaders } from './security-headers';
import { AUTH_CSS } from './style';

/** The session cookie: HttpOnly, SameSite=Strict, Secure on https, for `/console` only. */
export const SESSION_COOKIE = 'payrail_console_session';
const LANG_COOKIE = 'payrail_console_lang';

export interface ConsoleAuthSettings {
  deps: AccessDeps;
  /** The gateway's own app: a page's API calls go through it, in process, as the signed-in user. */
  fetch: () => AppFetch;
  /** Signs the CSRF tokens (derived from the internal secret). */
  csrfKey: string;
}

type AuthEnv = { Variables: ConsoleVariables };

/** Where a signed-in person lands: a merchant's console, or the operator's. */
export function homeOf(user: { kind: 'merchant' | 'merchant-user' | 'operator' }): string {
  return user.kind === 'operator' ? '/console/operator' : '/console';
}

/** A `next` that stays inside the console (no open redirect): a path under `/console`, else the home. */
function safeNext(next: unknown, fallback: string): string {
  return typeof next === 'string' && /^\/console(?:[/?#]|$)/.test(next) && !/[\\\s]/.test(next)
    ? next
    : fallback;
}

const isOperatorPath = (path: string) =>
  path === '/console/operator' || path.startsWith('/console/operator/');
/** Pages both kinds of account use (their own password, second factor, language; signing out). */
const isAccountPath = (path: string) =>
  path.startsWith('/console/account/') || path === '/console/logout' || path === '/console/language';
/** Files every page loads, signed in or not. */
const isPublicFile = (path: string) =>
  path.startsWith('/console/assets/') || path.startsWith('/console/auth/');

function pathAndQuery(c: Context): string {
  const url = new URL(c.req.url);
  return `${url.pathname}${url.search}`;
}

/** The language of a page nobody is signed in on: `?lang=`, else as chosen before, else Spanish. */
function anonymousLanguage(c: Context, secureCookies: boolean): ConsoleLanguage {
  const asked = c.req.query('lang');
  if ((CONSOLE_LANGUAGES as readonly string[]).includes(asked ?? '')) {
    setCookie(c, LANG_COOKIE, asked as string, {
      path: '/console',
      sameSite: 'Strict',
      secure: secureCookies,
      httpOnly: true,
    });
    return asked as ConsoleLanguage;
  }
  const kept = getCookie(c, LANG_COOKIE);
  return (CONSOLE_LANGUAGES as readonly string[]).includes(kept ?? '') ? (kept as ConsoleLanguage) : 'es';
}

function formValue(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  return typeof value === 'string' ? value : '';
}

/** The seam's view of who is signed in. */
function consoleUserOf(session: ConsoleSessionRecord): ConsoleUser {
  const user = session.user;
  if (user.kind === 'operator')
    return { kind: 'operator', userId: user.id, email: user.email, name: user.name, language: user.language };
  return {
    kind: 'merchant-user',
    userId: user.id,
    merchantId: user.merchantId as string,
    email: user.email,
    name: user.name,
    role: user.role ?? 'viewer',
    language: user.language,
  };
}

/** The public API as the signed-in person: `/api/*` for a merchant's user, `/admin/*` for the operator's. */
function consoleApiOf(
  fetch: () => AppFetch,
  session: ConsoleSessionRecord,
  clientAddress: string | null,
): ConsoleApi {
  const user = session.user;
  const caller: InProcessCaller =
    user.kind === 'operator'
      ? {
          kind: 'operator',
          principal: { kind: 'operator-user', userId: user.id, email: user.email },
          clientAddress,
        }
      : {
          kind: 'merchant',
          merchant: session.merchant as NonNullable<ConsoleSessionRecord['merchant']>,
          principal: { kind: 'user', userId: user.id, email: user.email, role: user.role ?? 'viewer' },
          clientAddress,
        };
  const prefix = user.kind === 'operator' ? '/admin/' : '/api/';
  return {
    call(request) {
      if (!request.path.startsWith(prefix))
        throw new Error(`a ${user.kind} console page calls ${prefix}*, not ${request.path}`);
      return callAs(fetch(), caller, request);
    },
  };
}

/**
 * The console's sign-in (issue 28): its pages (login, second factor, invitation with TOTP enrolment,
 * password reset, own password and second factor, language, logout), the CSP of every `/console`
 * response, and `signedIn`, the middleware every other console page is mounted behind: it sets the seam's
 * variables (`console-context.ts`) or sends the browser to sign in.
 */
export function consoleAuth(settings: ConsoleAuthSettings): {
  routes: Hono<AuthEnv>;
  signedIn: MiddlewareHandler<AuthEnv>;
} {
  const { deps } = settings;
  const secureCookies = deps.publicBaseUrl.startsWith('https:');
  const csrf: CsrfSettings = { key: settings.csrfKey, secureCookies };
  const html = (c: Context, page: unknown, status = 200) => c.html(htmlDocument(page), status as 200);
  const clientAddress = (c: Context) => clientAddressOf(c) ?? null;

  const giveSession = (c: Context, session: IssuedSession) =>
    setCookie(c, SESSION_COOKIE, session.token, {
      path: '/console',
      httpOnly: true,
      sameSite: 'Strict',
      secure: secureCookies,
    });
  const dropSession = (c: Context) =>
    deleteCookie(c, SESSION_COOKIE, {
      path: '/console',
      httpOnly: true,
      sameSite: 'Strict',
      secure: secureCookies,
    });
  const currentSession = (c: Context) => sessionOf(deps, getCookie(c, SESSION_COOKIE));

  /** Refuses a form post without this browser's token: nothing runs. */
  const requireCsrf: MiddlewareHandler = async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    if (await csrfValid(c, csrf)) return next();
    const lang = anonymousLanguage(c, secureCookies);
    const t = MESSAGES[lang];
    return html(
      c,
      <MessagePage lang={lang} path="/console/login" title={t.forbiddenTitle} text={t.forbiddenCsrf} error />,
      403,
    );
  };

  const routes = new Hono<AuthEnv>();
  routes.use('*', consoleSecurityHeaders());
  routes.get('/auth/style.css', (c) =>
    c.body(AUTH_CSS, 200, {
      'content-type': 'text/css; charset=utf-8',
      'cache-control': 'public, max-age=3600',
    }),
  );

  // Sign-in pages: nobody is signed in yet (a session of another stage may be).
  const signIn_ = new Hono<AuthEnv>();

  const loginPage = async (c: Context, extra: { error?: string; email?: string } = {}, status = 200) => {
    const lang = anonymousLanguage(c, secureCookies);
    const next = safeNext(c.req.query('next'), '/console');
    const operator = isOperatorPath(next);
    return html(
      c,
      <LoginPage
        lang={lang}
        path={pathAndQuery(c)}
        csrf={csrfTokenOf(c, csrf)}
        next={next}
        operator={operator}
        {...extra}
      />,
      status,
    );
  };

  signIn_.get('/login', async (c) => {
    const session = await currentSession(c);
    if (session?.stage === 'full')
      return c.redirect(safeNext(c.req.query('next'), homeOf(session.user)), 303);
    return loginPage(c);
  });

  signIn_.post('/login', requireCsrf, async (c) => {
    const body = await c.req.parseBody();
    const lang = anonymousLanguage(c, secureCookies);
    const t = MESSAGES[lang];
    const email = formValue(body, 'email');
    const outcome = await signIn(deps, {
      email,
      password: formValue(body, 'password'),
      clientAddress: clientAddress(c),
      previousSession: getCookie(c, SESSION_COOKIE),
    });
    const next = formValue(body, 'next');
    if (outcome.outcome === 'signed-in') {
      giveSession(c, outcome.session);
      return c.redirect(safeNext(next, homeOf(outcome.user)), 303);
    }
    if (outcome.outcome === 'second-factor') {
      giveSession(c, outcome.session);
      return c.redirect(`/console/login/second-factor?next=${encodeURIComponent(safeNext(next, ''))}`, 303);
    }
    dropSession(c);
    if (outcome.outcome === 'locked') {
      c.header(
        'retry-after',
        String(Math.max(1, Math.ceil((outcome.until.getTime() - deps.clock.now().getTime()) / 1000))),
      );
      return loginPage(
        c,
        { error: fill(t.loginLocked, { time: outcome.until.toISOString().slice(11, 16) }), email },
        429,
      );
    }
    return loginPage(c, { error: t.loginInvalid, email }, 401);
  });

  const secondFactorPage = (c: Context, error?: string, status = 200) => {
    const lang = anonymousLanguage(c, secureCookies);
    return html(
      c,
      <SecondFactorPage
        lang={lang}
        path={pathAndQuery(c)}
        csrf={csrfTokenOf(c, csrf)}
        next={safeNext(c.req.query('next'), '')}
        error={error}
      />,
      status,
    );
  };

  signIn_.get('/login/second-factor', async (c) => {
    const session = await currentSession(c);
    if (session?.stage !== 'totp') return c.redirect('/console/login', 303);
    return secondFactorPage(c);
  });

  signIn_.post('/login/second-factor', requireCsrf, async (c) => {
    const session = await currentSession(c);
    if (session?.stage !== 'totp') return c.redirect('/console/login', 303);
    const body = await c.req.parseBody();
    const t = MESSAGES[anonymousLanguage(c, secureCookies)];
    const outcome = await completeSignIn(deps, session, formValue(body, 'code'), clientAddress(c));
    if (outcome.outcome === 'signed-in') {
      giveSession(c, outcome.session);
      return c.redirect(safeNext(formValue(body, 'next'), homeOf(outcome.user)), 303);
    }
    if (outcome.outcome === 'locked') {
      dropSession(c);
      c.header(
        'retry-after',
        String(Math.max(1, Math.ceil((outcome.until.getTime() - deps.clock.now().getTime()) / 1000))),
      );
      return loginPage(
        c,
        { error: fill(t.loginLocked, { time: outcome.until.toISOString().slice(11, 16) }) },
        429,
      );
    }
    return secondFactorPage(c, t.codeInvalid, 401);
  });

  // The invitation: a password, then (optionally) the second factor, then signing in.
  const invitationPage = async (c: Context, token: string, error?: string, status = 200) => {
    const lang = anonymousLanguage(c, secureCookies);
    const t = MESSAGES[lang];
    const user = await invitedUser(deps, token);
    if (!user)
      return html(
        c,
        <MessagePage
          lang={lang}
          path={pathAndQuery(c)}
          title={t.invitationTitle}
          text={t.invitationInvalid}
          error
        />,
        410,
      );
    return html(
      c,
      <InvitationPage
        lang={lang}
        path={pathAndQuery(c)}
        csrf={csrfTokenOf(c, csrf)}
        token={token}
        email={user.email}
        name={user.name}
        error={error}
      />,
      status,
    );
  };

  signIn_.get('/invitation/:token', (c) => invitationPage(c, c.req.param('token')));

  signIn_.post('/invitation/:token', requireCsrf, async (c) => {
    const token = c.req.param('token');
    const body = await c.req.parseBody();
    const t = MESSAGES[anonymousLanguage(c, secureCookies)];
    const name = formValue(body, 'name').trim().slice(0, 100);
    const outcome = await acceptInvitation(deps, token, {
      password: formValue(body, 'password'),
      confirmation: formValue(body, 'confirmation'),
      name: name || undefined,
      clientAddress: clientAddress(c),
    });
    if (outcome.outcome === 'refused') return invitationPage(c, token, t.problems[outcome.problem], 400);
    if (outcome.outcome === 'link-invalid') return invitationPage(c, token);
    await endSession(deps, getCookie(c, SESSION_COOKIE));
    giveSession(c, outcome.session);
    return c.redirect('/console/enrol', 303);
  });

  const enrolPage = async (c: Context, session: ConsoleSessionRecord, error?: string, status = 200) => {
    const { secret, uri } = await beginEnrolment(deps, session.user);
    return html(
      c,
      <EnrolPage
        lang={anonymousLanguage(c, secureCookies)}
        path={pathAndQuery(c)}
        csrf={csrfTokenOf(c, csrf)}
        action="/console/enrol"
        skipAction="/console/enrol/skip"
        secret={secret}
        uri={uri}
        error={error}
      />,
      status,
    );
  };

  signIn_.get('/enrol', async (c) => {
    const session = await currentSession(c);
    if (session?.stage !== 'enrol') return c.redirect('/console/login', 303);
    return enrolPage(c, session);
  });

  signIn_.post('/enrol', requireCsrf, async (c) => {
    const session = await currentSession(c);
    if (session?.stage !== 'enrol') return c.redirect('/console/login', 303);
    const body = await c.req.parseBody();
    const lang = anonymousLanguage(c, secureCookies);
    const codes = await confirmEnrolment(deps, session.user, formValue(body, 'code'));
    if (!codes) return enrolPage(c, session, MESSAGES[lang].codeInvalid, 400);
    await finishEnrolment(deps, session);
    dropSession(c);
    const next =
      session.user.kind === 'operator' ? '/console/login?next=%2Fconsole%2Foperator' : '/console/login';
    return html(
      c,
      <RecoveryCodesPage
        lang={lang}
        path={pathAndQuery(c)}
        csrf=""
        codes={codes}
        next={next}
        nextLabel={MESSAGES[lang].continueToLogin}
      />,
    );
  });

  signIn_.post('/enrol/skip', requireCsrf, async (c) => {
    const session = await currentSession(c);
    if (session) await finishEnrolment(deps, session);
    dropSession(c);
    return c.redirect(
      session?.user.kind === 'operator' ? '/console/login?next=%2Fconsole%2Foperator' : '/console/login',
      303,
    );
  });

  // Password reset by e-mail.
  signIn_.get('/password-reset', (c) => {
    const lang = anonymousLanguage(c, secureCookies);
    return html(c, <ResetRequestPage lang={lang} path={pathAndQuery(c)} csrf={csrfTokenOf(c, csrf)} />);
  });

  signIn_.post('/password-reset', requireCsrf, async (c) => {
    const body = await c.req.parseBody();
    await requestPasswordReset(deps, formValue(body, 'email')).catch((error: unknown) =>
      (c.get('logger' as never) as Logger | undefined)?.error(
        { err: error },
        'a password-reset link could not be mailed',
      ),
    );
    const lang = anonymousLanguage(c, secureCookies);
    return html(c, <ResetRequestPage lang={lang} path={pathAndQuery(c)} csrf={csrfTokenOf(c, csrf)} sent />);
  });

  const resetPage = async (c: Context, token: string, error?: string, status = 200) => {
    const lang = anonymousLanguage(c, secureCookies);
    const t = MESSAGES[lang];
    if (!(await resetLinkValid(deps, token)))
      return html(
        c,
        <MessagePage
          lang={lang}
          path={pathAndQuery(c)}
          title={t.resetTitle}
          text={t.resetInvalid}
          error
          link={{ href: '/console/password-reset', label: t.resetTitle }}
        />,
        410,
      );
    return html(
      c,
      <ResetPage
        lang={lang}
        path={pathAndQuery(c)}
        csrf={csrfTokenOf(c, csrf)}
        token={token}
        error={error}
      />,
      status,
    );
  };

  signIn_.get('/password-reset/:token', (c) => resetPage(c, c.req.param('token')));

  signIn_.post('/password-reset/:token', requireCsrf, async (c) => {
    const token = c.req.param('token');
    const body = await c.req.parseBody();
    const lang = anonymousLanguage(c, secureCookies);
    const t = MESSAGES[lang];
    const outcome = await resetPassword(deps, token, {
      password: formValue(body, 'password'),
      confirmation: formValue(body, 'confirmation'),
    });
    if (outcome.outcome === 'refused') return resetPage(c, token, t.problems[outcome.problem], 400);
    if (outcome.outcome === 'link-invalid') return resetPage(c, token);
    dropSession(c);
    return html(
      c,
      <MessagePage
        lang={lang}
        path={pathAndQuery(c)}
        title={t.resetTitle}
        text={t.resetDone}
        link={{ href: '/console/login', label: t.continueToLogin }}
      />,
    );
  });

  routes.route('/', signIn_);

  /**
   * Every other console request: a full session, or the browser is sent to sign in (and back here after).
   * A merchant's user never reaches the operator's pages, nor the operator a merchant's. A form post
   * without this browser's CSRF token is refused before any page runs.
   */
  const signedIn: MiddlewareHandler<AuthEnv> = async (c, next) => {
    if (isPublicFile(c.req.path)) return next();
    const session = await currentSession(c);
    // Half-way through signing in: back to the step awaited (the partial session is kept).
    if (session?.stage === 'totp') return c.redirect('/console/login/second-factor', 303);
    if (session?.stage === 'enrol') return c.redirect('/console/enrol', 303);
    if (!session) {
      if (getCookie(c, SESSION_COOKIE)) dropSession(c);
      return c.redirect(
        `/console/login?next=${encodeURIComponent(safeNext(pathAndQuery(c), '/console'))}`,
        303,
      );
    }
    const kind = session.user.kind;
    if (!isAccountPath(c.req.path) && (kind === 'operator') !== isOperatorPath(c.req.path)) {
      if (c.req.method === 'GET' || c.req.method === 'HEAD') return c.redirect(homeOf(session.user), 303);
      return c.notFound();
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && !(await csrfValid(c, csrf))) {
      const t = MESSAGES[session.user.language];
      return html(
        c,
        <MessagePage
          lang={session.user.language}
          path={homeOf(session.user)}
          title={t.forbiddenTitle}
          text={t.forbiddenCsrf}
          error
          link={{ href: homeOf(session.user), label: t.backToConsole }}
        />,
        403,
      );
    }
    const address = clientAddress(c);
    c.set('consoleUser', consoleUserOf(session));
    c.set('consoleApi', consoleApiOf(settings.fetch, session, address));
    c.set('csrfToken', csrfTokenOf(c, csrf));
    c.set('clientAddress', address ?? '');
    await next();
  };

  // The signed-in person's own account: password, second factor, language; signing out.
  const account = new Hono<AuthEnv>();
  account.use('/logout', signedIn);
  account.use('/language', signedIn);
  account.use('/account/*', signedIn);
  const own = async (c: Context<AuthEnv>) => (await currentSession(c)) as ConsoleSessionRecord;
  const languageOf = (c: Context<AuthEnv>) => c.var.consoleUser.language;
  const operatorOf = (c: Context<AuthEnv>) => c.var.consoleUser.kind === 'operator';

  account.post('/logout', async (c) => {
    await endSession(deps, getCookie(c, SESSION_COOKIE));
    dropSession(c);
    return c.redirect(operatorOf(c) ? '/console/login?next=%2Fconsole%2Foperator' : '/console/login', 303);
  });

  // The layout's language switch: `lang` stored for the user, then back to the page (`back`).
  account.post('/language', async (c) => {
    const body = await c.req.parseBody();
    const language = formValue(body, 'lang');
    if ((CONSOLE_LANGUAGES as readonly string[]).includes(language))
      await setLanguage(deps, c.var.consoleUser.userId, language as ConsoleLanguage);
    return c.redirect(safeNext(formValue(body, 'back'), homeOf(c.var.consoleUser)), 303);
  });

  const passwordPage = (c: Context<AuthEnv>, extra: { error?: string; done?: boolean } = {}, status = 200) =>
    html(
      c,
      <PasswordChangePage
        lang={languageOf(c)}
        path={pathAndQuery(c)}
        csrf={c.var.csrfToken}
        operator={operatorOf(c)}
        home={operatorOf(c) ? '/console/operator' : '/console'}
        {...extra}
      />,
      status,
    );

  account.get('/account/password', (c) => passwordPage(c));
  account.post('/account/password', async (c) => {
    const body = await c.req.parseBody();
    const t = MESSAGES[languageOf(c)];
    const outcome = await changePassword(deps, await own(c), {
      current: formValue(body, 'current'),
      password: formValue(body, 'password'),
      confirmation: formValue(body, 'confirmation'),
      clientAddress: clientAddress(c),
    });
    if (outcome.outcome === 'refused')
      return passwordPage(
        c,
        { error: outcome.problem === 'wrong-current' ? t.wrongCurrent : t.problems[outcome.problem] },
        400,
      );
    giveSession(c, outcome.session);
    return passwordPage(c, { done: true });
  });

  const secondFactorSettings = async (c: Context<AuthEnv>, error?: string, status = 200) => {
    const session = await own(c);
    const user = (await deps.users.find(session.user.id)) ?? session.user;
    const home = operatorOf(c) ? '/console/operator' : '/console';
    if (user.totpEnabledAt)
      return html(
        c,
        <SecondFactorOnPage
          lang={languageOf(c)}
          path={pathAndQuery(c)}
          csrf={c.var.csrfToken}
          operator={operatorOf(c)}
          remaining={await deps.users.unusedRecoveryCodes(user.id)}
          error={error}
          home={home}
        />,
        status,
      );
    const { secret, uri } = await beginEnrolment(deps, user);
    return html(
      c,
      <EnrolPage
        lang={languageOf(c)}
        path={pathAndQuery(c)}
        csrf={c.var.csrfToken}
        operator={operatorOf(c)}
        action="/console/account/two-factor"
        secret={secret}
        uri={uri}
        error={error}
      />,
      status,
    );
  };

  account.get('/account/two-factor', (c) => secondFactorSettings(c));
  account.post('/account/two-factor', async (c) => {
    const body = await c.req.parseBody();
    const session = await own(c);
    const lang = languageOf(c);
    const codes = await confirmEnrolment(deps, session.user, formValue(body, 'code'));
    if (!codes) return secondFactorSettings(c, MESSAGES[lang].codeInvalid, 400);
    return html(
      c,
      <RecoveryCodesPage
        lang={lang}
        path={pathAndQuery(c)}
        csrf={c.var.csrfToken}
        codes={codes}
        next={homeOf(session.user)}
        nextLabel={MESSAGES[lang].backToConsole}
      />,
    );
  });
  account.post('/account/two-factor/disable', async (c) => {
    const body = await c.req.parseBody();
    const session = await own(c);
    if (!(await disableSecondFactor(deps, session.user, formValue(body, 'current'))))
      return secondFactorSettings(c, MESSAGES[languageOf(c)].wrongCurrent, 400);
    return c.redirect('/console/account/two-factor', 303);
  });

  routes.route('/', account);
  return { routes, signedIn };
}

export { AUTH_STYLESHEET };
