/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { ConsoleLanguage } from '@payrail/contracts';
import { raw } from 'hono/html';
import { renderSVG } from 'uqr';
import { CSRF_FIELD } from './csrf';
import { fill, MESSAGES } from './i18n';
import { AuthLayout } from './layout';

interface PageBase {
  lang: ConsoleLanguage;
  path: string;
  csrf: string;
  operator?: boolean;
}

function Csrf({ token }: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={token} />;
}

function Notice({ text, error }: { text?: string | undefined; error?: boolean }) {
  if (!text) return null;
  return (
    <p class={error ? 'notice error' : 'notice'} role={error ? 'alert' : 'status'}>
      {text}
    </p>
  );
}

export function LoginPage(props: PageBase & { next: string; email?: string; error?: string }) {
  const t = MESSAGES[props.lang];
  const title = props.operator ? t.operatorLoginTitle : t.loginTitle;
  return (
    <AuthLayout lang={props.lang} title={title} path={props.path} operator={props.operator}>
      <section>
        <h1>{title}</h1>
        <Notice text={props.error} error />
        <form method="post" action="/console/login">
          <Csrf token={props.csrf} />
          <input type="hidden" name="next" value={props.next} />
          <label for="email">{t.email}</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value={props.email ?? ''}
            data-testid="login-email"
          />
          <label for="password">{t.password}</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="current-password"
            required
            data-testid="login-password"
          />
          <button type="submit" data-testid="login-submit">
            {t.login}
          </button>
        </form>
        <p>
          <a href="/console/password-reset">{t.forgotPassword}</a>
        </p>
      </section>
    </AuthLayout>
  );
}

export function SecondFactorPage(props: PageBase & { next: string; error?: string }) {
  const t = MESSAGES[props.lang];
  return (
    <AuthLayout lang={props.lang} title={t.secondFactorTitle} path={props.path}>
      <section>
        <h1>{t.secondFactorTitle}</h1>
        <Notice text={props.error} error />
        <form method="post" action="/console/login/second-factor">
          <Csrf token={props.csrf} />
          <input type="hidden" name="next" value={props.next} />
          <label for="code">{t.code}</label>
          <p class="hint" id="code-hint">
            {t.secondFactorHint}
          </p>
          <input
            id="code"
            name="code"
            type="text"
            inputmode="numeric"
            autocomplete="one-time-code"
            aria-describedby="code-hint"
            required
            data-testid="login-totp"
          />
          <button type="submit" data-testid="login-submit">
            {t.verify}
          </button>
        </form>
      </section>
    </AuthLayout>
  );
}

export function InvitationPage(
  props: PageBase & { token: string; email: string; name: string | null; error?: string },
) {
  const t = MESSAGES[props.lang];
  return (
    <AuthLayout lang={props.lang} title={t.invitationTitle} path={props.path}>
      <section>
        <h1>{t.invitationTitle}</h1>
        <p>{fill(t.invitationFor, { email: props.email })}</p>
        <Notice text={props.error} error />
        <form method="post" action={`/console/invitation/${props.token}`}>
          <Csrf token={props.csrf} />
          <input type="hidden" name="email" value={props.email} autocomplete="username" />
          <label for="name">{t.name}</label>
          <input id="name" name="name" type="text" autocomplete="name" value={props.name ?? ''} />
          <PasswordFields lang={props.lang} testid="invite-password" />
          <button type="submit" data-testid="invite-submit">
            {t.choosePassword}
          </button>
        </form>
      </section>
    </AuthLayout>
  );
}

function PasswordFields({ lang, testid }: { lang: ConsoleLanguage; testid?: string }) {
  const t = MESSAGES[lang];
  return (
    <>
      <label for="password">{t.newPassword}</label>
      <p class="hint" id="password-rules">
        {t.passwordRules}
      </p>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="new-password"
        minlength={12}
        required
        aria-describedby="password-rules"
        data-testid={testid}
      />
      <label for="confirmation">{t.confirmPassword}</label>
      <input
        id="confirmation"
        name="confirmation"
        type="password"
        autocomplete="new-password"
        minlength={12}
        required
      />
    </>
  );
}

/** The QR an authenticator app scans, drawn on the server as SVG (no image request, no script). */
function Qr({ uri, label }: { uri: string; label: string }) {
  const svg = renderSVG(uri, { border: 2 }).replace(
    '<svg ',
    `<svg class="qr" role="img" aria-label="${label}" `,
  );
  return raw(svg);
}

export function EnrolPage(
  props: PageBase & { action: string; skipAction?: string; secret: string; uri: string; error?: string },
) {
  const t = MESSAGES[props.lang];
  return (
    <AuthLayout lang={props.lang} title={t.enrolTitle} path={props.path} operator={props.operator}>
      <section>
        <h1>{t.enrolTitle}</h1>
        <p class="hint">{t.enrolHint}</p>
        <Qr uri={props.uri} label={t.enrolSecret} />
        <p>
          {t.enrolSecret}:{' '}
          <span class="secret" data-testid="totp-secret">
            {props.secret}
          </span>
        </p>
        <Notice text={props.error} error />
        <form method="post" action={props.action}>
          <Csrf token={props.csrf} />
          <label for="code">{t.code}</label>
          <input
            id="code"
            name="code"
            type="text"
            inputmode="numeric"
            autocomplete="one-time-code"
            required
            data-testid="totp-code"
          />
          <button type="submit" data-testid="totp-submit">
            {t.enrolConfirm}
          </button>
        </form>
        {props.skipAction ? (
          <form method="post" action={props.skipAction}>
            <Csrf token={props.csrf} />
            <button type="submit" class="secondary">
              {t.enrolSkip}
            </button>
          </form>
        ) : null}
      </section>
    </AuthLayout>
  );
}

export function RecoveryCodesPage(props: PageBase & { codes: string[]; next: string; nextLabel: string }) {
  const t = MESSAGES[props.lang];
  return (
    <AuthLayout lang={props.lang} title={t.recoveryTitle} path={props.path}>
      <section>
        <h1>{t.recoveryTitle}</h1>
        <p>{t.recoveryHint}</p>
        <ul class="codes" data-testid="recovery-codes">
          {props.codes.map((code) => (
            <li>{code}</li>
          ))}
        </ul>
        <p>
          <a href={props.next}>{props.nextLabel}</a>
        </p>
      </section>
    </AuthLayout>
  );
}

/** A page that only tells something, with a link on. */
export function MessagePage(
  props: Omit<PageBase, 'csrf'> & {
    title: string;
    text: string;
    link?: { href: string; label: string };
    error?: boolean;
  },
) {
  return (
    <AuthLayout lang={props.lang} title={props.title} path={props.path}>
      <section>
        <h1>{props.title}</h1>
        <Notice text={props.text} error={props.error} />
        {props.link ? (
          <p>
            <a href={props.link.href}>{props.link.label}</a>
          </p>
        ) : null}
      </section>
    </AuthLayout>
  );
}

export function ResetRequestPage(props: PageBase & { sent?: boolean }) {
  const t = MESSAGES[props.lang];
  return (
    <AuthLayout lang={props.lang} title={t.resetTitle} path={props.path}>
      <section>
        <h1>{t.resetTitle}</h1>
        <Notice text={props.sent ? t.resetSent : undefined} />
        <p class="hint">{t.resetHint}</p>
        <form method="post" action="/console/password-reset">
          <Csrf token={props.csrf} />
          <label for="email">{t.email}</label>
          <input id="email" name="email" type="email" autocomplete="username" required />
          <button type="submit">{t.resetSend}</button>
        </form>
      </section>
    </AuthLayout>
  );
}

export function ResetPage(props: PageBase & { token: string; error?: string }) {
  const t = MESSAGES[props.lang];
  return (
    <AuthLayout lang={props.lang} title={t.resetTitle} path={props.path}>
      <section>
        <h1>{t.resetTitle}</h1>
        <Notice text={props.error} error />
        <form method="post" action={`/console/password-reset/${props.token}`}>
          <Csrf token={props.csrf} />
          <PasswordFields lang={props.lang} />
          <button type="submit">{t.passwordChange}</button>
        </form>
      </section>
    </AuthLayout>
  );
}

export function PasswordChangePage(props: PageBase & { error?: string; done?: boolean; home: string }) {
  const t = MESSAGES[props.lang];
  return (
    <AuthLayout lang={props.lang} title={t.passwordTitle} path={props.path} operator={props.operator}>
      <section>
        <h1>{t.passwordTitle}</h1>
        <Notice text={props.error} error />
        <Notice text={props.done ? t.passwordChanged : undefined} />
        <form method="post" action="/console/account/password">
          <Csrf token={props.csrf} />
          <label for="current">{t.currentPassword}</label>
          <input id="current" name="current" type="password" autocomplete="current-password" required />
          <PasswordFields lang={props.lang} />
          <button type="submit">{t.passwordChange}</button>
        </form>
        <p>
          <a href={props.home}>{t.backToConsole}</a>
        </p>
      </section>
    </AuthLayout>
  );
}

export function SecondFactorOnPage(props: PageBase & { remaining: number; error?: string; home: string }) {
  const t = MESSAGES[props.lang];
  return (
    <AuthLayout lang={props.lang} title={t.secondFactorTitle} path={props.path} operator={props.operator}>
      <section>
        <h1>{t.secondFactorTitle}</h1>
        <p>{fill(t.secondFactorOn, { count: props.remaining })}</p>
        <Notice text={props.error} error />
        <form method="post" action="/console/account/two-factor/disable">
          <Csrf token={props.csrf} />
          <label for="current">{t.currentPassword}</label>
          <input id="current" name="current" type="password" autocomplete="current-password" required />
          <button type="submit" class="secondary">
            {t.secondFactorDisable}
          </button>
        </form>
        <p>
          <a href={props.home}>{t.backToConsole}</a>
        </p>
      </section>
    </AuthLayout>
  );
}
