import {
  type Currency,
  type MerchantContext,
  type RefundRequest,
  type RefundResponse,
  refundApi,
} from '@payrail/contracts';
import { requestHeader, requireMerchant, route } from '@payrail/http';
import { formatAmount } from '@payrail/money';
import { localDateTimeWithOffset } from '@payrail/time';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { getRefund } from '../../application/get-refund';
import { paymentRoutes } from './payment-routes';
import { refundPayment } from '../../application/refund-payment';
import type { RefundDeps, RefundState } from '../../application/settle-refund';
import { IdempotencyKeyRequired, InvalidIdempotencyKey } from '../../domain/errors';
import { publicRefundStatus, type RefundAsked, toMinor } from '../../domain/refund';

export interface RefundRoutesDeps extends RefundDeps {
  internalSecret: string;
}

/** Printable ASCII, 1 to 255 characters: the gateway's rule for the header, kept here too. */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's `Idempotency-Key`: required for a refund (400 without it, or with one the gateway would refuse). */
function idempotencyKeyOf(c: Context): string {
  const key = requestHeader(c, 'idempotency-key');
  if (key === undefined || key === '') throw new IdempotencyKeyRequired();
  if (!VALID_KEY.test(key)) throw new InvalidIdempotencyKey();
  return key;
}

function askedOf(body: RefundRequest): RefundAsked {
  return {
    amount: body.amount ?? null,
    method: body.method ?? 'CARD',
    reference: body.reference || null,
    reason: body.reason || null,
  };
}

/** A refund as the API answers it, its times in the merchant's zone. */
export function refundView({ refund, payment, totals }: RefundState, timezone: string): RefundResponse {
  const at = (instant: Date | null) => (instant ? localDateTimeWithOffset(instant, timezone) : null);
  const status = publicRefundStatus(refund.status);
  return {
    id: refund.id,
    paymentId: refund.paymentId,
    status,
    amount: refund.amount,
    currency: refund.currency as Currency,
    mode: refund.mode,
    method: refund.method,
    processor: refund.processor,
    reference: refund.reference,
    reason: refund.reason,
    failureCode: refund.failureCode,
    failureMessage: refund.failureMessage,
    paymentAmount: payment.amount,
    refundedAmount: formatAmount(totals.succeeded),
    refundableAmount: formatAmount(toMinor(payment.amount) - totals.committed),
    createdAt: localDateTimeWithOffset(refund.createdAt, timezone),
    scheduledAt: at(refund.scheduledAt),
    succeededAt: status === 'succeeded' ? at(refund.settledAt) : null,
    failedAt: status === 'failed' ? at(refund.settledAt) : null,
  };
}

/**
 * `POST /api/payments/{id}/refunds` and `GET /api/payments/{id}/refunds/{refundId}`, forwarded by the
 * gateway with the signed merchant context. Refusals are domain errors, answered by the app through
 * `PROCESSOR_GATEWAY_ERRORS`.
 */
export function refundRoutes(deps: RefundRoutesDeps) {
  const api = new Hono<{ Variables: { merchant: MerchantContext } }>();
  api.use('/payments', requireMerchant(deps.internalSecret));
  api.use('/payments/*', requireMerchant(deps.internalSecret));
  // The ledger's reads first: `/payments/{id}` is theirs, `/payments/{id}/refunds...` the refunds'.
  paymentRoutes(api, { ledger: deps.stores.ledger });

  route(
    api,
    refundApi.refundPayment,
    async (c, { params, body }) => {
      const idempotencyKey = idempotencyKeyOf(c);
      const merchant = c.var.merchant;
      const result = await refundPayment(deps, {
        merchantId: merchant.merchantId,
        paymentId: params.id.toLowerCase(),
        idempotencyKey,
        asked: askedOf(body),
      });
      const view = refundView(result, merchant.timezone);
      return result.created ? c.json(view, 201) : c.json(view, 200);
    },
    { mountedAt: '/api' },
  );

  route(
    api,
    refundApi.getRefund,
    async (c, { params }) => {
      const merchant = c.var.merchant;
      const state = await getRefund(
        deps,
        merchant.merchantId,
        params.id.toLowerCase(),
        params.refundId.toLowerCase(),
      );
      return c.json(refundView(state, merchant.timezone), 200);
    },
    { mountedAt: '/api' },
  );

  return api;
}
