import {
  type Currency,
  type MerchantContext,
  type SettleLinkByTransferResponse,
  settleLinkByTransferRequest,
} from '@payrail/contracts';
import { HttpProblem, jsonBody, problems, requireMerchant } from '@payrail/http';
import { Hono } from 'hono';
import { type PayLinkByTransferDeps, payLinkByTransfer } from '../../application/pay-link-by-transfer';
import { PaymentLinkNotFound, PaymentLinkNotPayable, TransferMismatch } from '../../domain/errors';

export interface BankTransferRoutesDeps extends PayLinkByTransferDeps {
  internalSecret: string;
}

/** The refusals of a transfer, to HTTP. */
function toProblem(error: unknown): never {
  if (error instanceof PaymentLinkNotFound) {
    throw new HttpProblem(404, 'PAYMENT_LINK_NOT_FOUND', error.message, [
      { path: 'payRequestId', message: error.message },
    ]);
  }
  if (error instanceof PaymentLinkNotPayable) throw problems.conflict(error.code, error.message);
  if (error instanceof TransferMismatch) {
    throw problems.unprocessable(error.code, error.message, [{ path: error.field, message: error.message }]);
  }
  throw error;
}

/**
 * Internal routes, mounted under `/internal`: never forwarded by the gateway (it forwards `/api/*` only),
 * and a direct call still needs the merchant context signed with the internal secret.
 */
export function bankTransferRoutes(deps: BankTransferRoutesDeps) {
  const internal = new Hono<{ Variables: { merchant: MerchantContext } }>();
  internal.use('*', requireMerchant(deps.internalSecret));

  // processor-gateway pays a link with a transfer the merchant notified.
  internal.post('/bank-transfers/settle', async (c) => {
    const input = await jsonBody(c, settleLinkByTransferRequest);
    const { link, settlement } = await payLinkByTransfer(deps, c.var.merchant, {
      reference: input.reference,
      txId: input.txId,
      linkId: input.payRequestId,
      amount: input.amount,
      currency: input.currency,
      bankName: input.bankName,
      transferDate: input.transferDate,
      note: input.note,
    }).catch(toProblem);
    const answer: SettleLinkByTransferResponse = {
      payRequestId: link.id,
      statusId: link.statusId,
      amount: link.amount,
      currency: link.currency as Currency,
      paidAt: settlement.settledAt.toISOString(),
    };
    return c.json(answer);
  });

  return internal;
}
