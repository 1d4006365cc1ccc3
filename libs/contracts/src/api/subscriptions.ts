import { z } from 'zod';
import { INSTALLMENT_STATUSES } from '../events';
import { BULK_LIMITS, dayOfMonthSchema, moneyString } from '../rules';
import type { ApiOperation } from './operation';
import { calendarDate, MAX_LENGTH, text } from '../text';
import { amountInput } from './payment-links';

export { calendarDate };

/**
 * The v1 (identifier-based, camelCase) and v2 (by installment, snake_case) installment endpoints, spec 4.3
 * and 4.4. The service validates with these very schemas, so the OpenAPI document cannot drift.
 */

export { BULK_LIMITS };

const dayOfMonth = dayOfMonthSchema;

// ---------------------------------------------------------------------------------------------------
// v1: identifiers in the body, camelCase.

const identifierText = text(MAX_LENGTH.customIdentifier);
const customIdentifier = identifierText.min(1, 'is required');
/** Optional; an empty string counts as absent, as it does when links store it. */
const customIdentifier2 = identifierText.nullish();
const invoiceNumber = text(MAX_LENGTH.invoiceNumber).min(1);

export const cancelByAmountRequest = z.object({
  customIdentifier,
  customIdentifier2,
  amount: amountInput,
  /** How many to cancel, earliest first; all of that amount when absent. */
  quantity: z.number().int().min(1).optional(),
});

export const cancelByInvoiceRequest = z.object({
  customIdentifier,
  customIdentifier2,
  invoiceNumber,
});

export const cancelAllRequest = z.object({ customIdentifier, customIdentifier2 });

export const modifyByAmountRequest = z.object({
  customIdentifier,
  customIdentifier2,
  amount: amountInput,
  newAmount: amountInput,
});

export const modifyAllRequest = z.object({ customIdentifier, customIdentifier2, newAmount: amountInput });

export const modifyDatesRequest = z.object({ customIdentifier, customIdentifier2, dayOfMonth });

const installmentV1 = z.object({
  installmentId: z.number().int(),
  paymentDate: z.string(),
  amount: moneyString.describe('two-decimal string'),
  status: z.enum(INSTALLMENT_STATUSES),
});

/** Every v1 operation answers with the installments it changed. */
export const changedInstallmentsResponse = z.object({ installments: z.array(installmentV1) });

// ---------------------------------------------------------------------------------------------------
// v2: installments by id, snake_case as the spec's bulk endpoint.

export const listInstallmentsQuery = z.object({
  custom_identifier: customIdentifier,
  custom_identifier2: identifierText.optional(),
});

export const installmentIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

export const modifyInstallmentRequest = z
  .object({ amount: amountInput.optional(), payment_date: calendarDate.optional() })
  .refine((body) => body.amount !== undefined || body.payment_date !== undefined, {
    message: 'amount or payment_date is required',
  });

export const addInstallmentsRequest = z
  .object({
    custom_identifier: customIdentifier,
    custom_identifier2: customIdentifier2,
    installments: z
      .array(
        z.object({
          payment_date: calendarDate,
          amount: amountInput,
          /** Required for DYNAMIC subscriptions, unique within the subscription. */
          invoice_number: invoiceNumber.nullish(),
        }),
      )
      .min(1)
      .max(BULK_LIMITS.updatesPerSubscription),
  })
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
        custom_identifier: identifierText.nullish(),
        custom_identifier2: customIdentifier2,
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
// Documentation.

const problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  code: z.string(),
  detail: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })),
  requestId: z.string(),
  instance: z.string(),
});

function problemResponse(status: number, code: string, description: string, detail: string, path?: string) {
  return {
    description,
    schema: problem,
    example: {
      type: `about:blank#${code}`,
      title: description,
      status,
      code,
      detail,
      errors: path ? [{ path, message: detail }] : [],
      requestId: '4f1c2a9e-8c1d-4a55-9f0e-2b7d1c3e5a10',
      instance: '/api/subscriptions/…',
    },
  };
}

const unauthorized = problemResponse(
  401,
  'UNAUTHORIZED',
  'Api-Token missing or invalid',
  'Api-Token header missing or invalid',
);
const badRequest = (path: string) =>
  problemResponse(
    400,
    'VALIDATION_ERROR',
    'Bad Request: malformed JSON or an invalid field',
    'Request body is invalid',
    path,
  );
const notFound = problemResponse(
  404,
  'SUBSCRIPTION_NOT_FOUND',
  "No pending or active subscription of the merchant matches (another merchant's is not found either)",
  'No pending or active subscription matches the identifiers',
);
const ambiguous = problemResponse(
  409,
  'MULTIPLE_SUBSCRIPTIONS_MATCH',
  'More than one subscription matches; give the second identifier. Also 409 for state conflicts: ' +
    'INSTALLMENT_NOT_PENDING, FIRST_INSTALLMENT_SETTLED_BY_LINK, NO_MATCHING_PENDING_INSTALLMENTS, ' +
    'NOT_ENOUGH_PENDING_INSTALLMENTS, SUBSCRIPTION_NOT_ACTIVE, INVOICE_NUMBER_TAKEN, CONCURRENT_MODIFICATION',
  '2 subscriptions match the identifiers; give customIdentifier2 to choose one',
);
const installmentNotFound = problemResponse(
  404,
  'INSTALLMENT_NOT_FOUND',
  "No installment with this id belongs to the merchant (another merchant's is not found)",
  'Installment 9001 not found',
);
const notPending = problemResponse(
  409,
  'INSTALLMENT_NOT_PENDING',
  'The installment is not pending (or is installment 1, settled by the link payment: FIRST_INSTALLMENT_SETTLED_BY_LINK)',
  'Installment 1202 is paid; only pending installments can be changed or cancelled',
);

const v1Installments = {
  installments: [
    { installmentId: 1202, paymentDate: '2026-03-10', amount: '150000.00', status: 'cancelled' },
    { installmentId: 1203, paymentDate: '2026-04-10', amount: '150000.00', status: 'cancelled' },
  ],
};

const v1Ok = (description: string, example: unknown = v1Installments) => ({
  description,
  schema: changedInstallmentsResponse,
  example,
});

const v1Tags = ['Subscriptions (v1)'];
const v2Tags = ['Installments (v2)'];

export const subscriptionOperations: ApiOperation[] = [
  {
    method: 'post',
    path: '/api/subscriptions/cancel-by-amount',
    operationId: 'cancelInstallmentsByAmount',
    summary: 'Cancel installments by amount',
    description:
      'Cancels the pending installments (from the 2nd on) of that amount, earliest first: `quantity` of them, ' +
      'all when absent. More than there are is refused (409 NOT_ENOUGH_PENDING_INSTALLMENTS), none is 409 ' +
      'NO_MATCHING_PENDING_INSTALLMENTS. The subscription is found by `customIdentifier` and, when given, ' +
      '`customIdentifier2` among the pending and active ones. A STATIC subscription left with nothing to ' +
      'collect becomes completed.',
    tags: v1Tags,
    security: 'apiToken',
    requestBody: {
      schema: cancelByAmountRequest,
      example: {
        customIdentifier: 'CI-4567890',
        customIdentifier2: 'CONTRACT-12',
        amount: 150000,
        quantity: 2,
      },
    },
    responses: {
      200: v1Ok('The installments cancelled'),
      400: badRequest('amount'),
      401: unauthorized,
      404: notFound,
      409: ambiguous,
    },
  },
  {
    method: 'post',
    path: '/api/subscriptions/cancel-by-invoice',
    operationId: 'cancelInstallmentByInvoice',
    summary: 'Cancel an installment by invoice (DYNAMIC only)',
    description:
      'Cancels the pending installment carrying that invoice number. STATIC subscriptions answer 422.',
    tags: v1Tags,
    security: 'apiToken',
    requestBody: {
      schema: cancelByInvoiceRequest,
      example: { customIdentifier: 'CI-4567890', invoiceNumber: 'F-001-0004521' },
    },
    responses: {
      200: v1Ok('The installment cancelled', {
        installments: [
          { installmentId: 1310, paymentDate: '2026-03-15', amount: '87500.00', status: 'cancelled' },
        ],
      }),
      400: badRequest('invoiceNumber'),
      401: unauthorized,
      404: problemResponse(
        404,
        'INSTALLMENT_NOT_FOUND',
        'No subscription (SUBSCRIPTION_NOT_FOUND) or no installment with that invoice number',
        'No installment has the invoice number F-001-0004521',
        'invoiceNumber',
      ),
      409: notPending,
      422: problemResponse(
        422,
        'SUBSCRIPTION_NOT_DYNAMIC',
        'The subscription is STATIC',
        'Cancelling by invoice applies to DYNAMIC subscriptions only',
        'invoiceNumber',
      ),
    },
  },
  {
    method: 'post',
    path: '/api/subscriptions/cancel-all',
    operationId: 'cancelSubscription',
    summary: 'Cancel the entire subscription',
    description:
      'The subscription becomes cancelled with every pending installment (installment 1 too while the link ' +
      'is unpaid). An installment whose charge is in progress is left to finish.',
    tags: v1Tags,
    security: 'apiToken',
    requestBody: {
      schema: cancelAllRequest,
      example: { customIdentifier: 'CI-4567890', customIdentifier2: 'CONTRACT-12' },
    },
    responses: {
      200: v1Ok('The installments cancelled with the subscription'),
      400: badRequest('customIdentifier'),
      401: unauthorized,
      404: notFound,
      409: ambiguous,
    },
  },
  {
    method: 'put',
    path: '/api/subscriptions/modify-by-amount',
    operationId: 'modifyInstallmentsByAmount',
    summary: 'Modify installments by amount',
    description: 'Every pending installment (from the 2nd on) of `amount` gets `newAmount`.',
    tags: v1Tags,
    security: 'apiToken',
    requestBody: {
      schema: modifyByAmountRequest,
      example: { customIdentifier: 'CI-4567890', amount: 150000, newAmount: '165000.00' },
    },
    responses: {
      200: v1Ok('The installments modified', {
        installments: [
          { installmentId: 1202, paymentDate: '2026-03-10', amount: '165000.00', status: 'pending' },
          { installmentId: 1203, paymentDate: '2026-04-10', amount: '165000.00', status: 'pending' },
        ],
      }),
      400: badRequest('newAmount'),
      401: unauthorized,
      404: notFound,
      409: ambiguous,
    },
  },
  {
    method: 'put',
    path: '/api/subscriptions/modify-all',
    operationId: 'modifyAllInstallments',
    summary: 'Modify the amount of all pending installments',
    description: 'Every pending installment from the 2nd on gets `newAmount`.',
    tags: v1Tags,
    security: 'apiToken',
    requestBody: { schema: modifyAllRequest, example: { customIdentifier: 'CI-4567890', newAmount: 170000 } },
    responses: {
      200: v1Ok('The installments modified', {
        installments: [
          { installmentId: 1202, paymentDate: '2026-03-10', amount: '170000.00', status: 'pending' },
        ],
      }),
      400: badRequest('newAmount'),
      401: unauthorized,
      404: notFound,
      409: ambiguous,
    },
  },
  {
    method: 'put',
    path: '/api/subscriptions/modify-dates',
    operationId: 'modifyPaymentDay',
    summary: 'Modify the debit day of pending installments',
    description:
      'Moves each pending installment (from the 2nd on) to `dayOfMonth` (1 to 28) of its own month. A day ' +
      'already past in the current month makes that installment due at once.',
    tags: v1Tags,
    security: 'apiToken',
    requestBody: { schema: modifyDatesRequest, example: { customIdentifier: 'CI-4567890', dayOfMonth: 5 } },
    responses: {
      200: v1Ok('The installments moved', {
        installments: [
          { installmentId: 1202, paymentDate: '2026-03-05', amount: '150000.00', status: 'pending' },
        ],
      }),
      400: badRequest('dayOfMonth'),
      401: unauthorized,
      404: notFound,
      409: ambiguous,
    },
  },
  {
    method: 'get',
    path: '/api/subscriptions/installments',
    operationId: 'listPendingInstallments',
    summary: 'List pending installments of a subscription',
    description: 'The pending installments, earliest first. `amount` is a number with two decimals.',
    tags: v2Tags,
    security: 'apiToken',
    query: listInstallmentsQuery,
    responses: {
      200: {
        description: 'The pending installments',
        schema: installmentsResponse,
        example: {
          installments: [
            {
              installment_id: 1202,
              payment_date: '2026-03-10',
              amount: 150000.0,
              status: 'pending',
              number: 2,
            },
            {
              installment_id: 1310,
              payment_date: '2026-03-15',
              amount: 87500.5,
              status: 'pending',
              number: 3,
              invoice_number: 'F-001-0004521',
            },
          ],
        },
      },
      400: badRequest('custom_identifier'),
      401: unauthorized,
      404: notFound,
      409: ambiguous,
    },
  },
  {
    method: 'patch',
    path: '/api/subscriptions/installments/bulk',
    operationId: 'bulkModifyInstallments',
    summary: 'Bulk modification of installments',
    description:
      'Spec 4.3. At most 200 operations and 60 updates per operation (413 beyond, before the items are ' +
      'validated); malformed JSON or an invalid item is 400. Otherwise 200 with the outcome per subscription: ' +
      'a result is `failed` only with a subscription-level `error` (IDENTIFIER_REQUIRED, SUBSCRIPTION_NOT_FOUND, ' +
      'MULTIPLE_SUBSCRIPTIONS_MATCH; its updates then count as failed); a found subscription is `success` and ' +
      'each update has its own status. Per-update errors: INSTALLMENT_NOT_FOUND (no pending installment on ' +
      'that date), INSTALLMENT_NOT_PENDING, DUPLICATE_PAYMENT_DATE (several pending installments on that ' +
      'date), DUPLICATE_DATE_IN_REQUEST (the request names the date twice for the subscription).',
    tags: v2Tags,
    security: 'apiToken',
    requestBody: {
      schema: bulkModifyInstallmentsRequest,
      example: {
        operations: [
          {
            custom_identifier: 'CI-4567890',
            custom_identifier2: 'CONTRACT-12',
            updates: [
              { payment_date: '2026-03-10', amount: 160000.0 },
              { payment_date: '2026-04-10', amount: 160000.0 },
            ],
          },
          { custom_identifier: 'CI-0000000', updates: [{ payment_date: '2026-03-10', amount: 99000.5 }] },
        ],
      },
    },
    responses: {
      200: {
        description: 'Processed, even when partly unsuccessful',
        schema: bulkModifyInstallmentsResponse,
        example: {
          summary: {
            subscriptions_received: 2,
            subscriptions_processed: 1,
            updates_applied: 1,
            updates_failed: 2,
          },
          results: [
            {
              custom_identifier: 'CI-4567890',
              custom_identifier2: 'CONTRACT-12',
              status: 'success',
              updates: [
                {
                  payment_date: '2026-03-10',
                  status: 'updated',
                  installment_id: 1202,
                  updated_fields: { amount: 160000.0 },
                },
                {
                  payment_date: '2026-04-10',
                  status: 'failed',
                  error: {
                    code: 'INSTALLMENT_NOT_FOUND',
                    message: 'No pending installment of the subscription has this payment date',
                  },
                },
              ],
            },
            {
              custom_identifier: 'CI-0000000',
              custom_identifier2: null,
              status: 'failed',
              updates: [{ payment_date: '2026-03-10', status: 'failed' }],
              error: {
                code: 'SUBSCRIPTION_NOT_FOUND',
                message: 'No pending or active subscription matches the identifiers',
              },
            },
          ],
        },
      },
      400: badRequest('operations.0.updates.1.amount'),
      401: unauthorized,
      413: problemResponse(
        413,
        'PAYLOAD_TOO_LARGE',
        'More than 200 subscriptions, or more than 60 updates in one subscription',
        'At most 60 updates per subscription',
        'operations.3.updates',
      ),
    },
  },
  {
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
    requestBody: {
      schema: modifyInstallmentRequest,
      example: { amount: 155000.0, payment_date: '2026-03-12' },
    },
    responses: {
      200: {
        description: 'The installment as modified',
        schema: installmentResponse,
        example: {
          installment_id: 1202,
          payment_date: '2026-03-12',
          amount: 155000.0,
          status: 'pending',
          number: 2,
        },
      },
      400: badRequest('payment_date'),
      401: unauthorized,
      404: installmentNotFound,
      409: notPending,
      422: problemResponse(
        422,
        'PAYMENT_DATE_IN_PAST',
        'The date is before today',
        'The payment date 2026-01-02 is before today (2026-01-10)',
        'payment_date',
      ),
    },
  },
  {
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
    responses: {
      200: {
        description: 'The installment, cancelled',
        schema: installmentResponse,
        example: {
          installment_id: 1202,
          payment_date: '2026-03-10',
          amount: 150000.0,
          status: 'cancelled',
          number: 2,
        },
      },
      400: badRequest('id'),
      401: unauthorized,
      404: installmentNotFound,
      409: notPending,
    },
  },
  {
    method: 'post',
    path: '/api/subscriptions/installments',
    operationId: 'addInstallments',
    summary: 'Add installments to an active subscription',
    description:
      'Up to 60 new pending installments, numbered after the last one. DYNAMIC subscriptions need an ' +
      '`invoice_number` per installment (422 INVOICE_NUMBER_REQUIRED), unique within the subscription ' +
      '(409 INVOICE_NUMBER_TAKEN). A subscription whose first payment is not made yet is 409 ' +
      'SUBSCRIPTION_NOT_ACTIVE; a date before today is 422 PAYMENT_DATE_IN_PAST.',
    tags: v2Tags,
    security: 'apiToken',
    requestBody: {
      schema: addInstallmentsRequest,
      example: {
        custom_identifier: 'CI-4567890',
        installments: [
          { payment_date: '2026-03-15', amount: 87500.5, invoice_number: 'F-001-0004521' },
          { payment_date: '2026-04-15', amount: 91200, invoice_number: 'F-001-0004522' },
        ],
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
              payment_date: '2026-03-15',
              amount: 87500.5,
              status: 'pending',
              number: 2,
              invoice_number: 'F-001-0004521',
            },
            {
              installment_id: 1311,
              payment_date: '2026-04-15',
              amount: 91200.0,
              status: 'pending',
              number: 3,
              invoice_number: 'F-001-0004522',
            },
          ],
        },
      },
      400: badRequest('installments.0.payment_date'),
      401: unauthorized,
      404: notFound,
      409: ambiguous,
      422: problemResponse(
        422,
        'INVOICE_NUMBER_REQUIRED',
        'DYNAMIC without invoice_number, or a date in the past (PAYMENT_DATE_IN_PAST)',
        'DYNAMIC subscriptions need an invoice number per installment',
        'installments.0.invoice_number',
      ),
    },
  },
];
