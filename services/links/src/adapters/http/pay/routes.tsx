/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Clock } from '@payrail/time';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import {
  isPayable,
  payOptions,
  payPageStatus,
  processorsForLink,
  staticSchedule,
} from '../../../domain/pay-page';
import type { MerchantProfiles } from '../../../ports/merchant-profiles';
import type { PaymentLinkRepository } from '../../../ports/payment-link-repository';
import { type CsrfSettings, csrfToken, requireCsrf } from './csrf';
import { type Lang, MESSAGES, pickLang } from './i18n';
import { htmlDocument } from './layout';
import { declineReason, LinkPage, MessagePage, type PayPanel } from './link-page';
import { type PayVariables, securityHeaders } from './security-headers';
import { type CustomerVariables, customerSession } from './session';

export interface PayRoutesDeps {
  links: PaymentLinkRepository;
  merchants: MerchantProfiles;
  clock: Clock;
  csrf: CsrfSettings;
  /** The processors' public origins: the only ones the page may frame (CSP `frame-src`). */
  processorOrigins: readonly string[];
  /** Sets `c.var.customer` (the customer session); default: nobody is signed in. */
  customerSession?: MiddlewareHandler<{ Variables: CustomerVariables }>;
}

export type PayEnv = { Variables: PayVariables & CustomerVariables & { lang: Lang } };

/** A whole HTML page as the response. */
export function page(c: Context, body: unknown, status: 200 | 400 | 403 | 404 | 409 = 200): Response {
  return c.html(htmlDocument(body), status);
}

/** The customer's language for this request (`?lang=`, else `Accept-Language`, else Spanish). */
export function langOf(c: Context): Lang {
  return pickLang(c.req.query('lang'), c.req.header('accept-language'));
}

/**
 * The hosted pay page (`/pay/*`, public: reached through the gateway without a token). Every response
 * carries the pay page's security headers; every form post needs this browser's CSRF token.
 */
export function payRoutes(deps: PayRoutesDeps) {
  const pay = new Hono<PayEnv>();
  pay.use('*', securityHeaders(deps.processorOrigins));
  pay.use('*', async (c, next) => {
    c.set('lang', langOf(c));
    await next();
  });
  pay.use('*', deps.customerSession ?? customerSession());
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

  pay.get('/:slug', async (c) => {
    const slug = c.req.param('slug');
    const link = /^[\w-]{1,64}$/.test(slug) ? await deps.links.findBySlug(slug) : undefined;
    if (!link) return notFound(c);
    const merchant = await deps.merchants.find(link.merchantId);
    const now = deps.clock.now();
    const status = payPageStatus(link, now);
    const lang = c.var.lang;
    const timezone = merchant?.timezone ?? 'America/Asuncion';
    let panel: PayPanel | undefined;
    if (isPayable(link, now)) {
      const customer = c.var.customer;
      if (!customer || customer.merchantId !== link.merchantId) {
        panel = {
          kind: 'sign-in',
          noLogin: link.noLoginRequired,
          href: `/pay/${encodeURIComponent(slug)}/${link.noLoginRequired ? 'identify' : 'login'}?lang=${lang}`,
        };
      } else {
        panel = {
          kind: 'choose',
          action: `/pay/${encodeURIComponent(slug)}/pay?lang=${lang}`,
          csrf: csrfToken(c, deps.csrf),
          options: payOptions(link),
          processors: processorsForLink(link, merchant?.processors ?? []),
          savedCards: [],
        };
      }
    }
    return page(
      c,
      <LinkPage
        lang={lang}
        nonce={c.var.cspNonce}
        path={c.req.path}
        merchantName={merchant?.name ?? ''}
        link={link}
        status={status}
        declineReason={declineReason(lang, link.lastDecline)}
        schedule={staticSchedule(link, timezone)}
        panel={panel}
      />,
    );
  });

  return pay;
}
