import {
  type BankNotificationRequest,
  bankNotificationRequest,
  type MerchantContext,
} from '@payrail/contracts';
import { HttpProblem, jsonBody, problems, requireMerchant } from '@payrail/http';
import { normalizeAmount } from '@payrail/money';
import type { Logger } from '@payrail/observability';
import { Hono } from 'hono';
import {
  type RegisterBankTransferDeps,
  registerBankTransfer,
} from '../../application/register-bank-transfer';
import { InvalidTransfer, type TransferNotification, type TransferTarget } from '../../domain/bank-transfer';
import { OwnerUnavailable } from '../../ports/settlement-owners';

export interface BankNotificationRoutesDeps extends RegisterBankTransferDeps {
  internalSecret: string;
  logger: Logger;
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

/** `POST /api/bank-notification/add`, forwarded by the gateway with the signed merchant context. */
export function bankNotificationRoutes(deps: BankNotificationRoutesDeps) {
  const api = new Hono<{ Variables: { merchant: MerchantContext } }>();
  api.use('*', requireMerchant(deps.internalSecret));

  api.post('/bank-notification/add', async (c) => {
    const input = await jsonBody(c, bankNotificationRequest);
    let result: Awaited<ReturnType<typeof registerBankTransfer>>;
    try {
      result = await registerBankTransfer(deps, c.var.merchant, notificationOf(input));
    } catch (error) {
      if (error instanceof InvalidTransfer) {
        throw problems.badRequest('Request body is invalid', [{ path: error.field, message: error.message }]);
      }
      if (error instanceof OwnerUnavailable) {
        deps.logger.warn({ err: error }, 'bank transfer not settled: owner unavailable');
        throw new HttpProblem(
          503,
          'SETTLEMENT_UNAVAILABLE',
          'The target could not be settled now; send the same notification again (it never pays twice)',
        );
      }
      throw error;
    }
    switch (result.kind) {
      case 'settled':
        return c.json(result.response);
      case 'refused': {
        const { refusal } = result;
        throw new HttpProblem(refusal.status, refusal.code, refusal.detail, refusal.errors);
      }
      case 'reference-reused':
        throw problems.conflict(
          'BANK_REFERENCE_REUSED',
          `The reference ${input.reference} already registered another transfer (${result.transferId}); ` +
            'the same notification again answers its first result',
        );
    }
  });

  return api;
}
