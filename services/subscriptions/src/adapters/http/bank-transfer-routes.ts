import {
  type Currency,
  type MerchantContext,
  type SettleInstallmentByTransferResponse,
  settleInstallmentByTransferRequest,
} from '@payrail/contracts';
import { jsonBody, requireMerchant } from '@payrail/http';
import { Hono } from 'hono';
import type { UseCaseDeps } from '../../application/deps';
import {
  type SettledInstallment,
  settleInstallmentByTransfer,
  type TransferTarget,
} from '../../application/settle-installment-by-transfer';
import { criteriaOf } from '../../domain/identifiers';

export interface BankTransferRoutesDeps extends UseCaseDeps {
  internalSecret: string;
}

function answer({ subscription, installment }: SettledInstallment): SettleInstallmentByTransferResponse {
  return {
    installmentId: installment.id,
    subscriptionId: subscription.id,
    paymentDate: installment.paymentDate,
    amount: installment.amount,
    currency: subscription.currency as Currency,
    status: 'paid',
    paidAt: (installment.paidAt ?? new Date(0)).toISOString(),
    customIdentifier: subscription.customIdentifier,
    customIdentifier2: subscription.customIdentifier2,
  };
}

/**
 * Internal routes, mounted under `/internal`: never forwarded by the gateway (it forwards `/api/*` only),
 * and a direct call still needs the merchant context signed with the internal secret.
 */
export function bankTransferRoutes(deps: BankTransferRoutesDeps) {
  const internal = new Hono<{ Variables: { merchant: MerchantContext } }>();
  internal.use('*', requireMerchant(deps.internalSecret));

  // processor-gateway settles an installment with a transfer the merchant notified.
  internal.post('/bank-transfers/settle', async (c) => {
    const input = await jsonBody(c, settleInstallmentByTransferRequest);
    const target: TransferTarget =
      input.installmentId !== null
        ? { installmentId: input.installmentId }
        : {
            criteria: criteriaOf(input.customIdentifier, input.customIdentifier2),
            paymentDate: input.paymentDate ?? '',
          };
    const settled = await settleInstallmentByTransfer(deps, c.var.merchant.merchantId, {
      reference: input.reference,
      txId: input.txId,
      amount: input.amount,
      currency: input.currency,
      bankName: input.bankName,
      transferDate: input.transferDate,
      note: input.note,
      target,
    });
    return c.json(answer(settled));
  });

  return internal;
}
