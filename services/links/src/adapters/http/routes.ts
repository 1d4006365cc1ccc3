import {
  createPaymentLinkRequest,
  type MerchantContext,
  type PaymentLinkDetails,
  signedInUserLinkRequest,
} from '@payrail/contracts';
import { jsonBody, problems, requireMerchant } from '@payrail/http';
import { Hono } from 'hono';
import { createPaymentLink } from '../../application/create-payment-link';
import type { CreatePaymentLinkDeps } from '../../application/deps';
import {
  type CreateSignedInUserLinkDeps,
  createSignedInUserLink,
} from '../../application/create-signed-in-user-link';
import { getPaymentLink } from '../../application/get-payment-link';
import { MerchantRuleViolation, PaymentLinkNotFound } from '../../domain/errors';
import { localDateTime } from '@payrail/time';
import { checkSignedInUserAllowed } from '../../domain/merchant-rules';
import { LinkStatus, type PaymentLink } from '../../domain/payment-link';

export interface LinksRoutesDeps extends CreatePaymentLinkDeps, CreateSignedInUserLinkDeps {
  internalSecret: string;
  publicBaseUrl: string;
}

/** Domain errors to HTTP, in one place. */
function toProblem(error: unknown): never {
  if (error instanceof MerchantRuleViolation) {
    const errors = error.field ? [{ path: error.field, message: error.message }] : [];
    throw problems.unprocessable(error.code, error.message, errors);
  }
  if (error instanceof PaymentLinkNotFound) throw problems.notFound('Payment link not found');
  throw error;
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
    createTime: localDateTime(link.createdAt, merchant.timezone),
    expireTime: link.expiresAt ? localDateTime(link.expiresAt, merchant.timezone) : null,
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

  api.post('/saleitems/add', async (c) => {
    const input = await jsonBody(c, createPaymentLinkRequest);
    const link = await createPaymentLink(deps, c.var.merchant, input).catch(toProblem);
    return c.json({
      id: link.id,
      currency: link.currency,
      ammount: link.amount,
      statusId: link.statusId,
      slug: link.slug,
      publicPayUrl: publicPayUrl(deps.publicBaseUrl, link),
    });
  });

  api.post('/ext-app/payrequests/signed-in-user', async (c) => {
    const merchant = c.var.merchant;
    // The endpoint itself is not enabled without a SaaS contract, whatever the body says (spec 7: 422).
    try {
      checkSignedInUserAllowed(merchant);
    } catch (error) {
      toProblem(error);
    }
    const input = await jsonBody(c, signedInUserLinkRequest);
    const { link, customerId, loginCode } = await createSignedInUserLink(deps, merchant, input).catch(
      toProblem,
    );
    return c.json({
      id: link.id,
      currency: link.currency,
      amount: link.amount,
      expireTime: link.expiresAt ? localDateTime(link.expiresAt, merchant.timezone) : null,
      statusId: link.statusId,
      slug: link.slug,
      publicPayUrl: publicPayUrl(deps.publicBaseUrl, link, loginCode),
      userId: customerId,
    });
  });

  api.get('/payrequests/:id', async (c) => {
    const raw = c.req.param('id');
    const id = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(id) || id <= 0) throw problems.notFound('Payment link not found');
    const link = await getPaymentLink(deps, c.var.merchant, id).catch(toProblem);
    return c.json(details(link, c.var.merchant, deps.publicBaseUrl));
  });

  return api;
}
