import { z } from 'zod';
import { DECLINE_CATEGORIES, INSTALLMENT_STATUSES, SUBSCRIPTION_STATUSES } from '../events';
import { BULK_LIMITS, dayOfMonthSchema, moneyString } from '../rules';
import { type ApiOperation, defineOperation } from './operation';
import { calendarDate, MAX_LENGTH, text } from '../text';
import { amountInput, identifier2Input, identifierInput, identifierOf } from './payment-links';

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
  installmentAmount: money2.nullable(),
  totalPeriods: z.number().int().nullable(),
  dayOfMonth: z.number().int().nullable(),
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
// Documentation. The examples continue the story of the payment-link examples (demo merchant, created
// on 2026-11-23): link 1045 made subscription 311 (`4567890` / `CONTRACT-2026-117`, 12 installments),
// link 1046 the DYNAMIC subscription 312 (`4567891`), and link 1047, with no identifier, subscription 313.

/** Installments 1201..1212 of subscription 311 as created: the 1st is the link payment. */
const storyInstallments = Array.from({ length: 12 }, (_, index) => {
  const number = index + 1;
  const month = 11 + index; // months since January 2026, zero-based: 11 is December
  const paymentDate =
    number === 1
      ? '2026-11-23'
      : `${2026 + Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}-05`;
  return {
    installmentId: 1200 + number,
    number,
    paymentDate,
    amount: number === 1 ? '200000.00' : '150000.00',
    status: 'pending' as const,
    invoiceNumber: null,
  };
});

const storySubscription = {
  id: 311,
  payRequestId: 1045,
  type: 'STATIC',
  status: 'pending',
  customIdentifier: '4567890',
  customIdentifier2: 'CONTRACT-2026-117',
  currency: 'PYG',
  firstAmount: '200000.00',
  installmentAmount: '150000.00',
  totalPeriods: 12,
  dayOfMonth: 5,
  monthForSecondInstallment: 1,
  createTime: '2026-11-23T09:00:00-03:00',
  activateTime: null,
  endTime: null,
};

const v1Installment = (installmentId: number, paymentDate: string, amount: string, status = 'pending') => ({
  installmentId,
  paymentDate,
  amount,
  status,
});

const v1Tags = ['Subscriptions (v1)'];
const v2Tags = ['Installments (v2)'];
const subscriptionTags = ['Subscriptions'];

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
  getSubscription: defineOperation({
    method: 'get',
    path: '/api/subscriptions/{id}',
    operationId: 'getSubscription',
    summary: 'Retrieve a subscription with its installments',
    description: "Every installment, whatever its status; another merchant's subscription is 404.",
    tags: subscriptionTags,
    security: 'apiToken',
    pathParams: subscriptionIdParams,
    parameterExamples: { default: { id: 311 } },
    errors: ['SUBSCRIPTION_NOT_FOUND'],
    responses: {
      200: {
        description: 'The subscription.',
        schema: subscriptionResponse,
        example: { ...storySubscription, installments: storyInstallments },
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
          installments: storyInstallments.slice(0, 3).map((installment) => ({
            installment_id: installment.installmentId,
            payment_date: installment.paymentDate,
            amount: Number(installment.amount),
            status: 'pending',
            number: installment.number,
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
      'SUBSCRIPTION_NOT_ACTIVE, as in the example story, where no customer has paid yet; a date before ' +
      `today is 422 PAYMENT_DATE_IN_PAST. ${LOCATOR_NOTE_V2}`,
    tags: v2Tags,
    security: 'apiToken',
    errors: [
      'SUBSCRIPTION_NOT_FOUND',
      'MULTIPLE_SUBSCRIPTIONS_MATCH',
      'SUBSCRIPTION_NOT_ACTIVE',
      'INVOICE_NUMBER_TAKEN',
      'INVOICE_NUMBER_REQUIRED',
      'PAYMENT_DATE_IN_PAST',
    ],
    exampleOutcomes: { dynamicInvoices: 'SUBSCRIPTION_NOT_ACTIVE' },
    requestBody: {
      schema: addInstallmentsRequest,
      example: undefined,
      examples: {
        dynamicInvoices: {
          summary: 'Two invoices of the DYNAMIC subscription (409 until its first payment is made)',
          value: {
            custom_identifier: '4567891',
            installments: [
              { payment_date: '2027-01-15', amount: 87500.5, invoice_number: 'F-001-0004521' },
              { payment_date: '2027-02-15', amount: 91200, invoice_number: 'F-001-0004522' },
            ],
          },
        },
      },
    },
    responses: {
      201: {
        description: 'The installments added',
        schema: installmentsResponse,
        example: {
          installments: [
            {
              installment_id: 1310,
              payment_date: '2027-01-15',
              amount: 87500.5,
              status: 'pending',
              number: 2,
              invoice_number: 'F-001-0004521',
            },
            {
              installment_id: 1311,
              payment_date: '2027-02-15',
              amount: 91200.0,
              status: 'pending',
              number: 3,
              invoice_number: 'F-001-0004522',
            },
          ],
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
      'time zone is refused with 422 PAYMENT_DATE_IN_PAST.',
    tags: v2Tags,
    security: 'apiToken',
    pathParams: installmentIdParams,
    parameterExamples: { default: { id: 1203 } },
    errors: [
      'INSTALLMENT_NOT_FOUND',
      'INSTALLMENT_NOT_PENDING',
      'FIRST_INSTALLMENT_SETTLED_BY_LINK',
      'CONCURRENT_MODIFICATION',
      'PAYMENT_DATE_IN_PAST',
    ],
    requestBody: {
      schema: modifyInstallmentRequest,
      example: { amount: 155000.0, payment_date: '2027-01-12' },
    },
    responses: {
      200: {
        description: 'The installment as modified',
        schema: installmentResponse,
        example: {
          installment_id: 1203,
          payment_date: '2027-01-12',
          amount: 155000.0,
          status: 'pending',
          number: 3,
        },
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
    security: 'apiToken',
    pathParams: installmentIdParams,
    parameterExamples: { default: { id: 1204 } },
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
        example: {
          installment_id: 1204,
          payment_date: '2027-02-05',
          amount: 150000.0,
          status: 'cancelled',
          number: 4,
        },
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
    security: 'apiToken',
    pathParams: installmentIdParams,
    parameterExamples: { default: { id: 1203 } },
    errors: ['INSTALLMENT_NOT_FOUND'],
    responses: {
      200: {
        description: 'The attempts',
        schema: chargeAttemptsResponse,
        examples: {
          default: {
            summary: 'Not charged yet',
            value: { installment_id: 1203, status: 'pending', next_attempt_on: null, attempts: [] },
          },
          dunning: {
            summary: 'Declined twice (insufficient funds), a third attempt scheduled',
            value: {
              installment_id: 1203,
              status: 'pending',
              next_attempt_on: '2027-01-17',
              attempts: [
                {
                  attempt: 1,
                  requested_at: '2027-01-12T06:00:04-03:00',
                  amount: 155000.0,
                  currency: 'PYG',
                  processor: 'PARAGUAY.PROCESSOR_A',
                  status: 'failed',
                  settled_at: '2027-01-12T06:00:05-03:00',
                  decline_code: '51',
                  category: 'soft',
                  next_attempt_on: '2027-01-13',
                },
                {
                  attempt: 2,
                  requested_at: '2027-01-13T06:00:03-03:00',
                  amount: 155000.0,
                  currency: 'PYG',
                  processor: 'PARAGUAY.PROCESSOR_A',
                  status: 'failed',
                  settled_at: '2027-01-13T06:00:04-03:00',
                  decline_code: '51',
                  category: 'soft',
                  next_attempt_on: '2027-01-17',
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
    security: 'apiToken',
    errors: ['PAYLOAD_TOO_LARGE'],
    requestBody: {
      schema: bulkModifyInstallmentsRequest,
      example: {
        operations: [
          {
            custom_identifier: '4567890',
            custom_identifier2: 'CONTRACT-2026-117',
            updates: [
              { payment_date: '2027-03-05', amount: 160000.0 },
              { payment_date: '2027-04-05', amount: 160000.0 },
            ],
          },
          { pay_request_id: 1047, updates: [{ payment_date: '2026-12-10', amount: 55000 }] },
          { custom_identifier: '7654321', updates: [{ payment_date: '2026-12-05', amount: 99000.5 }] },
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
                  installment_id: 1205,
                  updated_fields: { amount: 160000.0 },
                },
                {
                  payment_date: '2027-04-05',
                  status: 'updated',
                  installment_id: 1206,
                  updated_fields: { amount: 160000.0 },
                },
              ],
            },
            {
              custom_identifier: null,
              custom_identifier2: null,
              pay_request_id: 1047,
              status: 'success',
              updates: [
                {
                  payment_date: '2026-12-10',
                  status: 'updated',
                  installment_id: 1215,
                  updated_fields: { amount: 55000.0 },
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
    description: `Every pending installment (from the 2nd on) of \`amount\` gets \`newAmount\`. ${LOCATOR_NOTE}`,
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
        example: {
          installments: [
            v1Installment(1202, '2026-12-05', '165000.00'),
            v1Installment(1207, '2027-05-05', '165000.00'),
          ],
        },
      },
    },
  }),
  modifyAllInstallments: defineOperation({
    method: 'put',
    path: '/api/subscriptions/modify-all',
    operationId: 'modifyAllInstallments',
    summary: 'Modify the amount of all pending installments',
    description: `Every pending installment from the 2nd on gets \`newAmount\`. ${LOCATOR_NOTE}`,
    tags: v1Tags,
    security: 'apiToken',
    errors: ['SUBSCRIPTION_NOT_FOUND', 'MULTIPLE_SUBSCRIPTIONS_MATCH'],
    requestBody: { schema: modifyAllRequest, example: { customIdentifier: '4567890', newAmount: 170000 } },
    responses: {
      200: {
        description: 'The installments modified',
        schema: changedInstallmentsResponse,
        example: {
          installments: [
            v1Installment(1202, '2026-12-05', '170000.00'),
            v1Installment(1203, '2027-01-12', '170000.00'),
          ],
        },
      },
    },
  }),
  modifyPaymentDay: defineOperation({
    method: 'put',
    path: '/api/subscriptions/modify-dates',
    operationId: 'modifyPaymentDay',
    summary: 'Modify the debit day of pending installments',
    description:
      'Moves each pending installment (from the 2nd on) to `dayOfMonth` (1 to 28) of its own month. A day ' +
      `already past in the current month makes that installment due at once. ${LOCATOR_NOTE}`,
    tags: v1Tags,
    security: 'apiToken',
    errors: ['SUBSCRIPTION_NOT_FOUND', 'MULTIPLE_SUBSCRIPTIONS_MATCH'],
    requestBody: { schema: modifyDatesRequest, example: { customIdentifier: '4567890', dayOfMonth: 10 } },
    responses: {
      200: {
        description: 'The installments moved',
        schema: changedInstallmentsResponse,
        example: {
          installments: [
            v1Installment(1202, '2026-12-10', '170000.00'),
            v1Installment(1203, '2027-01-10', '170000.00'),
          ],
        },
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
      'NO_MATCHING_PENDING_INSTALLMENTS. A STATIC subscription left with nothing to collect becomes completed. ' +
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
      example: { payRequestId: 1047, amount: 50000, quantity: 1 },
    },
    responses: {
      200: {
        description: 'The installments cancelled',
        schema: changedInstallmentsResponse,
        example: { installments: [v1Installment(1216, '2027-01-10', '50000.00', 'cancelled')] },
      },
    },
  }),
  cancelInstallmentByInvoice: defineOperation({
    method: 'post',
    path: '/api/subscriptions/cancel-by-invoice',
    operationId: 'cancelInstallmentByInvoice',
    summary: 'Cancel an installment by invoice (DYNAMIC only)',
    description:
      'Cancels the pending installment carrying that invoice number; STATIC subscriptions answer 422. In the ' +
      'example story the invoice was never added (the subscription is not active yet), so it is 404 ' +
      `INSTALLMENT_NOT_FOUND. ${LOCATOR_NOTE}`,
    tags: v1Tags,
    security: 'apiToken',
    errors: [
      'SUBSCRIPTION_NOT_FOUND',
      'MULTIPLE_SUBSCRIPTIONS_MATCH',
      'INSTALLMENT_NOT_FOUND',
      'INSTALLMENT_NOT_PENDING',
      'SUBSCRIPTION_NOT_DYNAMIC',
    ],
    exampleOutcomes: { invoice: 'INSTALLMENT_NOT_FOUND' },
    requestBody: {
      schema: cancelByInvoiceRequest,
      example: undefined,
      examples: {
        invoice: {
          summary: 'The invoice F-001-0004521 of the DYNAMIC subscription',
          value: { customIdentifier: '4567891', invoiceNumber: 'F-001-0004521' },
        },
      },
    },
    responses: {
      200: {
        description: 'The installment cancelled',
        schema: changedInstallmentsResponse,
        example: { installments: [v1Installment(1310, '2027-01-15', '87500.50', 'cancelled')] },
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
      'is unpaid: the link is then cancelled too, `statusId` 7, and can no longer be paid). An installment ' +
      `whose charge is in progress is left to finish. ${LOCATOR_NOTE}`,
    tags: v1Tags,
    security: 'apiToken',
    errors: ['SUBSCRIPTION_NOT_FOUND', 'MULTIPLE_SUBSCRIPTIONS_MATCH'],
    requestBody: {
      schema: cancelAllRequest,
      example: { customIdentifier: '4567890', customIdentifier2: 'CONTRACT-2026-117' },
    },
    responses: {
      200: {
        description: 'The installments cancelled with the subscription',
        schema: changedInstallmentsResponse,
        example: {
          installments: [
            v1Installment(1201, '2026-11-23', '200000.00', 'cancelled'),
            v1Installment(1202, '2026-12-10', '170000.00', 'cancelled'),
          ],
        },
      },
    },
  }),
};

/** In document order: the order the example story follows. */
export const subscriptionOperations: ApiOperation[] = Object.values(subscriptionApi) as ApiOperation[];
