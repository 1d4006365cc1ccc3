import {
  type Currency,
  type MerchantContext,
  type SettleLinkByTransferResponse,
  settleLinkByTransferRequest,
} from '@payrail/contracts';
import { jsonBody, requireMerchant } from '@payrail/http';
import { Hono } from 'hono';
import { type PayLinkByTransferDeps, payLinkByTransfer } from '../../application/pay-link-by-transfer';

export interface BankTransferRoutesDeps extends PayLinkByTransferDeps {
  internalSecret: string;
}

/**
 * Internal routes, mounted under `/internal`: never forwarded by the gateway (it forwards `/api/*` only),
 * and a direct call still needs the merchant context signed with the internal secret. A refusal
 * (`TransferLinkNotFound`, `PaymentLinkNotPayable`, `TransferMismatch`) is answered by the app through
 * `LINK_ERRORS`.
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
    });
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
