import { z } from 'zod';
import { INSTALLMENT_STATUSES, SUBSCRIPTION_STATUSES } from './events';
import { moneyString } from './rules';

/**
 * Internal: the subscription a recurrent link made, as it is now (subscriptions, the authority on
 * installments), for the hosted pay page, where a customer is waiting and agrees to the schedule it shows.
 * `GET /internal/links/{linkId}/subscription` with the link's merchant context, signed; none yet (the
 * link's `link.created` not consumed yet) or another merchant's link: 404.
 */
export const subscriptionOfLinkPath = (linkId: number) => `/internal/links/${linkId}/subscription`;

export const subscriptionOfLinkResponse = z.object({
  subscriptionId: z.number().int(),
  type: z.enum(['STATIC', 'DYNAMIC']),
  status: z.enum(SUBSCRIPTION_STATUSES),
  currency: z.string(),
  /** Null: every month until cancelled (an open-ended plan), or a DYNAMIC subscription. */
  totalPeriods: z.number().int().nullable(),
  dayOfMonth: z.number().int().nullable(),
  installmentAmount: moneyString.nullable(),
  /** Every installment, whatever its status, by number; installment 1 is the link payment. */
  installments: z.array(
    z.object({
      number: z.number().int(),
      /** `yyyy-MM-dd`, in the merchant's time zone. */
      paymentDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      amount: moneyString,
      status: z.enum(INSTALLMENT_STATUSES),
      /** ISO 8601, when paid. */
      paidAt: z.string().nullable(),
    }),
  ),
});
export type SubscriptionOfLink = z.infer<typeof subscriptionOfLinkResponse>;
