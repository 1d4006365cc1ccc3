import { z } from 'zod';
import { DECLINE_CATEGORIES, INSTALLMENT_STATUSES, SUBSCRIPTION_STATUSES } from '../events';
import { BULK_LIMITS, dayOfMonthSchema, moneyString } from '../rules';
import { type ApiOperation, type ApiTag, defineOperation } from './operation';
import { calendarDate, MAX_LENGTH, text } from '../text';
import { amountInput, identifier2Input, identifierInput, identifierOf } from './payment-links';
import {
  COURSE,
  changedBy,
  courseInstallments,
  MEMBERSHIP,
  membershipInstallments,
  money,
  SOFTWARE,
  STORY_LINKS,
  STORY_SUBSCRIPTIONS,
  type StoryInstallment,
  v1Installment,
} from './story';

export { calendarDate };
import { offsetDateTime } from './time';

/**
 * The v1 (identifier-based, camelCase) and v2 (by installment, snake_case) installment endpoints, spec 4.3
 * and 4.4. The service validates with these very schemas, so the OpenAPI document cannot drift.
 */

export { BULK_LIMITS };

const money2 = moneyString;
const dayOfMonth = dayOfMonthSchema;

// ---------------------------------------------------------------------------------------------------
// Locating a subscription: by the merchant's identifiers, or by the link it was made from (the only way
// to name one whose link carried no identifier).

/** Ids are positive integers; as path or query text, digits only. */
function numericId(max: number) {
  return z.union([
    z.number().int().positive().max(max),
    z
      .string()
      .regex(/^\d{1,16}$/, 'must be a positive integer')
      .transform(Number)
      .pipe(z.number().int().positive('must be a positive integer').max(max)),
  ]);
}

const MAX_INT4 = 2_147_483_647;
const payRequestId = numericId(Number.MAX_SAFE_INTEGER).meta({
  description: 'The `id` of the link the subscription was made from.',
});

type Style = 'camel' | 'snake';
const LOCATOR_FIELDS: Record<Style, [string, string, string]> = {
  camel: ['customIdentifier', 'customIdentifier2', 'payRequestId'],
  snake: ['custom_identifier', 'custom_identifier2', 'pay_request_id'],
};

/** At least one locator; the message names the fields as the endpoint spells them. */
function requireLocator(style: Style) {
  const [first, second, link] = LOCATOR_FIELDS[style];
  return (body: Record<string, unknown>, ctx: z.RefinementCtx) => {
    const given = (value: unknown) => value !== undefined && value !== null && value !== '';
    if (!given(body[first]) && !given(body[second]) && !given(body[link])) {
      ctx.addIssue({ code: 'custom', path: [first], message: `${first}, ${second} or ${link} is required` });
    }
  };
}

const onObjects = {
  when: (payload: { value: unknown }) => typeof payload.value === 'object' && payload.value !== null,
};

// ---------------------------------------------------------------------------------------------------
// v1: identifiers in the body, camelCase.

const v1Locator = {
  customIdentifier: identifierInput,
  /** Optional; an empty string counts as absent, as it does when links store it. */
  customIdentifier2: identifier2Input,
  payRequestId: payRequestId.nullish(),
};

function v1Request<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object({ ...v1Locator, ...shape }).superRefine(requireLocator('camel'), onObjects);
}

export const cancelByAmountRequest = v1Request({
  amount: amountInput,
  /** How many to cancel, earliest first; all of that amount when absent. */
  quantity: z.number().int().min(1).optional(),
});

export const cancelByInvoiceRequest = v1Request({
  invoiceNumber: identifierOf(MAX_LENGTH.invoiceNumber).pipe(z.string().min(1)),
});

export const cancelAllRequest = v1Request({});

export const modifyByAmountRequest = v1Request({ amount: amountInput, newAmount: amountInput });

export const modifyAllRequest = v1Request({ newAmount: amountInput });

export const modifyDatesRequest = v1Request({ dayOfMonth });

const installmentV1 = z.object({
  installmentId: z.number().int(),
  paymentDate: z.string(),
  amount: money2.describe('two-decimal string'),
  status: z.enum(INSTALLMENT_STATUSES),
});

/** Every v1 operation answers with the installments it changed. */
export const changedInstallmentsResponse = z.object({ installments: z.array(installmentV1) });

// ---------------------------------------------------------------------------------------------------
// Subscriptions as resources (camelCase, like the link they come from).

const subscriptionView = z.object({
  id: z.number().int(),
  payRequestId: z.number().int().meta({ description: 'The `id` of the link it was made from.' }),
  type: z.enum(['STATIC', 'DYNAMIC']),
  status: z.enum(SUBSCRIPTION_STATUSES).meta({
    description: 'pending until the first payment, then active, then completed or cancelled.',
  }),
  customIdentifier: z.string().nullable(),
  customIdentifier2: z.string().nullable(),
  currency: z.string(),
  firstAmount: money2,
  installmentAmount: money2.nullable().meta({
    description: 'STATIC: the amount from the 2nd installment on, as it is now (`modify-all` changes it).',
  }),
  totalPeriods: z
    .number()
    .int()
    .nullable()
    .meta({
      description:
        'STATIC: installments including the first. Null: DYNAMIC, or a STATIC plan created with `totalPeriods: ' +
        'null`, open-ended (every month until cancelled; its next 12 installments always exist, it never completes).',
    }),
  dayOfMonth: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'STATIC: the debit day as it is now (`modify-dates` changes it).' }),
  monthForSecondInstallment: z.number().int().nullable(),
  createTime: offsetDateTime,
  activateTime: offsetDateTime.nullable(),
  endTime: offsetDateTime.nullable().meta({ description: 'When it was completed or cancelled.' }),
});

export const subscriptionResponse = subscriptionView.extend({
  installments: z.array(
    z.object({
      installmentId: z.number().int(),
      number: z.number().int(),
      paymentDate: z.string(),
      amount: money2,
      status: z.enum(INSTALLMENT_STATUSES),
      invoiceNumber: z.string().nullable(),
    }),
  ),
});

export const subscriptionListResponse = z.object({
  subscriptions: z.array(subscriptionView),
  nextCursor: z
    .string()
    .nullable()
    .meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
});

export const subscriptionIdParams = z.object({ id: numericId(Number.MAX_SAFE_INTEGER) });

export const UPCOMING_DAYS = { default: 7, max: 31 } as const;

export const subscriptionSummaryQuery = z.object({
  days: z
    .string()
    .regex(/^\d{1,2}$/, `must be an integer from 1 to ${UPCOMING_DAYS.max}`)
    .transform(Number)
    .pipe(z.number().int().min(1).max(UPCOMING_DAYS.max))
    .optional()
    .meta({
      description: `How many days, from today in the merchant's time zone, \`upcoming\` covers (default ${UPCOMING_DAYS.default}).`,
    }),
});

/** The response of `GET /api/subscriptions/summary`. */
export const subscriptionSummaryResponse = z.object({
  counts: z
    .object({
      pending: z.number().int(),
      active: z.number().int(),
      past_due: z.number().int(),
      completed: z.number().int(),
      cancelled: z.number().int(),
    })
    .meta({ description: "The merchant's subscriptions in each status." }),
  upcoming: z
    .object({
      days: z.number().int(),
      installments: z.number().int().meta({
        description:
          'Pending installments of active and past-due subscriptions dated from today to `days - 1` days after.',
      }),
      amounts: z
        .array(z.object({ currency: z.string(), amount: money2 }))
        .meta({ description: 'Their sum in each currency (none when there are none).' }),
    })
    .meta({ description: 'The scheduled automatic debits of the next `days` days.' }),
});

export const SUBSCRIPTION_PAGE = { default: 20, max: 100 } as const;

export const listSubscriptionsQuery = z.object({
  customIdentifier: text(MAX_LENGTH.customIdentifier).min(1).optional(),
  customIdentifier2: text(MAX_LENGTH.customIdentifier2).min(1).optional(),
  payRequestId: payRequestId.optional(),
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, `must be an integer from 1 to ${SUBSCRIPTION_PAGE.max}`)
    .transform(Number)
    .pipe(z.number().int().min(1).max(SUBSCRIPTION_PAGE.max))
    .optional()
    .meta({
      description: `Page size, 1 to ${SUBSCRIPTION_PAGE.max} (default ${SUBSCRIPTION_PAGE.default}).`,
    }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a nextCursor of an earlier page')
    .optional()
    .meta({ description: '`nextCursor` of the previous page.' }),
});

// ---------------------------------------------------------------------------------------------------
// v2: installments by id, snake_case as the spec's bulk endpoint.

const v2Locator = {
  custom_identifier: identifierInput,
  custom_identifier2: identifier2Input,
  pay_request_id: payRequestId.nullish(),
};

export const listInstallmentsQuery = z
  .object({
    custom_identifier: text(MAX_LENGTH.customIdentifier).optional(),
    custom_identifier2: text(MAX_LENGTH.customIdentifier2).optional(),
    pay_request_id: payRequestId.optional(),
  })
  .superRefine(requireLocator('snake'), onObjects);

export const installmentIdParams = z.object({ id: numericId(MAX_INT4) });

export const modifyInstallmentRequest = z
  .object({ amount: amountInput.optional(), payment_date: calendarDate.optional() })
  .refine((body) => body.amount !== undefined || body.payment_date !== undefined, {
    message: 'amount or payment_date is required',
  });

export const addInstallmentsRequest = z
  .object({
    ...v2Locator,
    installments: z
      .array(
        z.object({
          payment_date: calendarDate,
          amount: amountInput,
          /** Required for DYNAMIC subscriptions, unique within the subscription. */
          invoice_number: identifierOf(MAX_LENGTH.invoiceNumber).pipe(z.string().min(1)).nullish(),
        }),
      )
      .min(1)
      .max(BULK_LIMITS.updatesPerSubscription),
  })
  .superRefine(requireLocator('snake'), onObjects)
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.installments.forEach((installment, index) => {
      if (!installment.invoice_number) return;
      if (seen.has(installment.invoice_number)) {
        ctx.addIssue({
          code: 'custom',
          path: ['installments', index, 'invoice_number'],
          message: 'repeats an invoice number of this request',
        });
      }
      seen.add(installment.invoice_number);
    });
  });

export const bulkModifyInstallmentsRequest = z.object({
  operations: z
    .array(
      z.object({
        ...v2Locator,
        updates: z
          .array(z.object({ payment_date: calendarDate, amount: amountInput }))
          .max(BULK_LIMITS.updatesPerSubscription),
      }),
    )
    .max(BULK_LIMITS.subscriptions),
});

export type BulkModifyInstallmentsRequest = z.infer<typeof bulkModifyInstallmentsRequest>;

/** Spec 2.4: `amount` is a JSON number written with its two decimals (`150000.00`). */
const installmentV2 = z.object({
  installment_id: z.number().int(),
  payment_date: z.string(),
  amount: z.number().describe('number with two decimals'),
  status: z.enum(INSTALLMENT_STATUSES),
  number: z.number().int(),
  invoice_number: z.string().optional(),
});

export const installmentResponse = installmentV2;
export const installmentsResponse = z.object({ installments: z.array(installmentV2) });

/** One charge attempt of an installment (automatic debit), as the audit shows it. */
const chargeAttemptV2 = z.object({
  attempt: z.number().int().meta({ description: 'Attempt number: 1, then each retry.' }),
  requested_at: offsetDateTime,
  amount: z.number().describe('number with two decimals: the amount charged'),
  currency: z.string(),
  processor: z.string().nullable(),
  status: z.enum(['requested', 'succeeded', 'failed']).meta({
    description: '`requested` until the processor answers.',
  }),
  settled_at: offsetDateTime.nullable().meta({ description: 'When the processor’s answer was recorded.' }),
  decline_code: z.string().nullable().meta({ description: "The processor's code of a declined attempt." }),
  category: z.enum(DECLINE_CATEGORIES).nullable().meta({
    description: '`soft` is retried, `hard` is not, `card-blocked` waits for the block to end.',
  }),
  next_attempt_on: z.string().nullable().meta({
    description: 'The retry scheduled after this failed attempt (a day in the merchant’s time zone).',
  }),
});

export const chargeAttemptsResponse = z.object({
  installment_id: z.number().int(),
  status: z.enum(INSTALLMENT_STATUSES),
  next_attempt_on: z.string().nullable(),
  attempts: z.array(chargeAttemptV2),
});

/** The v2 list adds where each pending installment stands in the automatic debit. */
export const pendingInstallmentsResponse = z.object({
  installments: z.array(
    installmentV2.extend({
      last_attempt: chargeAttemptV2.nullable().meta({ description: 'Its latest charge attempt, if any.' }),
      next_attempt_on: z.string().nullable().meta({ description: 'The retry scheduled after a decline.' }),
    }),
  ),
});

const errorObject = z.object({ code: z.string(), message: z.string() });

export const bulkModifyInstallmentsResponse = z.object({
  summary: z.object({
    subscriptions_received: z.number().int(),
    subscriptions_processed: z.number().int(),
    updates_applied: z.number().int(),
    updates_failed: z.number().int(),
  }),
  results: z.array(
    z.object({
      custom_identifier: z.string().nullable(),
      custom_identifier2: z.string().nullable(),
      pay_request_id: z.number().int().optional().meta({ description: 'Echoed when given.' }),
      status: z.enum(['success', 'failed']),
      updates: z.array(
        z.object({
          payment_date: z.string(),
          status: z.enum(['updated', 'failed']),
          installment_id: z.number().int().optional(),
          updated_fields: z.object({ amount: z.number() }).optional(),
          error: errorObject.optional(),
        }),
      ),
      error: errorObject.optional(),
    }),
  ),
});

// ---------------------------------------------------------------------------------------------------
// Documentation. The examples continue the story of the payment-link examples (`./story.ts`: the demo
// merchant of a fresh `npm start`, 2026-11-23): link 2 made subscription 1 (`4567890` / `CONTRACT-2026-117`,
// installments 1 to 12), link 3 the DYNAMIC subscription 2 (`4567891`, installment 13), and link 4, with no
// identifier, subscription 3 (installments 14 to 16). The customer paid links 2 and 3 on the pay page.

const storySubscription = {
  id: STORY_SUBSCRIPTIONS.membership,
  payRequestId: STORY_LINKS.membership,
  type: 'STATIC',
  status: 'active',
  customIdentifier: MEMBERSHIP.customIdentifier,
  customIdentifier2: MEMBERSHIP.customIdentifier2,
  currency: 'PYG',
  firstAmount: money(MEMBERSHIP.firstAmount),
  installmentAmount: money(MEMBERSHIP.installmentAmount),
  totalPeriods: MEMBERSHIP.totalPeriods,
  dayOfMonth: MEMBERSHIP.dayOfMonth,
  monthForSecondInstallment: 1,
  createTime: '2026-11-23T09:00:00-03:00',
  activateTime: '2026-11-23T09:04:12-03:00',
  endTime: null,
};

/** A v2 installment (`amount` a number). */
const v2Installment = (installment: StoryInstallment) => ({
  installment_id: installment.installmentId,
  payment_date: installment.paymentDate,
  amount: installment.amount,
  status: installment.status,
  number: installment.number,
});

const v1Tags: ApiTag[] = ['Subscriptions (v1)'];
const v2Tags: ApiTag[] = ['Installments (v2)'];
const subscriptionTags: ApiTag[] = ['Subscriptions'];

const LOCATOR_NOTE =
  'The subscription is found among the pending, active and past-due ones by `customIdentifier`, `customIdentifier2` ' +
  '(either or both) or `payRequestId`, the `id` of the link it was made from (the way to name a subscription ' +
  'whose link had no identifier). Identifiers may be sent as JSON numbers.';
const LOCATOR_NOTE_V2 = LOCATOR_NOTE.replace('`customIdentifier`', '`custom_identifier`')
  .replace('`customIdentifier2`', '`custom_identifier2`')
  .replace('`payRequestId`', '`pay_request_id`');

export const subscriptionApi = {
  listSubscriptions: defineOperation({
    method: 'get',
    path: '/api/subscriptions',
    operationId: 'listSubscriptions',
    summary: 'Find subscriptions',
    description:
      'The merchant’s subscriptions, oldest first, filtered by any of `customIdentifier`, `customIdentifier2`, ' +
      '`payRequestId` and `status` (all of any status when none is given). Paged: at most `limit` per page ' +
      `(default ${SUBSCRIPTION_PAGE.default}, at most ${SUBSCRIPTION_PAGE.max}); when \`nextCursor\` is not null, ` +
      'pass it as `cursor` for the next page. A subscription appears shortly after its link is created.',
    tags: subscriptionTags,
    security: 'apiToken',
    query: listSubscriptionsQuery,
    parameterExamples: { default: { customIdentifier: '4567890' } },
    responses: {
      200: {
        description: 'One page of subscriptions.',
        schema: subscriptionListResponse,
        example: { subscriptions: [storySubscription], nextCursor: null },
      },
    },
  }),
  getSubscriptionSummary: defineOperation({
    method: 'get',
    path: '/api/subscriptions/summary',
    operationId: 'getSubscriptionSummary',
    summary: 'Subscriptions by status, and the debits of the next days',
    description:
      "How many of the merchant's subscriptions are in each status, and the pending installments of active " +
      'and past-due ones due in the next `days` days (today included, in the merchant’s time zone) with their ' +
      'sum per currency: what the automatic debit will try to collect. In the example story subscriptions 1 and ' +
      '2 are active and 3 waits for its first payment; nothing falls due in the next 3 days.',
    tags: subscriptionTags,
    security: 'apiToken',
    query: subscriptionSummaryQuery,
    parameterExamples: { default: { days: '3' } },
    responses: {
      200: {
        description: 'The counts and the upcoming debits.',
        schema: subscriptionSummaryResponse,
        example: {
          counts: { pending: 1, active: 2, past_due: 0, completed: 0, cancelled: 0 },
          upcoming: { days: 3, installments: 0, amounts: [] },
        },
      },
    },
  }),
  getSubscription: defineOperation({
    method: 'get',
    path: '/api/subscriptions/{id}',
    operationId: 'getSubscription',
    summary: 'Retrieve a subscription with its installments',
    description: "Every installment, whatever its status; another merchant's subscription is 404.",
    tags: subscriptionTags,
    security: 'apiToken',
    pathParams: subscriptionIdParams,
    parameterExamples: { default: { id: STORY_SUBSCRIPTIONS.membership } },
    errors: ['SUBSCRIPTION_NOT_FOUND'],
    responses: {
      200: {
        description: 'The subscription.',
        schema: subscriptionResponse,
        example: {
          ...storySubscription,
          installments: membershipInstallments('firstPaid').map((installment) => ({
            installmentId: installment.installmentId,
            number: installment.number,
            paymentDate: installment.paymentDate,
            amount: money(installment.amount),
            status: installment.status,
            invoiceNumber: null,
          })),
        },
      },
    },
  }),
  listPendingInstallments: defineOperation({
    method: 'get',
    path: '/api/subscriptions/installments',
    operationId: 'listPendingInstallments',
    summary: 'List pending installments of a subscription',
    description: `The pending installments, earliest first. \`amount\` is a number with two decimals. ${LOCATOR_NOTE_V2}`,
    tags: v2Tags,
    fieldNames: 'snake_case',
    security: 'apiToken',
    query: listInstallmentsQuery,
    parameterExamples: { default: { custom_identifier: '4567890' } },
    errors: ['SUBSCRIPTION_NOT_FOUND', 'MULTIPLE_SUBSCRIPTIONS_MATCH'],
    responses: {
      200: {
        description:
          'The pending installments; `last_attempt` and `next_attempt_on` tell where each stands in the ' +
          'automatic debit (a declined charge leaves it pending until its retry).',
        schema: pendingInstallmentsResponse,
        example: {
          installments: membershipInstallments('firstPaid')
            .filter((installment) => installment.status === 'pending')
            .map((installment) => ({
              ...v2Installment(installment),
              last_attempt: null,
              next_attempt_on: null,
            })),
        },
      },
    },
  }),
  addInstallments: defineOperation({
    method: 'post',
    path: '/api/subscriptions/installments',
    operationId: 'addInstallments',
    summary: 'Add installments to an active subscription',
    description:
      'Up to 60 new pending installments, numbered after the last one. DYNAMIC subscriptions need an ' +
      '`invoice_number` per installment (422 INVOICE_NUMBER_REQUIRED), unique within the subscription ' +
      '(409 INVOICE_NUMBER_TAKEN). A subscription whose first payment is not made yet is 409 ' +
      'SUBSCRIPTION_NOT_ACTIVE (in the example story the customer paid link 3 on the pay page, so the DYNAMIC ' +
      `subscription is active); a date before today is 422 PAYMENT_DATE_IN_PAST. ${LOCATOR_NOTE_V2}`,
    tags: v2Tags,
    fieldNames: 'snake_case',
    security: 'apiToken',
    errors: [
      'SUBSCRIPTION_NOT_FOUND',
      'MULTIPLE_SUBSCRIPTIONS_MATCH',
      'SUBSCRIPTION_NOT_ACTIVE',
      'INVOICE_NUMBER_TAKEN',
      'INVOICE_NUMBER_REQUIRED',
      'PAYMENT_DATE_IN_PAST',
    ],
    requestBody: {
      schema: addInstallmentsRequest,
      example: undefined,
      examples: {
        dynamicInvoices: {
          summary: 'Two invoices of the DYNAMIC subscription, active since its first payment',
          value: {
            custom_identifier: SOFTWARE.customIdentifier,
            installments: SOFTWARE.invoices.map((invoice) => ({
              payment_date: invoice.paymentDate,
              amount: invoice.amount,
              invoice_number: invoice.invoiceNumber,
            })),
          },
        },
      },
    },
    responses: {
      201: {
        description: 'The installments added',
        schema: installmentsResponse,
        example: {
          installments: SOFTWARE.invoices.map((invoice) => ({
            installment_id: invoice.installmentId,
            payment_date: invoice.paymentDate,
            amount: invoice.amount,
            status: 'pending',
            number: invoice.number,
            invoice_number: invoice.invoiceNumber,
          })),
        },
      },
    },
  }),
  modifyInstallment: defineOperation({
    method: 'patch',
    path: '/api/subscriptions/installments/{id}',
    operationId: 'modifyInstallment',
    summary: 'Modify one installment (amount and/or date)',
    description:
      "Pending installments from the 2nd on only (else 409). A `payment_date` before today in the merchant's " +
      'time zone is refused with 422 PAYMENT_DATE_IN_PAST. It changes that installment only: those an ' +
      'open-ended subscription adds later follow its terms (`modify-all`, `modify-dates`).',
    tags: v2Tags,
    fieldNames: 'snake_case',
    security: 'apiToken',
    pathParams: installmentIdParams,
    parameterExamples: { default: { id: 3 } },
    errors: [
      'INSTALLMENT_NOT_FOUND',
      'INSTALLMENT_NOT_PENDING',
      'FIRST_INSTALLMENT_SETTLED_BY_LINK',
      'CONCURRENT_MODIFICATION',
      'PAYMENT_DATE_IN_PAST',
    ],
    requestBody: {
      schema: modifyInstallmentRequest,
      example: { amount: 155000, payment_date: '2027-01-12' },
    },
    responses: {
      200: {
        description: 'The installment as modified',
        schema: installmentResponse,
        example: v2Installment(membershipInstallments('oneModified')[2] as StoryInstallment),
      },
    },
  }),
  cancelInstallment: defineOperation({
    method: 'post',
    path: '/api/subscriptions/installments/{id}/cancel',
    operationId: 'cancelInstallment',
    summary: 'Cancel one installment',
    description:
      'Pending installments from the 2nd on only (else 409), e.g. when the customer paid by other means. ' +
      'A STATIC subscription left with nothing to collect becomes completed.',
    tags: v2Tags,
    fieldNames: 'snake_case',
    security: 'apiToken',
    pathParams: installmentIdParams,
    parameterExamples: { default: { id: 4 } },
    errors: [
      'INSTALLMENT_NOT_FOUND',
      'INSTALLMENT_NOT_PENDING',
      'FIRST_INSTALLMENT_SETTLED_BY_LINK',
      'CONCURRENT_MODIFICATION',
    ],
    responses: {
      200: {
        description: 'The installment, cancelled',
        schema: installmentResponse,
        example: v2Installment(membershipInstallments('oneCancelled')[3] as StoryInstallment),
      },
    },
  }),
  listInstallmentAttempts: defineOperation({
    method: 'get',
    path: '/api/subscriptions/installments/{id}/attempts',
    operationId: 'listInstallmentAttempts',
    summary: 'Charge attempts of one installment',
    description:
      'Every automatic charge attempt of the installment, first first: when, how much, which processor, the ' +
      'outcome with the decline code and category, and the retry scheduled after a decline. Empty until its ' +
      'first charge (as in the example story, where nothing is charged yet). Another merchant’s installment ' +
      'is 404.',
    tags: v2Tags,
    fieldNames: 'snake_case',
    security: 'apiToken',
    pathParams: installmentIdParams,
    parameterExamples: { default: { id: 3 } },
    errors: ['INSTALLMENT_NOT_FOUND'],
    responses: {
      200: {
        description: 'The attempts',
        schema: chargeAttemptsResponse,
        examples: {
          default: {
            summary: 'Not charged yet',
            value: { installment_id: 3, status: 'pending', next_attempt_on: null, attempts: [] },
          },
          dunning: {
            summary:
              'Later in the story: on its day (2027-01-10, at 170000) declined twice for insufficient funds, ' +
              'retried on the days of the dunning policy set below (1, 2, 4, 7 days after)',
            value: {
              installment_id: 3,
              status: 'pending',
              next_attempt_on: '2027-01-12',
              attempts: [
                {
                  attempt: 1,
                  requested_at: '2027-01-10T06:00:04-03:00',
                  amount: 170000,
                  currency: 'PYG',
                  processor: 'PARAGUAY.PROCESSOR_A',
                  status: 'failed',
                  settled_at: '2027-01-10T06:00:05-03:00',
                  decline_code: '51',
                  category: 'soft',
                  next_attempt_on: '2027-01-11',
                },
                {
                  attempt: 2,
                  requested_at: '2027-01-11T06:00:03-03:00',
                  amount: 170000,
                  currency: 'PYG',
                  processor: 'PARAGUAY.PROCESSOR_A',
                  status: 'failed',
                  settled_at: '2027-01-11T06:00:04-03:00',
                  decline_code: '51',
                  category: 'soft',
                  next_attempt_on: '2027-01-12',
                },
              ],
            },
          },
        },
      },
    },
  }),
  bulkModifyInstallments: defineOperation({
    method: 'patch',
    path: '/api/subscriptions/installments/bulk',
    operationId: 'bulkModifyInstallments',
    summary: 'Bulk modification of installments',
    description:
      'At most 200 operations and 60 updates per operation (413 beyond, before the items are ' +
      'validated); malformed JSON or an invalid item is 400. Otherwise 200 with the outcome per subscription: ' +
      'a result is `failed` only with a subscription-level `error` (IDENTIFIER_REQUIRED, SUBSCRIPTION_NOT_FOUND, ' +
      'MULTIPLE_SUBSCRIPTIONS_MATCH; its updates then count as failed); a found subscription is `success` and ' +
      'each update has its own status. Per-update errors: INSTALLMENT_NOT_FOUND (no pending installment on ' +
      'that date), INSTALLMENT_NOT_PENDING, DUPLICATE_PAYMENT_DATE (several pending installments on that ' +
      'date), DUPLICATE_DATE_IN_REQUEST (the request names the date twice for the subscription). Each ' +
      'operation names its subscription by `custom_identifier`, `custom_identifier2` or `pay_request_id`.',
    tags: v2Tags,
    fieldNames: 'snake_case',
    security: 'apiToken',
    errors: ['PAYLOAD_TOO_LARGE'],
    requestBody: {
      schema: bulkModifyInstallmentsRequest,
      example: {
        operations: [
          {
            custom_identifier: MEMBERSHIP.customIdentifier,
            custom_identifier2: MEMBERSHIP.customIdentifier2,
            updates: [
              { payment_date: '2027-03-05', amount: 160000 },
              { payment_date: '2027-04-05', amount: 160000 },
            ],
          },
          { pay_request_id: STORY_LINKS.course, updates: [{ payment_date: '2026-12-10', amount: 55000 }] },
          { custom_identifier: '7654321', updates: [{ payment_date: '2026-12-05', amount: 99000 }] },
        ],
      },
    },
    responses: {
      200: {
        description: 'Processed, even when partly unsuccessful',
        schema: bulkModifyInstallmentsResponse,
        example: {
          summary: {
            subscriptions_received: 3,
            subscriptions_processed: 2,
            updates_applied: 3,
            updates_failed: 1,
          },
          results: [
            {
              custom_identifier: '4567890',
              custom_identifier2: 'CONTRACT-2026-117',
              status: 'success',
              updates: [
                {
                  payment_date: '2027-03-05',
                  status: 'updated',
                  installment_id: 5,
                  updated_fields: { amount: 160000 },
                },
                {
                  payment_date: '2027-04-05',
                  status: 'updated',
                  installment_id: 6,
                  updated_fields: { amount: 160000 },
                },
              ],
            },
            {
              custom_identifier: null,
              custom_identifier2: null,
              pay_request_id: STORY_LINKS.course,
              status: 'success',
              updates: [
                {
                  payment_date: '2026-12-10',
                  status: 'updated',
                  installment_id: 15,
                  updated_fields: { amount: 55000 },
                },
              ],
            },
            {
              custom_identifier: '7654321',
              custom_identifier2: null,
              status: 'failed',
              updates: [{ payment_date: '2026-12-05', status: 'failed' }],
              error: {
                code: 'SUBSCRIPTION_NOT_FOUND',
                message: 'No pending or active subscription matches the identifiers',
              },
            },
          ],
        },
      },
    },
  }),
  modifyInstallmentsByAmount: defineOperation({
    method: 'put',
    path: '/api/subscriptions/modify-by-amount',
    operationId: 'modifyInstallmentsByAmount',
    summary: 'Modify installments by amount',
    description:
      "Every pending installment (from the 2nd on) of `amount` gets `newAmount`. The plan's terms stay: the " +
      `installments an open-ended subscription adds later come with its installment amount. ${LOCATOR_NOTE}`,
    tags: v1Tags,
    security: 'apiToken',
    errors: ['SUBSCRIPTION_NOT_FOUND', 'MULTIPLE_SUBSCRIPTIONS_MATCH', 'NO_MATCHING_PENDING_INSTALLMENTS'],
    requestBody: {
      schema: modifyByAmountRequest,
      example: { customIdentifier: '4567890', amount: 150000, newAmount: '165000.00' },
    },
    responses: {
      200: {
        description: 'The installments modified',
        schema: changedInstallmentsResponse,
        example: { installments: changedBy('byAmount').map(v1Installment) },
      },
    },
  }),
  modifyAllInstallments: defineOperation({
    method: 'put',
    path: '/api/subscriptions/modify-all',
    operationId: 'modifyAllInstallments',
    summary: 'Modify the amount of all pending installments',
    description:
      "Every pending installment from the 2nd on gets `newAmount`, and so does a STATIC subscription's " +
      `installment amount: the installments an open-ended subscription adds later come with it. ${LOCATOR_NOTE}`,
    tags: v1Tags,
    security: 'apiToken',
    errors: ['SUBSCRIPTION_NOT_FOUND', 'MULTIPLE_SUBSCRIPTIONS_MATCH'],
    requestBody: { schema: modifyAllRequest, example: { customIdentifier: '4567890', newAmount: 170000 } },
    responses: {
      200: {
        description: 'The installments modified',
        schema: changedInstallmentsResponse,
        example: { installments: changedBy('all').map(v1Installment) },
      },
    },
  }),
  modifyPaymentDay: defineOperation({
    method: 'put',
    path: '/api/subscriptions/modify-dates',
    operationId: 'modifyPaymentDay',
    summary: 'Modify the debit day of pending installments',
    description:
      'Moves each pending installment (from the 2nd on) to `dayOfMonth` (1 to 28) of its own month, and makes ' +
      "it the STATIC subscription's debit day: the installments an open-ended subscription adds later fall on " +
      `it. A day already past in the current month makes that installment due at once. ${LOCATOR_NOTE}`,
    tags: v1Tags,
    security: 'apiToken',
    errors: ['SUBSCRIPTION_NOT_FOUND', 'MULTIPLE_SUBSCRIPTIONS_MATCH'],
    requestBody: { schema: modifyDatesRequest, example: { customIdentifier: '4567890', dayOfMonth: 10 } },
    responses: {
      200: {
        description: 'The installments moved',
        schema: changedInstallmentsResponse,
        example: { installments: changedBy('dates').map(v1Installment) },
      },
    },
  }),
  cancelInstallmentsByAmount: defineOperation({
    method: 'post',
    path: '/api/subscriptions/cancel-by-amount',
    operationId: 'cancelInstallmentsByAmount',
    summary: 'Cancel installments by amount',
    description:
      'Cancels the pending installments (from the 2nd on) of that amount, earliest first: `quantity` of them, ' +
      'all when absent. More than there are is refused (409 NOT_ENOUGH_PENDING_INSTALLMENTS), none is 409 ' +
      'NO_MATCHING_PENDING_INSTALLMENTS. A STATIC subscription left with nothing to collect becomes completed; ' +
      'an open-ended one goes on (the next 12 months are added on its terms): cancel-all ends it. ' +
      LOCATOR_NOTE,
    tags: v1Tags,
    security: 'apiToken',
    errors: [
      'SUBSCRIPTION_NOT_FOUND',
      'MULTIPLE_SUBSCRIPTIONS_MATCH',
      'NO_MATCHING_PENDING_INSTALLMENTS',
      'NOT_ENOUGH_PENDING_INSTALLMENTS',
    ],
    requestBody: {
      schema: cancelByAmountRequest,
      example: { payRequestId: STORY_LINKS.course, amount: COURSE.amount, quantity: 1 },
    },
    responses: {
      200: {
        description: 'The installments cancelled',
        schema: changedInstallmentsResponse,
        example: {
          installments: [
            v1Installment({ ...(courseInstallments[2] as StoryInstallment), status: 'cancelled' }),
          ],
        },
      },
    },
  }),
  cancelInstallmentByInvoice: defineOperation({
    method: 'post',
    path: '/api/subscriptions/cancel-by-invoice',
    operationId: 'cancelInstallmentByInvoice',
    summary: 'Cancel an installment by invoice (DYNAMIC only)',
    description:
      'Cancels the pending installment carrying that invoice number; STATIC subscriptions answer 422, an ' +
      `invoice number the subscription does not have 404 INSTALLMENT_NOT_FOUND. ${LOCATOR_NOTE}`,
    tags: v1Tags,
    security: 'apiToken',
    errors: [
      'SUBSCRIPTION_NOT_FOUND',
      'MULTIPLE_SUBSCRIPTIONS_MATCH',
      'INSTALLMENT_NOT_FOUND',
      'INSTALLMENT_NOT_PENDING',
      'SUBSCRIPTION_NOT_DYNAMIC',
    ],
    requestBody: {
      schema: cancelByInvoiceRequest,
      example: {
        customIdentifier: SOFTWARE.customIdentifier,
        invoiceNumber: SOFTWARE.invoices[1].invoiceNumber,
      },
    },
    responses: {
      200: {
        description: 'The installment cancelled',
        schema: changedInstallmentsResponse,
        example: { installments: [v1Installment({ ...SOFTWARE.invoices[1], status: 'cancelled' })] },
      },
    },
  }),
  cancelSubscription: defineOperation({
    method: 'post',
    path: '/api/subscriptions/cancel-all',
    operationId: 'cancelSubscription',
    summary: 'Cancel the entire subscription',
    description:
      'The subscription becomes cancelled with every pending installment (installment 1 too while the link ' +
      'is unpaid: the link is then cancelled too, `statusId` 7, and can no longer be paid, as with the ' +
      "example story's course, whose link was never paid). An installment whose charge is in progress is " +
      'left to finish. This is how an open-ended subscription ends: nothing is added to it after. ' +
      `${LOCATOR_NOTE}`,
    tags: v1Tags,
    security: 'apiToken',
    errors: ['SUBSCRIPTION_NOT_FOUND', 'MULTIPLE_SUBSCRIPTIONS_MATCH'],
    requestBody: {
      schema: cancelAllRequest,
      example: { payRequestId: STORY_LINKS.course },
    },
    responses: {
      200: {
        description: 'The installments cancelled with the subscription',
        schema: changedInstallmentsResponse,
        example: {
          installments: [
            v1Installment({ ...(courseInstallments[0] as StoryInstallment), status: 'cancelled' }),
            v1Installment({
              ...(courseInstallments[1] as StoryInstallment),
              amount: 55000,
              status: 'cancelled',
            }),
          ],
        },
      },
    },
  }),
};

/** In document order: the order the example story follows. */
export const subscriptionOperations: ApiOperation[] = Object.values(subscriptionApi) as ApiOperation[];
