import { type MerchantContext, type PaymentLinkDetails, paymentLinkApi } from '@payrail/contracts';
import { answerMethodNotAllowed, requireMerchant, route } from '@payrail/http';
import { Hono } from 'hono';
import { createPaymentLink } from '../../application/create-payment-link';
import type { CreatePaymentLinkDeps } from '../../application/deps';
import {
  type CreateSignedInUserLinkDeps,
  createSignedInUserLink,
} from '../../application/create-signed-in-user-link';
import { getPaymentLink } from '../../application/get-payment-link';
import { localDateTime, localDateTimeWithOffset } from '@payrail/time';
import { checkSignedInUserAllowed } from '../../domain/merchant-rules';
import { LinkStatus, type PaymentLink } from '../../domain/payment-link';
import { toProblem } from './problems';

export interface LinksRoutesDeps extends CreatePaymentLinkDeps, CreateSignedInUserLinkDeps {
  internalSecret: string;
  publicBaseUrl: string;
}

/** `/pay/<slug>`, plus the single-use login code for a signed-in-user link. */
export function publicPayUrl(baseUrl: string, link: Pick<PaymentLink, 'slug'>, loginCode?: string): string {
  const url = new URL(`/pay/${encodeURIComponent(link.slug)}`, baseUrl);
  if (loginCode) url.searchParams.set('login', loginCode);
  return url.toString();
}

function details(link: PaymentLink, merchant: MerchantContext, baseUrl: string): PaymentLinkDetails {
  const terms = link.recurrence;
  return {
    id: link.id,
    statusId: link.statusId,
    paid: link.statusId === LinkStatus.PAID,
    currency: link.currency,
    amount: link.amount,
    label: link.label,
    handleValue: link.handleValue,
    handleLabel: link.handleLabel,
    customIdentifier: link.customIdentifier,
    customIdentifier2: link.customIdentifier2,
    createTime: localDateTimeWithOffset(link.createdAt, merchant.timezone),
    expireTime: link.expiresAt ? localDateTimeWithOffset(link.expiresAt, merchant.timezone) : null,
    slug: link.slug,
    publicPayUrl: publicPayUrl(baseUrl, link),
    singlePayment: link.singlePayment,
    creditAndDebitCard: link.creditAndDebitCard,
    paymentMethods: link.paymentMethods as PaymentLinkDetails['paymentMethods'],
    recurrentPayment: terms !== null,
    recurrentPaymentType: terms?.type ?? null,
    installmentAmount: terms?.type === 'STATIC' ? terms.installmentAmount : null,
    totalPeriods: terms?.type === 'STATIC' ? terms.totalPeriods : null,
    dayOfMonth: terms?.type === 'STATIC' ? terms.dayOfMonth : null,
    monthForSecondInstallment: terms?.type === 'STATIC' ? terms.monthForSecondInstallment : null,
  };
}

export function linksRoutes(deps: LinksRoutesDeps) {
  const api = new Hono<{ Variables: { merchant: MerchantContext } }>();
  api.use('*', requireMerchant(deps.internalSecret));

  const mountedAt = { mountedAt: '/api' };

  route(
    api,
    paymentLinkApi.createPaymentLink,
    async (c, { body }) => {
      const link = await createPaymentLink(deps, c.var.merchant, body).catch(toProblem);
      return c.json({
        id: link.id,
        currency: link.currency,
        ammount: link.amount,
        statusId: link.statusId,
        slug: link.slug,
        publicPayUrl: publicPayUrl(deps.publicBaseUrl, link),
      });
    },
    mountedAt,
  );

  // The endpoint itself is not enabled without a SaaS contract, whatever the body says (spec 7: 422):
  // checked before the body is read.
  api.post('/ext-app/payrequests/signed-in-user', async (c, next) => {
    try {
      checkSignedInUserAllowed(c.var.merchant);
    } catch (error) {
      toProblem(error);
    }
    await next();
  });

  route(
    api,
    paymentLinkApi.createSignedInUserPaymentLink,
    async (c, { body }) => {
      const merchant = c.var.merchant;
      const { link, customerId, loginCode } = await createSignedInUserLink(deps, merchant, body).catch(
        toProblem,
      );
      return c.json({
        id: link.id,
        currency: link.currency,
        amount: link.amount,
        // Spec 2.3 fixes this one format, without a zone: the merchant's wall clock.
        expireTime: link.expiresAt ? localDateTime(link.expiresAt, merchant.timezone) : null,
        statusId: link.statusId,
        slug: link.slug,
        publicPayUrl: publicPayUrl(deps.publicBaseUrl, link, loginCode),
        userId: customerId,
      });
    },
    mountedAt,
  );

  route(
    api,
    paymentLinkApi.getPaymentLink,
    async (c, { params }) => {
      const link = await getPaymentLink(deps, c.var.merchant, params.id).catch(toProblem);
      return c.json(details(link, c.var.merchant, deps.publicBaseUrl));
    },
    mountedAt,
  );

  answerMethodNotAllowed(api);
  return api;
}
