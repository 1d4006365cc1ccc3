import { linkPaymentKey, type Processor } from '@payrail/contracts';
import { PaymentAttemptUsed, PaymentMethodNotFound } from '../domain/errors';
import { assertProcessorEnabled } from '../domain/merchant-processors';
import { chargeStoredCard, type StoredCardChargeOutcome } from './charge-stored-card';
import type { ChargeDeps } from './settle-charge';

export interface SavedCardLinkPayment {
  merchantId: string;
  /** The processors enabled for the merchant. */
  processors: readonly Processor[];
  linkId: number;
  paymentNumber: number;
  customerId: number;
  paymentMethodId: string;
  amount: string;
  currency: string;
  description?: string;
}

/**
 * The pay page charges a customer's saved card for a link, once per payment attempt
 * (`link:<id>:payment:<n>`): the same attempt again answers its charge (`duplicate`), unless that attempt
 * was made another way (a hosted form, another card). Another customer's card is as unknown here as
 * another merchant's.
 */
export async function payLinkWithSavedCard(
  deps: ChargeDeps,
  payment: SavedCardLinkPayment,
): Promise<StoredCardChargeOutcome> {
  const method = await deps.stores.paymentMethods.findPaymentMethod(
    payment.merchantId,
    payment.paymentMethodId,
  );
  if (!method || method.customerId !== payment.customerId || method.removedAt) {
    throw new PaymentMethodNotFound();
  }
  assertProcessorEnabled(payment.processors, method.processor);
  const outcome = await chargeStoredCard(deps, {
    idempotencyKey: linkPaymentKey(payment.linkId, payment.paymentNumber),
    merchantId: payment.merchantId,
    paymentMethodId: method.id,
    amount: payment.amount,
    currency: payment.currency,
    linkId: payment.linkId,
    description: payment.description ?? `Link ${payment.linkId}`,
  });
  if (
    outcome.kind === 'duplicate' &&
    (outcome.charge.kind !== 'stored-card' || outcome.charge.paymentMethodId !== method.id)
  ) {
    throw new PaymentAttemptUsed();
  }
  return outcome;
}
