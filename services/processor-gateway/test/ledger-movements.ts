import type { MerchantContext } from '@payrail/contracts';
import { v7 as timeOrderedUuid } from 'uuid';
import type { Movement } from '../src/domain/ledger';

/**
 * A ledger movement of the merchant for the report's tests: what they name (kind, status, amount, when),
 * everything else empty; settled when it was created unless it is still pending or scheduled.
 */
export function aMovement(
  merchant: MerchantContext,
  o: Partial<Movement> & Pick<Movement, 'kind' | 'status' | 'amount' | 'createdAt'>,
): Movement {
  return {
    id: timeOrderedUuid(),
    merchantId: merchant.merchantId,
    method: o.kind === 'BANK_TRANSFER' ? 'BANK_TRANSFER' : 'CARD',
    processor: null,
    currency: 'PYG',
    refundedAmount: '0',
    cardBrand: null,
    cardLast4: null,
    processorReference: null,
    reference: null,
    paymentId: null,
    linkId: null,
    label: null,
    subscriptionId: null,
    installmentId: null,
    installmentNumber: null,
    handleValue: null,
    handleLabel: null,
    customIdentifier: null,
    customIdentifier2: null,
    declineCode: null,
    declineCategory: null,
    settledAt: ['pending', 'scheduled'].includes(o.status) ? null : o.createdAt,
    ...o,
  };
}
