import { createPaymentLinkRequest, type MerchantContext } from '@payrail/contracts';
import { HttpProblem, jsonBody, problems, requireMerchant } from '@payrail/http';
import { Hono } from 'hono';
import { createPaymentLink, type CreatePaymentLinkDeps } from '../../application/create-payment-link';
import { MerchantRuleViolation } from '../../domain/errors';
import type { PaymentLink } from '../../domain/payment-link';
import type { PaymentLinkRepository } from '../../ports/payment-link-repository';

export interface LinksRoutesDeps extends CreatePaymentLinkDeps {
  links: PaymentLinkRepository;
  internalSecret: string;
  publicBaseUrl: string;
}

/** Domain errors to HTTP, in one place. */
function toProblem(error: unknown): never {
  if (error instanceof MerchantRuleViolation) {
    throw problems.unprocessable(error.code, error.message, [{ path: error.field, message: error.message }]);
  }
  throw error;
}

export function publicPayUrl(baseUrl: string, link: PaymentLink): string {
  return new URL(`/pay/${link.slug}`, baseUrl).toString();
}

export function linksRoutes(deps: LinksRoutesDeps) {
  const api = new Hono<{ Variables: { merchant: MerchantContext } }>();
  api.use('*', requireMerchant(deps.internalSecret));

  api.post('/saleitems/add', async (c) => {
    const input = await jsonBody(c, createPaymentLinkRequest);
    const link = await createPaymentLink(deps, c.var.merchant, {
      ...input,
      customIdentifier: input.customIdentifier ?? null,
      customIdentifier2: input.customIdentifier2 ?? null,
      installmentAmount: input.installmentAmount ?? undefined,
      totalPeriods: input.totalPeriods ?? undefined,
      dayOfMonth: input.dayOfMonth ?? undefined,
      monthForSecondInstallment: input.monthForSecondInstallment ?? undefined,
      payWaitHours: input.payWaitHours ?? undefined,
      redirectUrl: input.redirectUrl ?? undefined,
      noLoginRequired: input.noLoginRequired ?? undefined,
      documentNumber: input.documentNumber ?? undefined,
    }).catch(toProblem);
    return c.json({
      id: link.id,
      currency: link.currency,
      ammount: link.amount,
      statusId: link.statusId,
      slug: link.slug,
      publicPayUrl: publicPayUrl(deps.publicBaseUrl, link),
    });
  });

  api.get('/payrequests/:id', async (c) => {
    const id = Number(c.req.param('id'));
    if (!Number.isSafeInteger(id) || id <= 0) throw new HttpProblem(404, 'NOT_FOUND', 'Payment link not found');
    const link = await deps.links.findForMerchant(c.var.merchant.merchantId, id);
    if (!link) throw new HttpProblem(404, 'NOT_FOUND', 'Payment link not found');
    return c.json({
      id: link.id,
      statusId: link.statusId,
      paid: link.statusId === 200,
      currency: link.currency,
      amount: link.amount,
      label: link.label,
      customIdentifier: link.customIdentifier,
      customIdentifier2: link.customIdentifier2,
      expireTime: link.expiresAt?.toISOString() ?? null,
      slug: link.slug,
      publicPayUrl: publicPayUrl(deps.publicBaseUrl, link),
      recurrence: link.recurrence,
    });
  });

  return api;
}
