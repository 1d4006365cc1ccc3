import { type Currency, createEvent, type MerchantContext } from '@payrail/contracts';
import { TransferLinkNotFound } from '../domain/errors';
import { assertPayableByTransfer, type PaymentLink } from '../domain/payment-link';
import type { LinkTransferSettlement, PaymentLinkRepository } from '../ports/payment-link-repository';

export interface PayLinkByTransferDeps {
  links: PaymentLinkRepository;
  clock: { now(): Date };
}

export interface LinkTransfer {
  /** The merchant's bank reference: the key that makes asking twice pay once. */
  reference: string;
  /** processor-gateway's id of the transfer: the payment's `txId`. */
  txId: string;
  linkId: number;
  /** Two-decimal string. */
  amount: string;
  currency: string | null;
  bankName: string;
  transferDate: string;
  note: string | null;
}

export interface PaidLink {
  link: PaymentLink;
  settlement: LinkTransferSettlement;
}

/**
 * Internal, called by processor-gateway for `POST /api/bank-notification/add`: a transfer the merchant
 * notified pays a pending link. In one transaction the link becomes paid (statusId 200), the settlement is
 * recorded under the bank reference and `link.paid` (BANK_TRANSFER, processor-gateway's transfer id as
 * `txId`, the bank's reference and the transfer's details beside it) goes to the
 * outbox; subscriptions activates a recurrent link's subscription from that event, as for a card payment.
 * Asked again with the same reference, it answers the link that reference paid and changes nothing.
 */
export async function payLinkByTransfer(
  deps: PayLinkByTransferDeps,
  merchant: MerchantContext,
  transfer: LinkTransfer,
): Promise<PaidLink> {
  const recorded = await deps.links.findTransferSettlement(merchant.merchantId, transfer.reference);
  if (recorded) {
    const link = await deps.links.findForMerchant(merchant.merchantId, recorded.linkId);
    if (!link) throw new Error(`link ${recorded.linkId} of a settlement is gone`);
    return { link, settlement: recorded };
  }
  const now = deps.clock.now();
  const paid = await deps.links.payByTransfer(
    {
      merchantId: merchant.merchantId,
      linkId: transfer.linkId,
      reference: transfer.reference,
      txId: transfer.txId,
      paidAt: now,
    },
    (link) => assertPayableByTransfer(link, transfer, now),
    (link) =>
      createEvent(
        'link.paid',
        {
          linkId: link.id,
          merchantId: link.merchantId,
          amount: link.amount,
          currency: link.currency as Currency,
          paidAt: now.toISOString(),
          txId: transfer.txId,
          recurrent: link.recurrence !== null,
          method: 'BANK_TRANSFER',
          processor: null,
          paymentMethodId: null,
          chargeId: null,
          customerId: null,
          processorReference: null,
          authorizationCode: null,
          bankReference: transfer.reference,
          bankTransfer: {
            reference: transfer.reference,
            bankName: transfer.bankName,
            transferDate: transfer.transferDate,
            note: transfer.note,
          },
        },
        now,
      ),
  );
  if (!paid) throw new TransferLinkNotFound(transfer.linkId);
  return paid;
}
