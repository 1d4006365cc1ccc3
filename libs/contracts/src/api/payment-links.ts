import type { ApiOperation } from './operation';
import { isAmount, parseAmount } from '@payrail/money';
import { z } from 'zod';
import { PROCESSORS, type Processor } from '../merchant-context';

/** Amounts arrive as JSON numbers (integers from many clients) or decimal strings; at most two decimals. */
export const amountInput = z.union([z.number(), z.string()]).superRefine((value, ctx) => {
  if (!isAmount(value)) ctx.addIssue({ code: 'custom', message: 'must be a number with at most two decimals' });
  else if (parseAmount(value) <= 0n) ctx.addIssue({ code: 'custom', message: 'must be greater than 0' });
});

/**
 * `paymentMethods`: the array itself must be an array (else 400), but unknown or invalid values inside it
 * are dropped (spec 2.1 rule 1).
 */
export const paymentMethodsInput = z
  .array(z.unknown())
  .transform((values) => values.filter((v): v is Processor => typeof v === 'string' && (PROCESSORS as readonly string[]).includes(v)));

const STATIC_FIELDS = ['installmentAmount', 'totalPeriods', 'dayOfMonth', 'monthForSecondInstallment'] as const;

/** The request of `POST /api/saleitems/add` (spec 2.1), liberal where real clients are (design 5). */
export const createPaymentLinkRequest = z
  .object({
    label: z.string().min(1),
    amount: amountInput,
    handleValue: z.string().min(1),
    handleLabel: z.string().min(1),
    customIdentifier: z.string().nullish(),
    customIdentifier2: z.string().nullish(),
    singlePayment: z.boolean(),
    creditAndDebitCard: z.boolean(),
    // The spec marks it required, but one-off clients in production omit it: absent means false.
    recurrentPayment: z.boolean().default(false),
    recurrentPaymentType: z.enum(['STATIC', 'DYNAMIC']).default('STATIC'),
    installmentAmount: amountInput.nullish(),
    totalPeriods: z.number().int().min(1).nullish(),
    dayOfMonth: z.number().int().min(1).max(28).nullish(),
    monthForSecondInstallment: z.number().int().min(0).nullish(),
    payWaitHours: z.number().int().min(0).nullish(),
    redirectUrl: z.union([z.literal(''), z.url()]).nullish(),
    noLoginRequired: z.boolean().nullish(),
    documentNumber: z.string().nullish(),
    paymentMethods: paymentMethodsInput.optional(),
    currency: z.string().optional(),
  })
  .superRefine((link, ctx) => {
    if (!link.singlePayment && !link.recurrentPayment) {
      ctx.addIssue({ code: 'custom', path: ['singlePayment'], message: 'singlePayment or recurrentPayment must be true' });
    }
    if (link.recurrentPayment && !link.creditAndDebitCard) {
      ctx.addIssue({ code: 'custom', path: ['creditAndDebitCard'], message: 'must be true for recurring payments' });
    }
    if (link.recurrentPayment && link.recurrentPaymentType === 'STATIC') {
      for (const field of STATIC_FIELDS) {
        if (link[field] === undefined || link[field] === null) {
          ctx.addIssue({ code: 'custom', path: [field], message: 'required when recurrentPayment is true and the type is STATIC' });
        }
      }
    }
    if (link.noLoginRequired && !link.documentNumber) {
      ctx.addIssue({ code: 'custom', path: ['documentNumber'], message: 'required when noLoginRequired is true' });
    }
  });

export type CreatePaymentLinkRequest = z.infer<typeof createPaymentLinkRequest>;

/** The response of `POST /api/saleitems/add` (spec 2.2; `ammount` is spelled with two m's). */
export const createPaymentLinkResponse = z.object({
  id: z.number().int(),
  currency: z.string(),
  ammount: z.string().regex(/^\d+\.\d{2}$/),
  statusId: z.number().int(),
  slug: z.string(),
  publicPayUrl: z.url(),
});

/** Spec 4.1, 4.2 and `GET /api/payrequests/{id}`. */
export const paymentLinkOperations: ApiOperation[] = [];
