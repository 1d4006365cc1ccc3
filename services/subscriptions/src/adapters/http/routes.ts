import { type MerchantContext, subscriptionApi, UPCOMING_DAYS } from '@payrail/contracts';
import { answerMethodNotAllowed, HttpProblem, requireMerchant, route } from '@payrail/http';
import { normalizeAmount } from '@payrail/money';
import { localDateTimeWithOffset } from '@payrail/time';
import { Hono } from 'hono';
import { addInstallments } from '../../application/add-installments';
import { bulkModifyInstallments } from '../../application/bulk-modify-installments';
import { cancelInstallment } from '../../application/cancel-installment';
import { cancelInstallmentByInvoice } from '../../application/cancel-installment-by-invoice';
import { cancelInstallmentsByAmount } from '../../application/cancel-installments-by-amount';
import { cancelSubscription } from '../../application/cancel-subscription';
import type { UseCaseDeps } from '../../application/deps';
import { getSubscription } from '../../application/get-subscription';
import { listChargeAttempts } from '../../application/list-charge-attempts';
import { listPendingInstallments } from '../../application/list-pending-installments';
import { listSubscriptions } from '../../application/list-subscriptions';
import { summarizeSubscriptions } from '../../application/summarize-subscriptions';
import { modifyAllInstallments } from '../../application/modify-all-installments';
import { modifyInstallment } from '../../application/modify-installment';
import { modifyInstallmentsByAmount } from '../../application/modify-installments-by-amount';
import { modifyPaymentDay } from '../../application/modify-payment-day';
import { criteriaOf } from '../../domain/identifiers';
import type { Installment } from '../../domain/installment';
import type { Subscription } from '../../domain/subscription';
import { assertWithinBulkLimits } from './bulk-limits';
import { bulkResponse, chargeAttemptV2, installmentV1, installmentV2 } from './dto';
import { jsonWithAmounts } from './json-amount';

export interface SubscriptionsRoutesDeps extends UseCaseDeps {
  internalSecret: string;
}

const MOUNTED_AT = { mountedAt: '/api' };

function subscriptionView(subscription: Subscription) {
  const time = (instant: Date | null) =>
    instant ? localDateTimeWithOffset(instant, subscription.timezone) : null;
  return {
    id: subscription.id,
    payRequestId: subscription.linkId,
    type: subscription.type,
    status: subscription.status,
    customIdentifier: subscription.customIdentifier,
    customIdentifier2: subscription.customIdentifier2,
    currency: subscription.currency,
    firstAmount: subscription.firstAmount,
    installmentAmount: subscription.installmentAmount,
    totalPeriods: subscription.totalPeriods,
    dayOfMonth: subscription.dayOfMonth,
    monthForSecondInstallment: subscription.monthForSecondInstallment,
    createTime: localDateTimeWithOffset(subscription.createdAt, subscription.timezone),
    activateTime: time(subscription.activatedAt),
    endTime: time(subscription.endedAt),
  };
}

function installmentOfSubscription(installment: Installment) {
  return {
    installmentId: installment.id,
    number: installment.number,
    paymentDate: installment.paymentDate,
    amount: installment.amount,
    status: installment.status,
    invoiceNumber: installment.invoiceNumber,
  };
}

/** The cursor is the last id of the page, opaque to clients so that the paging scheme may change. */
function encodeCursor(afterId: number): string {
  return Buffer.from(`after:${afterId}`).toString('base64url');
}

function decodeCursor(cursor: string | undefined): number | null {
  if (cursor === undefined) return null;
  const match = /^after:(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const afterId = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(afterId)) {
    const message = 'must be a nextCursor of an earlier page';
    throw new HttpProblem(400, 'VALIDATION_ERROR', `cursor ${message}`, [{ path: 'cursor', message }]);
  }
  return afterId;
}

/** The merchant API of the service, mounted under `/api`; the gateway forwards `/api/subscriptions*`. */
export function subscriptionsRoutes(deps: SubscriptionsRoutesDeps) {
  const api = new Hono<{ Variables: { merchant: MerchantContext } }>();
  api.use('*', requireMerchant(deps.internalSecret));

  // Subscriptions as resources.

  route(
    api,
    subscriptionApi.listSubscriptions,
    async (c, { query }) => {
      const page = await listSubscriptions(
        deps,
        c.var.merchant.merchantId,
        {
          customIdentifier: query.customIdentifier,
          customIdentifier2: query.customIdentifier2,
          linkId: query.payRequestId,
          status: query.status,
        },
        { afterId: decodeCursor(query.cursor), limit: query.limit ?? 20 },
      );
      return c.json({
        subscriptions: page.subscriptions.map(subscriptionView),
        nextCursor: page.nextAfterId === null ? null : encodeCursor(page.nextAfterId),
      });
    },
    MOUNTED_AT,
  );

  route(
    api,
    subscriptionApi.getSubscriptionSummary,
    async (c, { query }) => {
      const summary = await summarizeSubscriptions(deps, c.var.merchant, query.days ?? UPCOMING_DAYS.default);
      return c.json({
        counts: summary.counts,
        upcoming: {
          days: summary.days,
          installments: summary.upcoming.installments,
          amounts: summary.upcoming.amounts,
        },
      });
    },
    MOUNTED_AT,
  );

  // v2: installments by id; snake_case; amounts as numbers with two decimals. The literal paths are bound
  // before `/installments/{id}`, which would otherwise take `bulk` for an id.

  route(
    api,
    subscriptionApi.listPendingInstallments,
    async (c, { query }) => {
      const pending = await listPendingInstallments(
        deps,
        c.var.merchant.merchantId,
        criteriaOf(query.custom_identifier, query.custom_identifier2, query.pay_request_id),
      );
      return jsonWithAmounts(c, {
        installments: pending.installments.map(({ installment, lastAttempt, nextAttemptOn }) => ({
          ...installmentV2(installment),
          last_attempt: lastAttempt ? chargeAttemptV2(lastAttempt, pending.timezone) : null,
          next_attempt_on: nextAttemptOn,
        })),
      });
    },
    MOUNTED_AT,
  );

  route(
    api,
    subscriptionApi.addInstallments,
    async (c, { body }) => {
      const added = await addInstallments(deps, c.var.merchant.merchantId, {
        criteria: criteriaOf(body.custom_identifier, body.custom_identifier2, body.pay_request_id),
        installments: body.installments.map((installment) => ({
          paymentDate: installment.payment_date,
          amount: normalizeAmount(installment.amount),
          invoiceNumber: installment.invoice_number || null,
        })),
      });
      return jsonWithAmounts(c, { installments: added.map(installmentV2) }, 201);
    },
    MOUNTED_AT,
  );

  route(
    api,
    subscriptionApi.bulkModifyInstallments,
    async (c, { body }) => {
      const result = await bulkModifyInstallments(
        deps,
        c.var.merchant.merchantId,
        body.operations.map((operation) => ({
          customIdentifier: operation.custom_identifier ?? null,
          customIdentifier2: operation.custom_identifier2 ?? null,
          linkId: operation.pay_request_id ?? null,
          updates: operation.updates.map((update) => ({
            paymentDate: update.payment_date,
            amount: normalizeAmount(update.amount),
          })),
        })),
      );
      return jsonWithAmounts(c, bulkResponse(result));
    },
    { ...MOUNTED_AT, beforeValidation: assertWithinBulkLimits },
  );

  route(
    api,
    subscriptionApi.modifyInstallment,
    async (c, { params, body }) => {
      const changed = await modifyInstallment(deps, c.var.merchant.merchantId, params.id, {
        amount: body.amount === undefined ? undefined : normalizeAmount(body.amount),
        paymentDate: body.payment_date,
      });
      return jsonWithAmounts(c, installmentV2(changed));
    },
    MOUNTED_AT,
  );

  route(
    api,
    subscriptionApi.cancelInstallment,
    async (c, { params }) => {
      const cancelled = await cancelInstallment(deps, c.var.merchant.merchantId, params.id);
      return jsonWithAmounts(c, installmentV2(cancelled));
    },
    MOUNTED_AT,
  );

  route(
    api,
    subscriptionApi.listInstallmentAttempts,
    async (c, { params }) => {
      const audit = await listChargeAttempts(deps, c.var.merchant.merchantId, params.id);
      const timezone = audit.subscription.timezone;
      return jsonWithAmounts(c, {
        installment_id: audit.installment.id,
        status: audit.installment.status,
        next_attempt_on: audit.nextAttemptOn,
        attempts: audit.attempts.map((attempt) => chargeAttemptV2(attempt, timezone)),
      });
    },
    MOUNTED_AT,
  );

  route(
    api,
    subscriptionApi.getSubscription,
    async (c, { params }) => {
      const { subscription, installments } = await getSubscription(
        deps,
        c.var.merchant.merchantId,
        params.id,
      );
      return c.json({
        ...subscriptionView(subscription),
        installments: installments.map(installmentOfSubscription),
      });
    },
    MOUNTED_AT,
  );

  // v1: the subscription named by identifiers in the body; answers the installments changed.

  route(
    api,
    subscriptionApi.modifyInstallmentsByAmount,
    async (c, { body }) => {
      const changed = await modifyInstallmentsByAmount(deps, c.var.merchant.merchantId, {
        criteria: criteriaOf(body.customIdentifier, body.customIdentifier2, body.payRequestId),
        amount: normalizeAmount(body.amount),
        newAmount: normalizeAmount(body.newAmount),
      });
      return c.json({ installments: changed.map(installmentV1) });
    },
    MOUNTED_AT,
  );

  route(
    api,
    subscriptionApi.modifyAllInstallments,
    async (c, { body }) => {
      const changed = await modifyAllInstallments(deps, c.var.merchant.merchantId, {
        criteria: criteriaOf(body.customIdentifier, body.customIdentifier2, body.payRequestId),
        newAmount: normalizeAmount(body.newAmount),
      });
      return c.json({ installments: changed.map(installmentV1) });
    },
    MOUNTED_AT,
  );

  route(
    api,
    subscriptionApi.modifyPaymentDay,
    async (c, { body }) => {
      const changed = await modifyPaymentDay(deps, c.var.merchant.merchantId, {
        criteria: criteriaOf(body.customIdentifier, body.customIdentifier2, body.payRequestId),
        dayOfMonth: body.dayOfMonth,
      });
      return c.json({ installments: changed.map(installmentV1) });
    },
    MOUNTED_AT,
  );

  route(
    api,
    subscriptionApi.cancelInstallmentsByAmount,
    async (c, { body }) => {
      const changed = await cancelInstallmentsByAmount(deps, c.var.merchant.merchantId, {
        criteria: criteriaOf(body.customIdentifier, body.customIdentifier2, body.payRequestId),
        amount: normalizeAmount(body.amount),
        quantity: body.quantity,
      });
      return c.json({ installments: changed.map(installmentV1) });
    },
    MOUNTED_AT,
  );

  route(
    api,
    subscriptionApi.cancelInstallmentByInvoice,
    async (c, { body }) => {
      const changed = await cancelInstallmentByInvoice(deps, c.var.merchant.merchantId, {
        criteria: criteriaOf(body.customIdentifier, body.customIdentifier2, body.payRequestId),
        invoiceNumber: body.invoiceNumber,
      });
      return c.json({ installments: changed.map(installmentV1) });
    },
    MOUNTED_AT,
  );

  route(
    api,
    subscriptionApi.cancelSubscription,
    async (c, { body }) => {
      const changed = await cancelSubscription(
        deps,
        c.var.merchant.merchantId,
        criteriaOf(body.customIdentifier, body.customIdentifier2, body.payRequestId),
      );
      return c.json({ installments: changed.map(installmentV1) });
    },
    MOUNTED_AT,
  );

  answerMethodNotAllowed(api);
  return api;
}
