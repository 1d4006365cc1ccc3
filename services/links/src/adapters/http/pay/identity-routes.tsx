/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Clock } from '@payrail/time';
import type { Context, Hono } from 'hono';
import { consumeLoginCode } from '../../../application/consume-login-code';
import { endCustomerSession, startCustomerSession } from '../../../application/customer-sessions';
import { checkEmailCode, type EmailLoginDeps, requestEmailCode } from '../../../application/email-login';
import { identifyByDocument } from '../../../application/identify-by-document';
import type { SessionCustomer } from '../../../domain/customer-session';
import { EMAIL_CODE_LIFETIME_MS } from '../../../domain/email-login';
import type { CustomerRepository } from '../../../ports/customer-repository';
import type { CustomerSessionRepository } from '../../../ports/customer-session-repository';
import type { LoginCodeRepository } from '../../../ports/login-code-repository';
import type { MerchantProfiles } from '../../../ports/merchant-profiles';
import type { PaymentLinkRepository } from '../../../ports/payment-link-repository';
import { type Subscriptions, SubscriptionsUnavailable } from '../../../ports/subscriptions';
import { type VaultCard, type VaultCards, VaultUnavailable } from '../../../ports/vault-cards';
import { type CsrfSettings, csrfToken } from './csrf';
import { type Lang, MESSAGES } from './i18n';
import { tell } from './identity-i18n';
import { AccountCardsPage, IdentifyPage, LoginCodePage, LoginEmailPage } from './identity-pages';
import { htmlDocument } from './layout';
import { MessagePage } from './link-page';
import type { PayEnv } from './routes';
import { clearSessionCookie, sessionTokenOf, setSessionCookie } from './session';

export interface IdentityPagesDeps {
  links: PaymentLinkRepository;
  merchants: MerchantProfiles;
  clock: Clock;
  csrf: CsrfSettings;
  emailLogins: EmailLoginDeps['emailLogins'];
  mailer: EmailLoginDeps['mailer'];
  sessions: CustomerSessionRepository;
  customers: CustomerRepository;
  loginCodes: LoginCodeRepository;
  vault: VaultCards;
  /** The subscriptions each card is charged for (the panel says so, and warns before a removal). */
  subscriptions?: Subscriptions;
  /** Keys the stored code hashes (the internal secret). */
  secret: string;
  /** Fixed codes in tests; six random digits otherwise. */
  newEmailCode?: () => string;
}

type PayContext = Context<PayEnv>;
type Status = 200 | 400 | 403 | 404 | 429 | 503;

const html = (c: PayContext, body: unknown, status: Status = 200) => c.html(htmlDocument(body), status);
const SLUG = /^[\w-]{1,64}$/;
const linkHref = (slug: string, lang: Lang, page = '') =>
  `/pay/${encodeURIComponent(slug)}${page ? `/${page}` : ''}?lang=${lang}`;

/**
 * The pages that say who the customer is, mounted inside the pay routes (same security headers, language,
 * CSRF check and `c.var.customer`): login by e-mail code, the document number of `noLoginRequired` links,
 * the signed-in-user link's credential, the saved-cards panel and logout.
 */
export function identityPages(deps: IdentityPagesDeps) {
  const sessionDeps = { sessions: deps.sessions, clock: deps.clock };
  const emailDeps: EmailLoginDeps = {
    emailLogins: deps.emailLogins,
    mailer: deps.mailer,
    clock: deps.clock,
    secret: deps.secret,
    newCode: deps.newEmailCode,
  };

  const notFound = (c: PayContext) =>
    html(
      c,
      <MessagePage
        lang={c.var.lang}
        nonce={c.var.cspNonce}
        path={c.req.path}
        title={MESSAGES[c.var.lang].notFoundTitle}
        text={MESSAGES[c.var.lang].notFoundText}
      />,
      404,
    );

  /** The link of `:slug` and its merchant's name, or undefined (then 404). */
  const linkOf = async (c: PayContext) => {
    const slug = c.req.param('slug') ?? '';
    const link = SLUG.test(slug) ? await deps.links.findBySlug(slug) : undefined;
    if (!link) return undefined;
    const merchant = await deps.merchants.find(link.merchantId);
    return { slug, link, merchantName: merchant?.name ?? '' };
  };

  /** Signs the browser in and sends it back to the link's page. */
  const signIn = async (c: PayContext, customer: SessionCustomer, slug: string) => {
    const session = await startCustomerSession(sessionDeps, customer);
    setSessionCookie(c, session, deps.csrf.secureCookies, deps.clock.now());
    return c.redirect(linkHref(slug, c.var.lang), 303);
  };

  const common = (c: PayContext, slug: string, merchantName: string, page: string) => ({
    lang: c.var.lang,
    nonce: c.var.cspNonce,
    path: c.req.path,
    merchantName,
    csrf: csrfToken(c, deps.csrf),
    action: linkHref(slug, c.var.lang, page),
  });

  return (pay: Hono<PayEnv>) => {
    // The signed-in-user link (spec 2.3): `?login=<code>` opens that user's session once, then the clean
    // URL. A used or expired credential: the session still open, else the login page.
    pay.get('/:slug', async (c, next) => {
      const code = c.req.query('login');
      if (code === undefined) return next();
      const slug = c.req.param('slug');
      if (!SLUG.test(slug)) return next();
      const grant = await consumeLoginCode(
        { loginCodes: deps.loginCodes, clock: deps.clock },
        { slug, code },
      );
      if (grant) return signIn(c, { merchantId: grant.merchantId, customerId: grant.customerId }, slug);
      if (c.var.customer) return c.redirect(linkHref(slug, c.var.lang), 303);
      return c.redirect(`${linkHref(slug, c.var.lang, 'login')}&credential=used`, 303);
    });

    pay.get('/:slug/login', async (c) => {
      const found = await linkOf(c);
      if (!found) return notFound(c);
      if (c.var.customer) return c.redirect(linkHref(found.slug, c.var.lang), 303);
      const notice = c.req.query('credential') === 'used' ? tell(c.var.lang, 'credentialUsed') : undefined;
      return html(
        c,
        <LoginEmailPage {...common(c, found.slug, found.merchantName, 'login')} notice={notice} />,
      );
    });

    pay.post('/:slug/login', async (c) => {
      const found = await linkOf(c);
      if (!found) return notFound(c);
      const form = await c.req.parseBody();
      const email = typeof form.email === 'string' ? form.email.trim() : '';
      const props = common(c, found.slug, found.merchantName, 'login');
      const lang = c.var.lang;

      if (form.step === 'verify') {
        const code = typeof form.code === 'string' ? form.code : '';
        const checked = await checkEmailCode(emailDeps, { merchantId: found.link.merchantId, email, code });
        if (checked.ok) {
          return signIn(c, { merchantId: found.link.merchantId, customerId: checked.customerId }, found.slug);
        }
        if (checked.reason === 'wrong-code' && checked.triesLeft > 0) {
          const error = tell(lang, 'wrongCode', { tries: checked.triesLeft });
          return html(c, <LoginCodePage {...props} email={email} minutes={minutes()} error={error} />, 400);
        }
        return html(c, <LoginEmailPage {...props} email={email} error={tell(lang, 'codeDead')} />, 400);
      }

      const sent = await requestEmailCode(emailDeps, {
        merchantId: found.link.merchantId,
        merchantName: found.merchantName,
        email,
        requesterAddress: requesterOf(c),
        wording: {
          subject: (merchant) => tell(lang, 'mailSubject', { merchant }),
          text: (code, merchant, validMinutes) =>
            tell(lang, 'mailText', { code, merchant, minutes: validMinutes }),
        },
      });
      if ('sent' in sent) return html(c, <LoginCodePage {...props} email={email} minutes={minutes()} />);
      if (sent.refused === 'invalid-email') {
        return html(c, <LoginEmailPage {...props} email={email} error={tell(lang, 'invalidEmail')} />, 400);
      }
      if (sent.refused === 'too-many-requests') {
        c.header('retry-after', String(sent.retryAfterSeconds));
        const error = tell(lang, 'tooManyRequests', { minutes: Math.ceil(sent.retryAfterSeconds / 60) });
        return html(c, <LoginEmailPage {...props} email={email} error={error} />, 429);
      }
      return html(c, <LoginEmailPage {...props} email={email} error={tell(lang, 'mailUnavailable')} />, 503);
    });

    pay.get('/:slug/identify', async (c) => {
      const found = await linkOf(c);
      if (!found) return notFound(c);
      if (!found.link.noLoginRequired) return c.redirect(linkHref(found.slug, c.var.lang, 'login'), 303);
      if (c.var.customer) return c.redirect(linkHref(found.slug, c.var.lang), 303);
      return html(c, <IdentifyPage {...common(c, found.slug, found.merchantName, 'identify')} />);
    });

    pay.post('/:slug/identify', async (c) => {
      const found = await linkOf(c);
      if (!found) return notFound(c);
      if (!found.link.noLoginRequired) return c.redirect(linkHref(found.slug, c.var.lang, 'login'), 303);
      const form = await c.req.parseBody();
      const typed = typeof form.documentNumber === 'string' ? form.documentNumber : '';
      const identified = await identifyByDocument(
        { customers: deps.customers, clock: deps.clock, secret: deps.secret },
        found.link,
        { typed, requesterAddress: requesterOf(c) },
      );
      if (identified.ok) {
        return signIn(
          c,
          { merchantId: found.link.merchantId, customerId: identified.customerId },
          found.slug,
        );
      }
      const props = common(c, found.slug, found.merchantName, 'identify');
      if (identified.refused === 'too-many-tries') {
        c.header('retry-after', String(identified.retryAfterSeconds));
        const error = tell(c.var.lang, 'documentTooManyTries', {
          minutes: Math.ceil(identified.retryAfterSeconds / 60),
        });
        return html(c, <IdentifyPage {...props} error={error} />, 429);
      }
      return html(c, <IdentifyPage {...props} error={tell(c.var.lang, 'documentMismatch')} />, 400);
    });

    pay.get('/account/cards', async (c) => accountPage(c));

    pay.post('/account/cards/:paymentMethodId/remove', async (c) => {
      const customer = c.var.customer;
      if (!customer) return accountPage(c);
      const merchant = await deps.merchants.find(customer.merchantId);
      const id = c.req.param('paymentMethodId');
      try {
        if (!merchant || !/^[0-9a-f-]{36}$/i.test(id)) return accountPage(c, { status: 404 });
        const removed = await deps.vault.remove(merchant, customer.customerId, id);
        if (!removed) return accountPage(c, { status: 404 });
      } catch (error) {
        if (!(error instanceof VaultUnavailable)) throw error;
        return accountPage(c, { status: 503, error: tell(c.var.lang, 'cardsUnavailable') });
      }
      return c.redirect(`/pay/account/cards?lang=${c.var.lang}&removed=1`, 303);
    });

    pay.post('/account/logout', async (c) => {
      await endCustomerSession(sessionDeps, sessionTokenOf(c));
      clearSessionCookie(c, deps.csrf.secureCookies);
      const lang = c.var.lang;
      const title = tell(lang, 'logout');
      return html(
        c,
        <MessagePage
          lang={lang}
          nonce={c.var.cspNonce}
          path={c.req.path}
          title={title}
          text={tell(lang, 'loggedOut')}
        />,
      );
    });
  };

  async function accountPage(c: PayContext, options: { status?: Status; error?: string } = {}) {
    const lang = c.var.lang;
    const customer = c.var.customer;
    if (!customer) {
      const title = tell(lang, 'accountTitle');
      return html(
        c,
        <MessagePage
          lang={lang}
          nonce={c.var.cspNonce}
          path={c.req.path}
          title={title}
          text={tell(lang, 'accountNobody')}
        />,
        403,
      );
    }
    const merchant = await deps.merchants.find(customer.merchantId);
    let cards: VaultCard[] | undefined;
    try {
      cards = merchant ? await deps.vault.list(merchant, customer.customerId) : undefined;
    } catch (error) {
      if (!(error instanceof VaultUnavailable)) throw error;
    }
    const email = await deps.customers.emailOf(customer.merchantId, customer.customerId);
    // Which open subscriptions each card is charged for, by the label the customer knows them by.
    const usedBy = new Map<string, string[]>();
    if (merchant && deps.subscriptions) {
      try {
        const open = (await deps.subscriptions.ofCustomer(merchant, customer.customerId)).filter(
          (row) => row.paymentMethodId && (row.status === 'active' || row.status === 'past_due'),
        );
        const labels = new Map(
          (
            await deps.links.findManyForMerchant(
              merchant.merchantId,
              open.map((row) => row.linkId),
            )
          ).map((link) => [link.id, link.label]),
        );
        for (const row of open) {
          const names = usedBy.get(row.paymentMethodId as string) ?? [];
          names.push(labels.get(row.linkId) ?? `#${row.subscriptionId}`);
          usedBy.set(row.paymentMethodId as string, names);
        }
      } catch (error) {
        if (!(error instanceof SubscriptionsUnavailable)) throw error;
      }
    }
    return html(
      c,
      <AccountCardsPage
        lang={lang}
        nonce={c.var.cspNonce}
        path={c.req.path}
        merchantName={merchant?.name ?? ''}
        csrf={csrfToken(c, deps.csrf)}
        who={email ?? tell(lang, 'customerNumber', { id: customer.customerId })}
        cards={cards}
        usedBy={usedBy}
        error={options.error}
        notice={c.req.query('removed') ? tell(lang, 'removed') : undefined}
        removeAction={(card) => `/pay/account/cards/${card.paymentMethodId}/remove?lang=${lang}`}
        logoutAction={`/pay/account/logout?lang=${lang}`}
      />,
      options.status ?? (cards === undefined ? 503 : 200),
    );
  }
}

const minutes = () => EMAIL_CODE_LIFETIME_MS / 60_000;

/**
 * The browser's address for the per-address code limit: the gateway puts the peer it saw in
 * `x-forwarded-for` (links is reached only through it); a request without it counts as one unknown address.
 */
function requesterOf(c: PayContext): string {
  const forwarded = c.req.header('x-forwarded-for');
  return forwarded?.split(',')[0]?.trim() || 'unknown';
}
