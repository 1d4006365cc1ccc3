/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { DEFAULT_TIMEZONE, type MerchantContext, PROCESSORS, type Processor } from '@payrail/contracts';
import { type Clock, localDateTime } from '@payrail/time';
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import {
  type AccountSubscription,
  type CustomerAccountDeps,
  customerAccount,
} from '../../../application/customer-account';
import { type CardPayments, CardPaymentsUnavailable } from '../../../ports/card-payments';
import type { CustomerRepository } from '../../../ports/customer-repository';
import type { MerchantProfiles } from '../../../ports/merchant-profiles';
import { SubscriptionsUnavailable } from '../../../ports/subscriptions';
import { VaultUnavailable } from '../../../ports/vault-cards';
import { sayAccount } from './account-i18n';
import {
  AccountIframePage,
  AccountPage,
  AccountReceiptPage,
  ChangeCardPage,
  dateTimeInWords,
} from './account-pages';
import { type CsrfSettings, csrfToken } from './csrf';
import type { Lang } from './i18n';
import { tell } from './identity-i18n';
import { htmlDocument } from './layout';
import { MessagePage } from './link-page';
import type { PayEnv } from './routes';

export interface AccountPagesDeps extends CustomerAccountDeps {
  merchants: MerchantProfiles;
  customers: CustomerRepository;
  cards: CardPayments;
  clock: Clock;
  csrf: CsrfSettings;
  /** The public origin of the pay page, where the processors send the browser back. */
  publicBaseUrl: string;
  /** The processors' public origins (the iframe's messages are followed only from them). */
  processorOrigins: readonly string[];
}

type PayContext = Context<PayEnv>;
type Status = 200 | 403 | 404 | 503;

/** Which registration this browser opened for which subscription, until the processor sends it back. */
const REGISTRATION_COOKIE = 'payrail_card_registration';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const html = (c: PayContext, body: unknown, status: Status = 200) => c.html(htmlDocument(body), status);

function idOf(raw: string | undefined): number | undefined {
  const value = /^\d{1,15}$/.test(raw ?? '') ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(value) && value >= 1 ? value : undefined;
}

/**
 * The customer's own page (issue 29), mounted inside the pay routes (same security headers, language,
 * CSRF check and `c.var.customer`, the pay page's login; one merchant per session): `/pay/account` with
 * the subscriptions, payments and cards; the card of a subscription; a receipt per payment; cancel where
 * the merchant allows it. A subscription, payment or card that is not the signed-in customer's at the
 * session's merchant is 404, as if it did not exist.
 */
export function accountPages(deps: AccountPagesDeps) {
  const message = (c: PayContext, title: string, text: string, status: Status) =>
    html(
      c,
      <MessagePage lang={c.var.lang} nonce={c.var.cspNonce} path={c.req.path} title={title} text={text} />,
      status,
    );
  const nobody = (c: PayContext) =>
    message(c, sayAccount(c.var.lang, 'pageTitle'), sayAccount(c.var.lang, 'nobody'), 403);
  const notFound = (c: PayContext) => {
    const lang = c.var.lang;
    return message(c, tell(lang, 'accountTitle'), sayAccount(lang, 'unavailable'), 404);
  };
  const unavailable = (c: PayContext) =>
    message(c, sayAccount(c.var.lang, 'pageTitle'), sayAccount(c.var.lang, 'unavailable'), 503);

  /** The signed-in customer and their merchant, or undefined (then the page says nobody is signed in). */
  const who = async (c: PayContext) => {
    const customer = c.var.customer;
    if (!customer) return undefined;
    const merchant = await deps.merchants.find(customer.merchantId);
    return merchant ? { customer, merchant } : undefined;
  };

  const accountHref = (lang: Lang, query = '') => `/pay/account?lang=${lang}${query}`;
  const cardPath = (subscriptionId: number) => `/pay/account/subscriptions/${subscriptionId}/card`;

  /** The customer's subscription, as the customer's page shows it; undefined: not theirs (404). */
  async function ownSubscription(
    merchant: MerchantContext,
    customerId: number,
    subscriptionId: number,
  ): Promise<
    { subscription: AccountSubscription; account: Awaited<ReturnType<typeof customerAccount>> } | undefined
  > {
    const account = await customerAccount(deps, merchant, customerId);
    if (account.subscriptions === undefined) throw new SubscriptionsUnavailable('subscriptions unavailable');
    const subscription = account.subscriptions.find((row) => row.view.subscriptionId === subscriptionId);
    return subscription ? { subscription, account } : undefined;
  }

  /** Gives the subscription the card and goes back to the account page, saying what happened. */
  async function adopt(
    c: PayContext,
    merchant: MerchantContext,
    customerId: number,
    subscriptionId: number,
    card: { paymentMethodId: string; processor: Processor },
  ): Promise<Response> {
    const changed = await deps.subscriptions.changeCard(merchant, customerId, subscriptionId, card);
    if (!changed) return notFound(c);
    const charging = changed.subscription.installments.some((row) => row.status === 'processing');
    return c.redirect(accountHref(c.var.lang, `&card=${charging ? 'charging' : 'changed'}`), 303);
  }

  return (pay: Hono<PayEnv>) => {
    pay.get('/account', async (c) => {
      const found = await who(c);
      if (!found) return nobody(c);
      const { customer, merchant } = found;
      const lang = c.var.lang;
      const account = await customerAccount(deps, merchant, customer.customerId);
      const email = await deps.customers.emailOf(customer.merchantId, customer.customerId);
      const timezone = merchant.timezone || DEFAULT_TIMEZONE;
      const notice =
        c.req.query('card') === 'charging'
          ? sayAccount(lang, 'cardChangedCharging')
          : c.req.query('card') === 'changed'
            ? sayAccount(lang, 'cardChanged')
            : c.req.query('cancelled')
              ? sayAccount(lang, 'cancelled')
              : undefined;
      const error = c.req.query('refused') ? sayAccount(lang, 'notAllowed') : undefined;
      return html(
        c,
        <AccountPage
          lang={lang}
          nonce={c.var.cspNonce}
          path={c.req.path}
          merchantName={merchant.name}
          who={tell(lang, 'signedInAs', {
            who: email ?? tell(lang, 'customerNumber', { id: customer.customerId }),
          })}
          csrf={csrfToken(c, deps.csrf)}
          subscriptions={account.subscriptions}
          payments={account.payments}
          cards={account.cards}
          cancelAllowed={merchant.customerCancelAllowed === true}
          timezoneDateTime={(at) => localDateTime(at, timezone)}
          notice={notice}
          error={error}
          logoutAction={`/pay/account/logout?lang=${lang}`}
        />,
      );
    });

    pay.get('/account/subscriptions/:subscriptionId/card', async (c) => {
      const found = await who(c);
      if (!found) return nobody(c);
      const subscriptionId = idOf(c.req.param('subscriptionId'));
      if (!subscriptionId) return notFound(c);
      try {
        const own = await ownSubscription(found.merchant, found.customer.customerId, subscriptionId);
        if (!own) return notFound(c);
        return changeCardPage(c, found.merchant, own.subscription, own.account.cards ?? []);
      } catch (error) {
        if (error instanceof SubscriptionsUnavailable) return unavailable(c);
        throw error;
      }
    });

    pay.post('/account/subscriptions/:subscriptionId/card', async (c) => {
      const found = await who(c);
      if (!found) return nobody(c);
      const { customer, merchant } = found;
      const subscriptionId = idOf(c.req.param('subscriptionId'));
      if (!subscriptionId) return notFound(c);
      const form = await c.req.parseBody();
      const savedCard = typeof form.savedCard === 'string' ? form.savedCard : '';
      const processor = typeof form.processor === 'string' ? form.processor : '';
      try {
        const own = await ownSubscription(merchant, customer.customerId, subscriptionId);
        if (!own) return notFound(c);
        if (savedCard) {
          // Only a card of this customer's vault at this merchant.
          const card = (own.account.cards ?? []).find((row) => row.paymentMethodId === savedCard);
          if (!card) return notFound(c);
          return await adopt(c, merchant, customer.customerId, subscriptionId, {
            paymentMethodId: card.paymentMethodId,
            processor: card.processor,
          });
        }
        if (!(PROCESSORS as readonly string[]).includes(processor)) {
          return changeCardPage(c, merchant, own.subscription, own.account.cards ?? []);
        }
        if (!merchant.processors.includes(processor as Processor)) return notFound(c);
        const returnPath = `${cardPath(subscriptionId)}/return`;
        const { registrationId, form: hosted } = await deps.cards.openCardRegistration(merchant, {
          customerId: customer.customerId,
          processor: processor as Processor,
          returnUrl: new URL(returnPath, deps.publicBaseUrl).toString(),
        });
        setCookie(c, REGISTRATION_COOKIE, `${subscriptionId}.${registrationId}`, {
          path: '/pay/account',
          httpOnly: true,
          sameSite: 'Lax',
          secure: deps.csrf.secureCookies,
          maxAge: 30 * 60,
        });
        if (hosted.kind === 'redirect') return c.redirect(withLang(hosted.url, c.var.lang), 303);
        return html(
          c,
          <AccountIframePage
            lang={c.var.lang}
            nonce={c.var.cspNonce}
            path={c.req.path}
            merchantName={merchant.name}
            formUrl={withLang(hosted.formUrl, c.var.lang)}
            returnPath={returnPath}
            processorOrigins={deps.processorOrigins}
          />,
        );
      } catch (error) {
        if (
          error instanceof SubscriptionsUnavailable ||
          error instanceof CardPaymentsUnavailable ||
          error instanceof VaultUnavailable
        ) {
          return unavailable(c);
        }
        throw error;
      }
    });

    // The processor sends the browser back here once the card is registered (or refused).
    pay.get('/account/subscriptions/:subscriptionId/card/return', async (c) => {
      const found = await who(c);
      if (!found) return nobody(c);
      const { customer, merchant } = found;
      const subscriptionId = idOf(c.req.param('subscriptionId'));
      if (!subscriptionId) return notFound(c);
      const [ofSubscription, registrationId] = (getCookie(c, REGISTRATION_COOKIE) ?? '').split('.');
      if (Number(ofSubscription) !== subscriptionId || !registrationId || !UUID.test(registrationId)) {
        // Finished before (a reload): the account page tells how things stand.
        return c.redirect(accountHref(c.var.lang), 303);
      }
      try {
        const { saved } = await deps.cards.completeCardRegistration(merchant, registrationId);
        deleteCookie(c, REGISTRATION_COOKIE, { path: '/pay/account' });
        const card = saved.find((row) => row.customerId === customer.customerId);
        if (!card) {
          const own = await ownSubscription(merchant, customer.customerId, subscriptionId);
          if (!own) return notFound(c);
          return changeCardPage(
            c,
            merchant,
            own.subscription,
            own.account.cards ?? [],
            sayAccount(c.var.lang, 'registerFailed'),
          );
        }
        return await adopt(c, merchant, customer.customerId, subscriptionId, {
          paymentMethodId: card.paymentMethodId,
          processor: card.processor,
        });
      } catch (error) {
        if (error instanceof SubscriptionsUnavailable || error instanceof CardPaymentsUnavailable) {
          return unavailable(c);
        }
        throw error;
      }
    });

    pay.post('/account/subscriptions/:subscriptionId/cancel', async (c) => {
      const found = await who(c);
      if (!found) return nobody(c);
      const subscriptionId = idOf(c.req.param('subscriptionId'));
      if (!subscriptionId) return notFound(c);
      // Only where the merchant allows it (off by default).
      if (found.merchant.customerCancelAllowed !== true) {
        return c.redirect(accountHref(c.var.lang, '&refused=1'), 303);
      }
      try {
        const cancelled = await deps.subscriptions.cancel(
          found.merchant,
          found.customer.customerId,
          subscriptionId,
        );
        if (!cancelled) return notFound(c);
      } catch (error) {
        if (error instanceof SubscriptionsUnavailable) return unavailable(c);
        throw error;
      }
      return c.redirect(accountHref(c.var.lang, '&cancelled=1'), 303);
    });

    pay.get('/account/payments/:paymentId', async (c) => {
      const found = await who(c);
      if (!found) return nobody(c);
      const paymentId = c.req.param('paymentId');
      if (!UUID.test(paymentId)) return notFound(c);
      const account = await customerAccount(deps, found.merchant, found.customer.customerId);
      const payment = account.payments?.find((row) => row.id === paymentId);
      if (!payment) return notFound(c);
      const timezone = found.merchant.timezone || DEFAULT_TIMEZONE;
      return html(
        c,
        <AccountReceiptPage
          lang={c.var.lang}
          nonce={c.var.cspNonce}
          path={c.req.path}
          merchantName={found.merchant.name}
          payment={payment}
          when={dateTimeInWords(localDateTime(payment.paidAt, timezone), c.var.lang)}
        />,
      );
    });
  };

  function changeCardPage(
    c: PayContext,
    merchant: MerchantContext,
    subscription: AccountSubscription,
    cards: AccountSubscription['card'][],
    error?: string,
  ) {
    const id = subscription.view.subscriptionId;
    const current = subscription.view.paymentMethodId;
    return html(
      c,
      <ChangeCardPage
        lang={c.var.lang}
        nonce={c.var.cspNonce}
        path={c.req.path}
        merchantName={merchant.name}
        subscription={subscription}
        csrf={csrfToken(c, deps.csrf)}
        action={`${cardPath(id)}?lang=${c.var.lang}`}
        savedCards={cards.filter(
          (card): card is NonNullable<typeof card> =>
            card !== undefined && card.paymentMethodId !== current && !card.blocked,
        )}
        processors={merchant.processors}
        error={error}
      />,
    );
  }
}

/** The processor's form in the customer's language (a display hint the processor sandbox reads). */
function withLang(url: string, lang: Lang): string {
  try {
    const target = new URL(url);
    target.searchParams.set('lang', lang);
    return target.toString();
  } catch {
    return url;
  }
}
