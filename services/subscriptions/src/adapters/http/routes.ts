import {
  addInstallmentsRequest,
  bulkModifyInstallmentsRequest,
  cancelAllRequest,
  cancelByAmountRequest,
  cancelByInvoiceRequest,
  installmentIdParams,
  listInstallmentsQuery,
  type MerchantContext,
  modifyAllRequest,
  modifyByAmountRequest,
  modifyDatesRequest,
  modifyInstallmentRequest,
} from '@payrail/contracts';
import { jsonBody, readJson, requireMerchant, validate } from '@payrail/http';
import { normalizeAmount } from '@payrail/money';
import { Hono } from 'hono';
import { addInstallments } from '../../application/add-installments';
import { bulkModifyInstallments } from '../../application/bulk-modify-installments';
import { cancelInstallment } from '../../application/cancel-installment';
import { cancelInstallmentByInvoice } from '../../application/cancel-installment-by-invoice';
import { cancelInstallmentsByAmount } from '../../application/cancel-installments-by-amount';
import { cancelSubscription } from '../../application/cancel-subscription';
import type { UseCaseDeps } from '../../application/deps';
import { listPendingInstallments } from '../../application/list-pending-installments';
import { modifyAllInstallments } from '../../application/modify-all-installments';
import { modifyInstallment } from '../../application/modify-installment';
import { modifyInstallmentsByAmount } from '../../application/modify-installments-by-amount';
import { modifyPaymentDay } from '../../application/modify-payment-day';
import { criteriaOf } from '../../domain/identifiers';
import { assertWithinBulkLimits } from './bulk-limits';
import { bulkResponse, installmentV1, installmentV2 } from './dto';
import { jsonWithAmounts } from './json-amount';
import { problemFor } from './problems';

export interface SubscriptionsRoutesDeps extends UseCaseDeps {
  internalSecret: string;
}

const v1Problem = problemFor('camel');
const v2Problem = problemFor('snake');

/** The merchant API of the service, mounted under `/api`; the gateway forwards `/api/subscriptions*`. */
export function subscriptionsRoutes(deps: SubscriptionsRoutesDeps) {
  const api = new Hono<{ Variables: { merchant: MerchantContext } }>();
  api.use('*', requireMerchant(deps.internalSecret));

  // v1: the subscription named by identifiers in the body; answers the installments changed.

  api.post('/subscriptions/cancel-by-amount', async (c) => {
    const input = await jsonBody(c, cancelByAmountRequest);
    const changed = await cancelInstallmentsByAmount(deps, c.var.merchant.merchantId, {
      criteria: criteriaOf(input.customIdentifier, input.customIdentifier2),
      amount: normalizeAmount(input.amount),
      quantity: input.quantity,
    }).catch(v1Problem);
    return c.json({ installments: changed.map(installmentV1) });
  });

  api.post('/subscriptions/cancel-by-invoice', async (c) => {
    const input = await jsonBody(c, cancelByInvoiceRequest);
    const changed = await cancelInstallmentByInvoice(deps, c.var.merchant.merchantId, {
      criteria: criteriaOf(input.customIdentifier, input.customIdentifier2),
      invoiceNumber: input.invoiceNumber,
    }).catch(v1Problem);
    return c.json({ installments: changed.map(installmentV1) });
  });

  api.post('/subscriptions/cancel-all', async (c) => {
    const input = await jsonBody(c, cancelAllRequest);
    const changed = await cancelSubscription(
      deps,
      c.var.merchant.merchantId,
      criteriaOf(input.customIdentifier, input.customIdentifier2),
    ).catch(v1Problem);
    return c.json({ installments: changed.map(installmentV1) });
  });

  api.put('/subscriptions/modify-by-amount', async (c) => {
    const input = await jsonBody(c, modifyByAmountRequest);
    const changed = await modifyInstallmentsByAmount(deps, c.var.merchant.merchantId, {
      criteria: criteriaOf(input.customIdentifier, input.customIdentifier2),
      amount: normalizeAmount(input.amount),
      newAmount: normalizeAmount(input.newAmount),
    }).catch(v1Problem);
    return c.json({ installments: changed.map(installmentV1) });
  });

  api.put('/subscriptions/modify-all', async (c) => {
    const input = await jsonBody(c, modifyAllRequest);
    const changed = await modifyAllInstallments(deps, c.var.merchant.merchantId, {
      criteria: criteriaOf(input.customIdentifier, input.customIdentifier2),
      newAmount: normalizeAmount(input.newAmount),
    }).catch(v1Problem);
    return c.json({ installments: changed.map(installmentV1) });
  });

  api.put('/subscriptions/modify-dates', async (c) => {
    const input = await jsonBody(c, modifyDatesRequest);
    const changed = await modifyPaymentDay(deps, c.var.merchant.merchantId, {
      criteria: criteriaOf(input.customIdentifier, input.customIdentifier2),
      dayOfMonth: input.dayOfMonth,
    }).catch(v1Problem);
    return c.json({ installments: changed.map(installmentV1) });
  });

  // v2: installments by id; snake_case; amounts as numbers with two decimals.

  api.get('/subscriptions/installments', async (c) => {
    const query = validate(listInstallmentsQuery, c.req.query(), 'Query parameters are invalid');
    const pending = await listPendingInstallments(
      deps,
      c.var.merchant.merchantId,
      criteriaOf(query.custom_identifier, query.custom_identifier2),
    ).catch(v2Problem);
    return jsonWithAmounts(c, { installments: pending.map(installmentV2) });
  });

  api.post('/subscriptions/installments', async (c) => {
    const input = await jsonBody(c, addInstallmentsRequest);
    const added = await addInstallments(deps, c.var.merchant.merchantId, {
      criteria: criteriaOf(input.custom_identifier, input.custom_identifier2),
      installments: input.installments.map((installment) => ({
        paymentDate: installment.payment_date,
        amount: normalizeAmount(installment.amount),
        invoiceNumber: installment.invoice_number || null,
      })),
    }).catch(v2Problem);
    return jsonWithAmounts(c, { installments: added.map(installmentV2) }, 201);
  });

  // Registered before `/installments/:id`, which would otherwise take `bulk` for an id.
  api.patch('/subscriptions/installments/bulk', async (c) => {
    const body = await readJson(c);
    assertWithinBulkLimits(body);
    const input = validate(bulkModifyInstallmentsRequest, body);
    const result = await bulkModifyInstallments(
      deps,
      c.var.merchant.merchantId,
      input.operations.map((operation) => ({
        customIdentifier: operation.custom_identifier ?? null,
        customIdentifier2: operation.custom_identifier2 ?? null,
        updates: operation.updates.map((update) => ({
          paymentDate: update.payment_date,
          amount: normalizeAmount(update.amount),
        })),
      })),
    ).catch(v2Problem);
    return jsonWithAmounts(c, bulkResponse(result));
  });

  api.patch('/subscriptions/installments/:id', async (c) => {
    const { id } = validate(installmentIdParams, { id: c.req.param('id') }, 'Path parameter is invalid');
    const input = await jsonBody(c, modifyInstallmentRequest);
    const changed = await modifyInstallment(deps, c.var.merchant.merchantId, id, {
      amount: input.amount === undefined ? undefined : normalizeAmount(input.amount),
      paymentDate: input.payment_date,
    }).catch(v2Problem);
    return jsonWithAmounts(c, installmentV2(changed));
  });

  api.post('/subscriptions/installments/:id/cancel', async (c) => {
    const { id } = validate(installmentIdParams, { id: c.req.param('id') }, 'Path parameter is invalid');
    const cancelled = await cancelInstallment(deps, c.var.merchant.merchantId, id).catch(v2Problem);
    return jsonWithAmounts(c, installmentV2(cancelled));
  });

  return api;
}
