/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { sayAccount } from './account-i18n';
import { CSRF_FIELD } from './csrf';
import type { Lang } from './i18n';
import { tell } from './identity-i18n';
import { Layout } from './layout';

interface PageBase {
  lang: Lang;
  nonce: string;
  path: string;
  merchantName?: string;
  csrf: string;
  /** Where the form posts (with `?lang=`). */
  action: string;
  /** A problem to show above the form, in the customer's words. */
  error?: string;
  notice?: string;
}

function Notices(props: { error?: string; notice?: string }) {
  return (
    <>
      {props.error ? (
        <p class="notice error" role="alert" data-testid="identity-error">
          {props.error}
        </p>
      ) : null}
      {props.notice ? (
        <p class="notice" role="status" data-testid="identity-notice">
          {props.notice}
        </p>
      ) : null}
    </>
  );
}

/** Step 1 of the login: the e-mail address. */
export function LoginEmailPage(props: PageBase & { email?: string }) {
  const title = tell(props.lang, 'loginTitle');
  return (
    <Layout
      lang={props.lang}
      nonce={props.nonce}
      path={props.path}
      title={title}
      merchantName={props.merchantName}
    >
      <section aria-labelledby="login-title">
        <h2 id="login-title">{title}</h2>
        <Notices error={props.error} notice={props.notice} />
        <p>{tell(props.lang, 'loginIntro')}</p>
        <form method="post" action={props.action}>
          <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
          <input type="hidden" name="step" value="send" />
          <p>
            <label for="login-email">{tell(props.lang, 'emailLabel')}</label>
            <br />
            <input
              id="login-email"
              type="email"
              name="email"
              autocomplete="email"
              required
              maxlength={254}
              value={props.email ?? ''}
              data-testid="login-email"
            />
          </p>
          <button type="submit" data-testid="login-send">
            {tell(props.lang, 'sendCode')}
          </button>
        </form>
      </section>
    </Layout>
  );
}

/** Step 2 of the login: the 6-digit code mailed to `email`. */
export function LoginCodePage(props: PageBase & { email: string; minutes: number }) {
  const title = tell(props.lang, 'codeTitle');
  return (
    <Layout
      lang={props.lang}
      nonce={props.nonce}
      path={props.path}
      title={title}
      merchantName={props.merchantName}
    >
      <section aria-labelledby="code-title">
        <h2 id="code-title">{title}</h2>
        <Notices error={props.error} notice={props.notice} />
        <p>{tell(props.lang, 'codeSentTo', { email: props.email, minutes: props.minutes })}</p>
        <form method="post" action={props.action}>
          <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
          <input type="hidden" name="step" value="verify" />
          <input type="hidden" name="email" value={props.email} />
          <p>
            <label for="login-code">{tell(props.lang, 'codeLabel')}</label>
            <br />
            <input
              id="login-code"
              type="text"
              name="code"
              inputmode="numeric"
              autocomplete="one-time-code"
              pattern="[0-9]{6}"
              maxlength={6}
              required
              data-testid="login-code"
            />
          </p>
          <button type="submit" data-testid="login-verify">
            {tell(props.lang, 'verify')}
          </button>
        </form>
        <form method="post" action={props.action}>
          <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
          <input type="hidden" name="step" value="send" />
          <input type="hidden" name="email" value={props.email} />
          <button type="submit" class="secondary" data-testid="login-resend">
            {tell(props.lang, 'resend')}
          </button>
        </form>
      </section>
    </Layout>
  );
}

/** `noLoginRequired` links: the customer confirms the link's document number. */
export function IdentifyPage(props: PageBase) {
  const title = tell(props.lang, 'identifyTitle');
  return (
    <Layout
      lang={props.lang}
      nonce={props.nonce}
      path={props.path}
      title={title}
      merchantName={props.merchantName}
    >
      <section aria-labelledby="identify-title">
        <h2 id="identify-title">{title}</h2>
        <Notices error={props.error} notice={props.notice} />
        <p>{tell(props.lang, 'identifyIntro')}</p>
        <form method="post" action={props.action}>
          <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
          <p>
            <label for="nologin-document">{tell(props.lang, 'documentLabel')}</label>
            <br />
            <input
              id="nologin-document"
              type="text"
              name="documentNumber"
              autocomplete="off"
              required
              maxlength={64}
              data-testid="nologin-document"
            />
          </p>
          <button type="submit" data-testid="nologin-continue">
            {tell(props.lang, 'continue')}
          </button>
        </form>
      </section>
    </Layout>
  );
}

/** A card of the vault as the panel shows it: brand, last 4, expiry; nothing more exists here. */
export interface AccountCardView {
  paymentMethodId: string;
  brand: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
  blocked: boolean;
}

const expiryOf = (card: AccountCardView) =>
  `${String(card.expiryMonth).padStart(2, '0')}/${String(card.expiryYear % 100).padStart(2, '0')}`;

/** `/pay/account/cards`: every card of the signed-in customer at the session's merchant, each removable. */
export function AccountCardsPage(
  props: Omit<PageBase, 'action'> & {
    who: string;
    cards: AccountCardView[] | undefined;
    /** The labels of the open subscriptions each card is charged for, by payment method id. */
    usedBy?: Map<string, string[]>;
    removeAction(card: AccountCardView): string;
    logoutAction: string;
  },
) {
  const title = tell(props.lang, 'accountTitle');
  return (
    <Layout
      lang={props.lang}
      nonce={props.nonce}
      path={props.path}
      title={title}
      merchantName={props.merchantName}
    >
      <section aria-labelledby="account-title">
        <h2 id="account-title">{title}</h2>
        <Notices error={props.error} notice={props.notice} />
        <p data-testid="account-who">{tell(props.lang, 'signedInAs', { who: props.who })}</p>
        {props.cards === undefined ? (
          <p class="notice error">{tell(props.lang, 'cardsUnavailable')}</p>
        ) : props.cards.length === 0 ? (
          <p data-testid="account-no-cards">{tell(props.lang, 'accountNoCards')}</p>
        ) : (
          <ul class="cards">
            {props.cards.map((card) => (
              <li
                data-testid="account-card"
                data-last4={card.last4}
                data-payment-method-id={card.paymentMethodId}
              >
                <span>
                  {tell(props.lang, 'accountCard', {
                    brand: card.brand,
                    last4: card.last4,
                    expiry: expiryOf(card),
                  })}
                  {card.blocked ? ` (${tell(props.lang, 'accountCardBlocked')})` : ''}
                </span>
                {props.usedBy?.get(card.paymentMethodId)?.length ? (
                  <>
                    <p data-testid="account-card-used-by">
                      {sayAccount(props.lang, 'usedBy', {
                        labels: (props.usedBy.get(card.paymentMethodId) ?? []).join(', '),
                      })}
                    </p>
                    <p class="notice error" data-testid="account-card-remove-warning">
                      {sayAccount(props.lang, 'removeWarning', {
                        labels: (props.usedBy.get(card.paymentMethodId) ?? []).join(', '),
                      })}
                    </p>
                  </>
                ) : null}
                <form method="post" action={props.removeAction(card)}>
                  <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
                  <button
                    type="submit"
                    class="secondary"
                    aria-label={tell(props.lang, 'removeLabel', { brand: card.brand, last4: card.last4 })}
                    data-testid="account-card-remove"
                  >
                    {tell(props.lang, 'remove')}
                  </button>
                </form>
              </li>
            ))}
          </ul>
        )}
        <form method="post" action={props.logoutAction}>
          <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
          <button type="submit" class="secondary" data-testid="account-logout">
            {tell(props.lang, 'logout')}
          </button>
        </form>
      </section>
    </Layout>
  );
}
