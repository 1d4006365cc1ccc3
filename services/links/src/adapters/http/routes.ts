import {
  CUSTOMER_EMAIL_PAGE,
  CUSTOMER_PAGE,
  customerApi,
  customerEmailApi,
  type MerchantContext,
  PAYMENT_LINK_PAGE,
  type PaymentLinkDetails,
  paymentLinkApi,
} from '@payrail/contracts';
import { answerMethodNotAllowed, HttpProblem, requireMerchant, route } from '@payrail/http';
import { Hono } from 'hono';
import { createPaymentLink } from '../../application/create-payment-link';
import type { CreatePaymentLinkDeps } from '../../application/deps';
import {
  type CreateSignedInUserLinkDeps,
  createSignedInUserLink,
} from '../../application/create-signed-in-user-link';
import { type CancelPaymentLinkDeps, cancelPaymentLink } from '../../application/cancel-payment-link';
import { type CustomersDeps, getCustomer, listCustomers } from '../../application/customers';
import { getPaymentLink } from '../../application/get-payment-link';
import { listPaymentLinks, summarizePaymentLinks } from '../../application/list-payment-links';
import { endOfLocalDay, localDateTime, localDateTimeWithOffset, startOfLocalDay } from '@payrail/time';
import { checkSignedInUserAllowed } from '../../domain/merchant-rules';
import { LinkStatus, type PaymentLink } from '../../domain/payment-link';
import type { CustomerEntry } from '../../ports/customer-directory';
import type { CustomerEmailOutbox, CustomerEmailRow } from '../../ports/customer-email-store';
import type { MerchantProfiles } from '../../ports/merchant-profiles';

export interface LinksRoutesDeps
  extends CreatePaymentLinkDeps,
    CreateSignedInUserLinkDeps,
    CancelPaymentLinkDeps,
    CustomersDeps {
  internalSecret: string;
  publicBaseUrl: string;
  /** Keeps the merchant's signed settings for the public pay page (name, processors, time zone). */
  merchants?: MerchantProfiles;
  /** The customer e-mails' outbox, read by `GET /api/customer-emails` (absent: the route is not served). */
  customerEmails?: CustomerEmailOutbox;
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
    refundedAmount: link.refundedAmount ?? '0.00',
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
    ...paymentOf(link, merchant),
  };
}

/** What paid the link (issue 27): every field null while it is not paid. */
function paymentOf(link: PaymentLink, merchant: MerchantContext) {
  const paid = link.statusId === LinkStatus.PAID;
  const payment = paid ? link.payment : undefined;
  return {
    paymentId: payment?.paymentId ?? null,
    paidAt: paid && link.paidAt ? localDateTimeWithOffset(link.paidAt, merchant.timezone) : null,
    method: payment?.method ?? null,
    processor: (payment?.method === 'CARD' ? payment.processor : null) as PaymentLinkDetails['processor'],
    cardBrand: payment?.cardBrand ?? null,
    cardLast4: payment?.cardLast4 ?? null,
    paidBy: payment?.paidBy ?? null,
  };
}

function customerView(customer: CustomerEntry, merchant: MerchantContext) {
  return {
    id: customer.id,
    email: customer.email,
    documentNumber: customer.documentNumber,
    firstName: customer.firstName,
    lastName: customer.lastName,
    status: customer.status,
    createTime: localDateTimeWithOffset(customer.createdAt, merchant.timezone),
  };
}

/** The cursor is the last id of the page, opaque to clients so that the paging scheme may change. */
function encodeCursor(beforeId: number): string {
  return Buffer.from(`before:${beforeId}`).toString('base64url');
}

const EMAIL_CURSOR = /^email:([0-9a-f-]{36})$/;

function decodeEmailCursor(cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  const match = EMAIL_CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match?.[1]) {
    const message = 'must be a nextCursor of an earlier page';
    throw new HttpProblem(400, 'VALIDATION_ERROR', `cursor ${message}`, [{ path: 'cursor', message }]);
  }
  return match[1];
}

function customerEmailView(email: CustomerEmailRow, merchant: MerchantContext) {
  const at = (instant: Date | null) => (instant ? localDateTimeWithOffset(instant, merchant.timezone) : null);
  return {
    id: email.id,
    kind: email.kind,
    status: email.status,
    customerId: email.customerId,
    to: email.recipient,
    subject: email.subject,
    language: email.language === 'en' ? ('en' as const) : ('es' as const),
    subscriptionId: email.subscriptionId,
    linkId: email.linkId,
    attempts: email.attempts,
    lastError: email.lastError,
    createTime: localDateTimeWithOffset(email.createdAt, merchant.timezone),
    sentTime: at(email.sentAt),
    nextAttemptTime: email.status === 'pending' ? at(email.nextAttemptAt) : null,
  };
}

function decodeCursor(cursor: string | undefined): number | null {
  if (cursor === undefined) return null;
  const match = /^before:(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const beforeId = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(beforeId)) {
    const message = 'must be a nextCursor of an earlier page';
    throw new HttpProblem(400, 'VALIDATION_ERROR', `cursor ${message}`, [{ path: 'cursor', message }]);
  }
  return beforeId;
}

export function linksRoutes(deps: LinksRoutesDeps) {
  const api = new Hono<{ Variables: { merchant: MerchantContext } }>();
  api.use('*', requireMerchant(deps.internalSecret));
  const merchants = deps.merchants;
  if (merchants) {
    api.use('*', async (c, next) => {
      await merchants.remember(c.var.merchant, deps.clock.now());
      await next();
    });
  }

  const mountedAt = { mountedAt: '/api' };

  route(
    api,
    paymentLinkApi.createPaymentLink,
    async (c, { body }) => {
      const link = await createPaymentLink(deps, c.var.merchant, body);
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
    checkSignedInUserAllowed(c.var.merchant);
    await next();
  });

  route(
    api,
    paymentLinkApi.createSignedInUserPaymentLink,
    async (c, { body }) => {
      const merchant = c.var.merchant;
      const { link, customerId, loginCode } = await createSignedInUserLink(deps, merchant, body);
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

  // Before `/payrequests/{id}`: the literal path is not an id.
  route(
    api,
    paymentLinkApi.getPaymentLinkSummary,
    async (c) => {
      const counts = await summarizePaymentLinks(deps, c.var.merchant);
      return c.json({ counts });
    },
    mountedAt,
  );

  route(
    api,
    paymentLinkApi.getPaymentLink,
    async (c, { params }) => {
      const link = await getPaymentLink(deps, c.var.merchant, params.id);
      return c.json(details(link, c.var.merchant, deps.publicBaseUrl));
    },
    mountedAt,
  );

  route(
    api,
    paymentLinkApi.listPaymentLinks,
    async (c, { query }) => {
      const merchant = c.var.merchant;
      if (query.createdFrom && query.createdTo && query.createdFrom > query.createdTo) {
        const message = 'must not be before createdFrom';
        throw new HttpProblem(400, 'VALIDATION_ERROR', `createdTo ${message}`, [
          { path: 'createdTo', message },
        ]);
      }
      const page = await listPaymentLinks(
        deps,
        merchant,
        {
          status: query.status,
          customIdentifier: query.customIdentifier,
          search: query.q,
          createdFrom: query.createdFrom ? startOfLocalDay(query.createdFrom, merchant.timezone) : undefined,
          createdBefore: query.createdTo ? endOfLocalDay(query.createdTo, merchant.timezone) : undefined,
        },
        { beforeId: decodeCursor(query.cursor), limit: query.limit ?? PAYMENT_LINK_PAGE.default },
      );
      return c.json({
        payRequests: page.links.map((link) => details(link, merchant, deps.publicBaseUrl)),
        nextCursor: page.nextBeforeId === null ? null : encodeCursor(page.nextBeforeId),
      });
    },
    mountedAt,
  );

  route(
    api,
    customerApi.listCustomers,
    async (c, { query }) => {
      const merchant = c.var.merchant;
      const page = await listCustomers(
        deps,
        merchant,
        { search: query.q },
        { beforeId: decodeCursor(query.cursor), limit: query.limit ?? CUSTOMER_PAGE.default },
      );
      return c.json({
        customers: page.customers.map((customer) => customerView(customer, merchant)),
        nextCursor: page.nextBeforeId === null ? null : encodeCursor(page.nextBeforeId),
      });
    },
    mountedAt,
  );

  route(
    api,
    customerApi.getCustomer,
    async (c, { params }) => {
      const merchant = c.var.merchant;
      const found = await getCustomer(deps, merchant, params.id);
      return c.json({
        ...customerView(found.customer, merchant),
        payRequests: found.links.map((link) => details(link, merchant, deps.publicBaseUrl)),
        savedCards:
          found.savedCards?.map((card) => ({
            paymentMethodId: card.paymentMethodId,
            processor: card.processor,
            brand: card.brand,
            last4: card.last4,
            expiryMonth: card.expiryMonth,
            expiryYear: card.expiryYear,
          })) ?? null,
      });
    },
    mountedAt,
  );

  route(
    api,
    paymentLinkApi.cancelPaymentLink,
    async (c, { params }) => {
      const link = await cancelPaymentLink(deps, c.var.merchant, params.id);
      return c.json(details(link, c.var.merchant, deps.publicBaseUrl));
    },
    mountedAt,
  );

  answerMethodNotAllowed(api);
  const customerEmails = deps.customerEmails;
  if (customerEmails) {
    route(
      api,
      customerEmailApi.listCustomerEmails,
      async (c, { query }) => {
        const merchant = c.var.merchant;
        const limit = query.limit ?? CUSTOMER_EMAIL_PAGE.default;
        const rows = await customerEmails.list(
          merchant.merchantId,
          {
            kind: query.kind,
            status: query.status,
            customerId: query.customerId,
            subscriptionId: query.subscriptionId,
          },
          { beforeId: decodeEmailCursor(query.cursor), limit: limit + 1 },
        );
        const page = rows.slice(0, limit);
        const last = page[page.length - 1];
        return c.json({
          emails: page.map((email) => customerEmailView(email, merchant)),
          nextCursor:
            rows.length > limit && last ? Buffer.from(`email:${last.id}`).toString('base64url') : null,
        });
      },
      mountedAt,
    );
  }

  return api;
}
