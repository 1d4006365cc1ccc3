import { z } from 'zod';
import { INSTALLMENT_STATUSES, SUBSCRIPTION_STATUSES } from './events';
import { PROCESSORS } from './merchant-context';
import { moneyString } from './rules';

/**
 * Internal: the customer's own page (links' `/pay/account`, issue 29) asks subscriptions, with the
 * merchant context signed, for that customer's subscriptions and changes them. A subscription of another
 * customer or another merchant is 404 (`SUBSCRIPTION_NOT_FOUND`).
 *
 * - `GET  /internal/customers/{customerId}/subscriptions`: `{ subscriptions: [...] }`
 * - `POST /internal/customers/{customerId}/subscriptions/{id}/card` `{ paymentMethodId, processor }`: the
 *   card from now on; a declined installment is charged to it at once (`charged`: their ids).
 * - `POST /internal/customers/{customerId}/subscriptions/{id}/cancel`: cancelled by the customer.
 */
export const customerSubscriptionsPath = (customerId: number) =>
  `/internal/customers/${customerId}/subscriptions`;
export const customerSubscriptionCardPath = (customerId: number, subscriptionId: number) =>
  `/internal/customers/${customerId}/subscriptions/${subscriptionId}/card`;
export const customerSubscriptionCancelPath = (customerId: number, subscriptionId: number) =>
  `/internal/customers/${customerId}/subscriptions/${subscriptionId}/cancel`;

export const customerSubscriptionView = z.object({
  subscriptionId: z.number().int(),
  linkId: z.number().int(),
  type: z.enum(['STATIC', 'DYNAMIC']),
  status: z.enum(SUBSCRIPTION_STATUSES),
  currency: z.string(),
  /** Null: every month until cancelled (an open-ended plan), or a DYNAMIC subscription. */
  totalPeriods: z.number().int().nullable(),
  dayOfMonth: z.number().int().nullable(),
  installmentAmount: moneyString.nullable(),
  /** The card its installments are charged to (the vault's payment method); null: none. */
  paymentMethodId: z.string().nullable(),
  processor: z.string().nullable(),
  installments: z.array(
    z.object({
      installmentId: z.number().int(),
      number: z.number().int(),
      /** `yyyy-MM-dd`, in the merchant's time zone. */
      paymentDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      amount: moneyString,
      status: z.enum(INSTALLMENT_STATUSES),
      paidAt: z.string().nullable(),
      /** Its charge was declined (waiting for a retry, or failed after dunning). */
      declined: z.boolean(),
      /** The card charge that paid it (processor-gateway's id, the webhooks' `txId`), when a charge did. */
      chargeId: z.string().nullable(),
    }),
  ),
});
export type CustomerSubscriptionView = z.infer<typeof customerSubscriptionView>;

export const customerSubscriptionsResponse = z.object({ subscriptions: z.array(customerSubscriptionView) });

export const customerSubscriptionCardBody = z
  .object({ paymentMethodId: z.uuid(), processor: z.enum(PROCESSORS) })
  .strict();

export const customerSubscriptionCardResponse = z.object({
  subscription: customerSubscriptionView,
  /** The declined installments charged to the new card by this request (none on a repeat). */
  charged: z.array(z.number().int()),
});
