import { type BankNotificationRequest, bankNotificationApi, type MerchantContext } from '@payrail/contracts';
import { HttpProblem, requireMerchant, route } from '@payrail/http';
import { normalizeAmount } from '@payrail/money';
import { Hono } from 'hono';
import {
  type RegisterBankTransferDeps,
  registerBankTransfer,
} from '../../application/register-bank-transfer';
import type { TransferNotification, TransferTarget } from '../../domain/bank-transfer';

export interface BankNotificationRoutesDeps extends RegisterBankTransferDeps {
  internalSecret: string;
}

function targetOf(input: BankNotificationRequest): TransferTarget {
  if (input.payRequestId != null) return { type: 'PAY_REQUEST', payRequestId: input.payRequestId };
  if (input.installmentId != null) return { type: 'INSTALLMENT', installmentId: input.installmentId };
  // The schema guarantees identifiers and a date here; an empty identifier counts as absent.
  return {
    type: 'INSTALLMENT',
    customIdentifier: input.customIdentifier || null,
    customIdentifier2: input.customIdentifier2 || null,
    paymentDate: input.paymentDate as string,
  };
}

export function notificationOf(input: BankNotificationRequest): TransferNotification {
  return {
    reference: input.reference,
    target: targetOf(input),
    amount: normalizeAmount(input.amount),
    currency: input.currency ?? null,
    bankName: input.bankName,
    transferDate: input.transferDate,
    note: input.note || null,
  };
}

/**
 * `POST /api/bank-notification/add`, forwarded by the gateway with the signed merchant context. Its domain
 * errors (`BankReferenceReused`, `SettlementUnavailable`, `InvalidTransfer`) are answered by the app through
 * `PROCESSOR_GATEWAY_ERRORS`. A refusal by the owner of the target is not ours: the problem links or
 * subscriptions answered (their status, code, detail and fields) is passed on as it is.
 */
export function bankNotificationRoutes(deps: BankNotificationRoutesDeps) {
  const api = new Hono<{ Variables: { merchant: MerchantContext } }>();
  api.use('*', requireMerchant(deps.internalSecret));

  route(
    api,
    bankNotificationApi.notifyBankTransfer,
    async (c, { body }) => {
      const result = await registerBankTransfer(deps, c.var.merchant, notificationOf(body));
      if (result.kind === 'refused') {
        const { refusal } = result;
        throw new HttpProblem(refusal.status, refusal.code, refusal.detail, refusal.errors);
      }
      return c.json(result.response, 200);
    },
    { mountedAt: '/api' },
  );

  return api;
}
