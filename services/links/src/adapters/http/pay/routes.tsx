/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { DEFAULT_TIMEZONE, type Processor } from '@payrail/contracts';
import { type Clock, localDate } from '@payrail/time';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { requestCookie, requestHeader } from '@payrail/http';
import { setCookie } from 'hono/cookie';
import { attemptOfProcessorReference } from '../../../application/attempt-of-processor-reference';
import { expireIfDue } from '../../../application/expire-if-due';
import { offeredSavedCards } from '../../../application/offered-saved-cards';
import { type PaymentStep, returnPath } from '../../../application/payment-steps';
import { resumePayment } from '../../../application/resume-payment';
import { ChoiceNotOffered, type PayChoice, startPayment } from '../../../application/start-payment';
import { scheduleOfLink } from '../../../application/link-schedule';
import { isPayable, payOptions, payPageStatus, processorsForLink } from '../../../domain/pay-page';
import { LinkStatus, type PaymentLink } from '../../../domain/payment-link';
import { type CardPayments, CardPaymentsUnavailable, type SavedCard } from '../../../ports/card-payments';
import type { LinkPaymentRepository } from '../../../ports/link-payment-repository';
import type { MerchantProfiles } from '../../../ports/merchant-profiles';
import type { PaymentLinkRepository } from '../../../ports/payment-link-repository';
import type { Subscriptions } from '../../../ports/subscriptions';
import { type CsrfSettings, csrfToken, requireCsrf } from './csrf';
import { type Lang, MESSAGES, pickLang } from './i18n';
import { htmlDocument } from './layout';
import { declineReason, LinkPage, MessagePage, type PayPanel } from './link-page';
import { IframePage, ReceiptPage, WaitingPage } from './payment-pages';
import { originOf, type PayVariables, securityHeaders } from './security-headers';
import { type CustomerVariables, noCustomerSession } from './session';

export interface PayRoutesDeps {
  links: PaymentLinkRepository;
  payments: LinkPaymentRepository;
  merchants: MerchantProfiles;
  /** processor-gateway: saved cards, hosted forms, charges. */
  cards: CardPayments;
  /** subscriptions: a recurrent link's schedule as it is now. */
  subscriptions: Subscriptions;
  clock: Clock;
  /** The public origin of the pay page, where processors send the browser back. */
  publicBaseUrl: string;
  csrf: CsrfSettings;
  /** The processors' public origins: the only ones the page may frame (CSP `frame-src`). */
  processorOrigins: readonly string[];
  /** Sets `c.var.customer` (the customer session); default: nobody is signed in. */
  customerSession?: MiddlewareHandler<{ Variables: CustomerVariables }>;
  /** Registers the pages of who the customer is (`identity-routes.tsx`), before the link's page. */
  identityPages?: (pay: Hono<PayEnv>) => void;
  /** Registers the signed links of the customer e-mails (`care-routes.tsx`), before the link's page. */
  careLinks?: (pay: Hono<PayEnv>) => void;
}

export type PayEnv = { Variables: PayVariables & CustomerVariables & { lang: Lang } };

/** A whole HTML page as the response. */
export function page(c: Context, body: unknown, status: 200 | 400 | 403 | 404 | 409 = 200): Response {
  return c.html(htmlDocument(body), status);
}

const LANG_COOKIE = 'payrail_lang';

/**
 * The processor's form, told what the page around it shows: the customer's language and the amount about
 * to be charged (a card registration that the payment follows knows no amount of its own). Display hints
 * only, which the processor sandbox reads; they change nothing of what is charged.
 */
export function withFormHints(
  url: string,
  lang: Lang,
  link: Pick<PaymentLink, 'amount' | 'currency'>,
): string {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return url;
  }
  target.searchParams.set('lang', lang);
  target.searchParams.set('amount', link.amount);
  target.searchParams.set('currency', link.currency);
  return target.toString();
}

/** The customer's language for this request (`?lang=`, else as chosen before, else `Accept-Language`). */
export function langOf(c: Context): Lang {
  return pickLang(c.req.query('lang'), requestHeader(c, 'accept-language'), requestCookie(c, LANG_COOKIE));
}

/**
 * The hosted pay page (`/pay/*`, public: reached through the gateway without a token). Every response
 * carries the pay page's security headers; every form post needs this browser's CSRF token.
 */
export function payRoutes(deps: PayRoutesDeps) {
  const pay = new Hono<PayEnv>();
  pay.use('*', securityHeaders(deps.processorOrigins));
  pay.use('*', async (c, next) => {
    const lang = langOf(c);
    c.set('lang', lang);
    // Kept across the processor's form, which sends the browser back without our query string.
    if (c.req.query('lang') === lang) {
      setCookie(c, LANG_COOKIE, lang, {
        path: '/pay',
        httpOnly: true,
        sameSite: 'Lax',
        secure: deps.csrf.secureCookies,
      });
    }
    await next();
  });
  pay.use('*', deps.customerSession ?? noCustomerSession());
  pay.use(
    '*',
    requireCsrf(deps.csrf, (c) => {
      const lang = c.get('lang' as never) as Lang;
      return page(
        c,
        <MessagePage
          lang={lang}
          nonce={c.get('cspNonce' as never)}
          path={c.req.path}
          title={MESSAGES[lang].formExpired}
          text={MESSAGES[lang].formExpired}
        />,
        403,
      );
    }),
  );

  deps.identityPages?.(pay);
  deps.careLinks?.(pay);

  const notFound = (c: Context<PayEnv>) =>
    page(
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

  const payDeps = {
    links: deps.links,
    payments: deps.payments,
    merchants: deps.merchants,
    cards: deps.cards,
    clock: deps.clock,
    publicBaseUrl: deps.publicBaseUrl,
  };

  const unavailable = (c: Context<PayEnv>) =>
    c.html(
      htmlDocument(
        <MessagePage
          lang={c.var.lang}
          nonce={c.var.cspNonce}
          path={c.req.path}
          title={MESSAGES[c.var.lang].unavailableTitle}
          text={MESSAGES[c.var.lang].unavailableText}
        />,
      ),
      503,
    );

  const linkPath = (slug: string) => `/pay/${encodeURIComponent(slug)}`;

  /** Where the browser goes after a payment step. */
  async function answerStep(c: Context<PayEnv>, slug: string, step: PaymentStep): Promise<Response> {
    switch (step.kind) {
      case 'not-found':
        return notFound(c);
      case 'back-to-page':
      case 'declined':
        return c.redirect(linkPath(slug), 303);
      case 'redirect':
        return c.redirect(withFormHints(step.url, c.var.lang, step.link), 303);
      case 'paid':
        // The merchant's page exactly as given, its own query string kept; else our receipt.
        return c.redirect(step.link.redirectUrl || `${linkPath(slug)}/receipt`, 303);
      case 'iframe': {
        const merchant = await deps.merchants.find(step.link.merchantId);
        return page(
          c,
          <IframePage
            lang={c.var.lang}
            nonce={c.var.cspNonce}
            path={c.req.path}
            merchantName={merchant?.name ?? ''}
            link={step.link}
            subscription={step.attempt.subscription}
            formUrl={withFormHints(step.formUrl, c.var.lang, step.link)}
            returnPath={returnPath(slug, step.attempt.paymentNumber)}
            processorOrigins={deps.processorOrigins}
          />,
        );
      }
      case 'waiting': {
        const merchant = await deps.merchants.find(step.link.merchantId);
        return page(
          c,
          <WaitingPage
            lang={c.var.lang}
            nonce={c.var.cspNonce}
            path={c.req.path}
            merchantName={merchant?.name ?? ''}
            link={step.link}
            refreshPath={returnPath(slug, step.attempt.paymentNumber)}
          />,
        );
      }
    }
  }

  const validSlug = (slug: string) => /^[\w-]{1,64}$/.test(slug);

  // PROCESSOR_B's return page (set once in its merchant panel) carries only its order hash.
  pay.get('/processor-b/return', async (c) => {
    const hash = c.req.query('hash') ?? '';
    const found = /^[\w-]{1,128}$/.test(hash)
      ? await attemptOfProcessorReference(payDeps, 'PARAGUAY.PROCESSOR_B', hash)
      : undefined;
    if (!found) return notFound(c);
    return c.redirect(returnPath(found.slug, found.paymentNumber), 303);
  });

  pay.post('/:slug/pay', async (c) => {
    const slug = c.req.param('slug');
    if (!validSlug(slug)) return notFound(c);
    const customer = c.var.customer;
    // Not signed in (or the session ended meanwhile): the page asks who the customer is.
    if (!customer) return c.redirect(linkPath(slug), 303);
    const body = await c.req.parseBody();
    const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
    const choice: PayChoice = {
      option: text('option') === 'subscription' ? 'subscription' : 'single',
      savedCardId: text('savedCard') || undefined,
      processor: (text('processor') as Processor | undefined) || undefined,
      saveCard: text('saveCard') === 'yes',
    };
    try {
      const step = await startPayment(payDeps, { slug, payer: customer, choice });
      return answerStep(c, slug, step);
    } catch (error) {
      if (error instanceof ChoiceNotOffered) return c.redirect(linkPath(slug), 303);
      if (error instanceof CardPaymentsUnavailable) return unavailable(c);
      throw error;
    }
  });

  pay.get('/:slug/return/:paymentNumber', async (c) => {
    const slug = c.req.param('slug');
    const paymentNumber = Number(c.req.param('paymentNumber'));
    if (!validSlug(slug) || !Number.isSafeInteger(paymentNumber) || paymentNumber < 1) return notFound(c);
    try {
      const step = await resumePayment(payDeps, {
        slug,
        paymentNumber,
        registrationStatus: c.req.query('status'),
        cancelled: c.req.query('cancelled') === '1' || c.req.query('status') === 'payment_cancel',
      });
      return answerStep(c, slug, step);
    } catch (error) {
      if (error instanceof CardPaymentsUnavailable) return unavailable(c);
      throw error;
    }
  });

  pay.get('/:slug/receipt', async (c) => {
    const slug = c.req.param('slug');
    const link = validSlug(slug) ? await deps.links.findBySlug(slug) : undefined;
    if (!link) return notFound(c);
    if (link.statusId !== LinkStatus.PAID) return c.redirect(linkPath(slug), 303);
    const merchant = await deps.merchants.find(link.merchantId);
    return page(
      c,
      <ReceiptPage
        lang={c.var.lang}
        nonce={c.var.cspNonce}
        path={c.req.path}
        merchantName={merchant?.name ?? ''}
        link={link}
        paidOn={link.paidAt ? localDate(link.paidAt, merchant?.timezone ?? DEFAULT_TIMEZONE) : null}
        reference={link.paidChargeId ?? null}
      />,
    );
  });

  pay.get('/:slug', async (c) => {
    const slug = c.req.param('slug');
    // The link and its merchant's profile in one statement.
    const found = validSlug(slug) ? await deps.links.findBySlugWithMerchant(slug) : undefined;
    if (!found) return notFound(c);
    // A payable link past its validity is written expired now (statusId 6, `link.expired`).
    const link = await expireIfDue(payDeps, found.link);
    const merchant = found.merchant;
    const now = deps.clock.now();
    const status = payPageStatus(link, now);
    // `c.get`, not `c.var`: Hono builds an object of every variable at each `c.var`.
    const lang = c.get('lang');
    const timezone = merchant?.timezone ?? DEFAULT_TIMEZONE;
    // Only where the plan matters: before the first payment (the terms agreed to) and after it.
    const schedule =
      status === 'pending' || status === 'rejected' || status === 'paid'
        ? await scheduleOfLink({ subscriptions: deps.subscriptions }, merchant, link, timezone)
        : undefined;
    let panel: PayPanel | undefined;
    // Without the plan as it is now, the customer cannot agree to it: the subscription is not offered.
    const options = payOptions(link).filter(
      (option) => option !== 'subscription' || schedule?.kind !== 'unavailable',
    );
    if (isPayable(link, now) && options.length > 0) {
      const customer = c.get('customer');
      if (!customer || customer.merchantId !== link.merchantId) {
        panel = {
          kind: 'sign-in',
          noLogin: link.noLoginRequired,
          href: `/pay/${encodeURIComponent(slug)}/${link.noLoginRequired ? 'identify' : 'login'}?lang=${lang}`,
        };
      } else {
        const merchantSite = originOf(link.redirectUrl ?? undefined);
        if (merchantSite) c.set('formRedirectOrigins', [merchantSite]);
        let savedCards: SavedCard[] = [];
        if (merchant) {
          // Without processor-gateway the page still offers a new card.
          savedCards = await offeredSavedCards(payDeps, merchant, link, customer.customerId).catch(() => []);
        }
        panel = {
          kind: 'choose',
          action: `/pay/${encodeURIComponent(slug)}/pay?lang=${lang}`,
          csrf: csrfToken(c, deps.csrf),
          options,
          processors: processorsForLink(link, merchant?.processors ?? []),
          savedCards,
        };
      }
    }
    return page(
      c,
      <LinkPage
        lang={lang}
        nonce={c.get('cspNonce')}
        path={c.req.path}
        merchantName={merchant?.name ?? ''}
        link={link}
        status={status}
        declineReason={declineReason(lang, link.lastDecline)}
        schedule={schedule}
        panel={panel}
      />,
    );
  });

  return pay;
}
