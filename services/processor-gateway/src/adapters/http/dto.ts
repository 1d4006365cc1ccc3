import { amountInput, CURRENCIES, PROCESSORS } from '@payrail/contracts';
import { z } from 'zod';
import type { Charge } from '../../domain/charge';
import type { PaymentMethod } from '../../domain/payment-method';

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const url = z.url({ protocol: /^https?$/ });

const buyer = z
  .object({
    name: z.string().max(200).optional(),
    email: z.string().max(320).optional(),
    phone: z.string().max(40).optional(),
    documentNumber: z.string().max(40).optional(),
  })
  .strict();

export const hostedPaymentBody = z
  .object({
    linkId: id,
    paymentNumber: z.number().int().min(1).max(1000),
    processor: z.enum(PROCESSORS),
    amount: amountInput,
    currency: z.enum(CURRENCIES),
    description: z.string().min(1).max(200),
    returnUrl: url,
    cancelUrl: url,
    buyer: buyer.optional(),
  })
  .strict();

export const savedCardPaymentBody = z
  .object({
    linkId: id,
    paymentNumber: z.number().int().min(1).max(1000),
    customerId: id,
    paymentMethodId: z.uuid(),
    amount: amountInput,
    currency: z.enum(CURRENCIES),
    description: z.string().min(1).max(200).optional(),
  })
  .strict();

export const describeChargesBody = z.object({ chargeIds: z.array(z.uuid()).max(500) }).strict();

export const cardRegistrationBody = z
  .object({
    customerId: id,
    processor: z.enum(PROCESSORS),
    returnUrl: url,
    linkId: id.optional(),
    email: z.string().max(320).optional(),
    phone: z.string().max(40).optional(),
    name: z.string().max(200).optional(),
  })
  .strict();

/** A charge as the pay page sees it: its state and why it failed, nothing of the card. */
export function chargeView(charge: Charge) {
  return {
    chargeId: charge.id,
    idempotencyKey: charge.idempotencyKey,
    status: charge.status,
    processor: charge.processor,
    amount: charge.amount,
    currency: charge.currency,
    linkId: charge.linkId,
    installmentId: charge.installmentId,
    paymentMethodId: charge.paymentMethodId,
    declineCode: charge.declineCode,
    category: charge.declineCategory,
    retryable: charge.retryable,
    settledAt: charge.settledAt?.toISOString() ?? null,
    /** What the processor knows the charge by (the reference we sent it), and its authorization code. */
    processorReference: charge.reference,
    authorizationCode: charge.authorizationCode,
  };
}

export function paymentMethodView(method: PaymentMethod, now: Date) {
  return {
    paymentMethodId: method.id,
    customerId: method.customerId,
    processor: method.processor,
    maskedNumber: method.maskedNumber,
    last4: method.last4,
    brand: method.brand,
    expiryMonth: method.expiryMonth,
    expiryYear: method.expiryYear,
    blocked: method.blockedUntil !== null && method.blockedUntil > now,
    createdAt: method.createdAt.toISOString(),
  };
}
