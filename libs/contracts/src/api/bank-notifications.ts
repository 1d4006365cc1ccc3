import { z } from 'zod';
import { CURRENCIES } from '../merchant-context';
import { moneyString } from '../rules';
import { type ApiOperation, defineOperation } from './operation';
import { amountInput } from './payment-links';
import { calendarDate, MAX_LENGTH, text } from '../text';
import { MEMBERSHIP, membershipInstallments, money, SOFTWARE, STORY_DAY, STORY_LINKS } from './story';

/**
 * `POST /api/bank-notification/add` (spec 4.4 gives method and path only; the shape is ours, in the spec's
 * v1 camelCase style). A merchant tells us about a transfer made outside the service; it settles one target:
 * a payment link, or an installment by id, or an installment by the subscription's identifiers and its date.
 */

const MAX_LINK_ID = Number.MAX_SAFE_INTEGER;
const MAX_INSTALLMENT_ID = 2_147_483_647;

/** Ids arrive as JSON numbers, and from some clients as digit strings. */
const idInput = (max: number) =>
  z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d{1,16}$/, 'must be a positive integer')
        .transform(Number),
    ])
    .pipe(z.number().int('must be a positive integer').positive('must be a positive integer').max(max));

/** Merchant identifiers are text, but clients send digits, sometimes as a JSON number. */
const identifierInput = (max: number) =>
  z.union([text(max).trim(), z.number().int().transform(String)]).nullish();

const TARGET_HINT = 'give exactly one of payRequestId, installmentId, or customIdentifier with paymentDate';

export const bankNotificationRequest = z
  .object({
    payRequestId: idInput(MAX_LINK_ID)
      .nullish()
      .meta({ description: 'The payment link (`id` of `POST /api/saleitems/add`) the transfer pays.' }),
    installmentId: idInput(MAX_INSTALLMENT_ID)
      .nullish()
      .meta({ description: 'The installment (`installment_id` of the v2 endpoints) the transfer pays.' }),
    customIdentifier: identifierInput(MAX_LENGTH.customIdentifier).meta({
      description:
        'With `paymentDate` (and `customIdentifier2` when needed): the installment by its subscription.',
    }),
    customIdentifier2: identifierInput(MAX_LENGTH.customIdentifier2),
    paymentDate: calendarDate
      .nullish()
      .meta({ description: 'The date of the installment, `yyyy-MM-dd` (with the identifiers).' }),
    amount: amountInput.meta({
      description: 'Transferred amount: must be exactly what the target is due (else 422).',
    }),
    currency: z
      .enum(CURRENCIES)
      .nullish()
      .meta({ description: "Optional; when given it must be the target's currency (else 422)." }),
    bankName: text(MAX_LENGTH.bankName).trim().min(1, 'is required'),
    reference: text(MAX_LENGTH.bankReference)
      .trim()
      .min(1, 'is required')
      .meta({
        description:
          "The bank's reference of the transfer. One transfer per merchant and reference: sending the same " +
          'notification again answers the first result.',
      }),
    transferDate: calendarDate.meta({
      description:
        "The day the transfer was made, `yyyy-MM-dd`; not after today in the merchant's time zone.",
    }),
    note: text(MAX_LENGTH.transferNote).trim().nullish(),
  })
  // Runs even when a field is invalid, so that a client sees every problem of its request at once.
  .superRefine(
    (body, ctx) => {
      const byIdentifiers =
        Boolean(body.customIdentifier) || Boolean(body.customIdentifier2) || Boolean(body.paymentDate);
      const given = [
        body.payRequestId != null ? 'payRequestId' : undefined,
        body.installmentId != null ? 'installmentId' : undefined,
        byIdentifiers ? 'customIdentifier' : undefined,
      ].filter((field): field is string => field !== undefined);
      if (given.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['payRequestId'], message: `is required: ${TARGET_HINT}` });
        return;
      }
      if (given.length > 1) {
        for (const field of given.slice(1)) {
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: `not allowed with ${given[0]}: ${TARGET_HINT}`,
          });
        }
        return;
      }
      if (byIdentifiers) {
        if (!body.customIdentifier && !body.customIdentifier2) {
          ctx.addIssue({
            code: 'custom',
            path: ['customIdentifier'],
            message: 'is required with paymentDate',
          });
        }
        if (!body.paymentDate) {
          ctx.addIssue({
            code: 'custom',
            path: ['paymentDate'],
            message: 'is required with customIdentifier',
          });
        }
      }
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );

export type BankNotificationRequest = z.infer<typeof bankNotificationRequest>;

/** Amounts we answer with are positive two-decimal strings. */
const moneyOut = moneyString;

export const bankTransferTarget = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('PAY_REQUEST'),
    payRequestId: z.number().int(),
    statusId: z.number().int().meta({ description: '200: the link is paid.' }),
  }),
  z.object({
    type: z.literal('INSTALLMENT'),
    installmentId: z.number().int(),
    paymentDate: z.string(),
    status: z.literal('paid'),
    customIdentifier: z.string().nullable(),
    customIdentifier2: z.string().nullable(),
  }),
]);

export const bankNotificationResponse = z.object({
  id: z.number().int().meta({ description: 'The registered transfer.' }),
  reference: z.string(),
  bankName: z.string(),
  amount: moneyOut,
  currency: z.enum(CURRENCIES),
  transferDate: z.string(),
  note: z.string().nullable(),
  status: z.literal('SETTLED'),
  target: bankTransferTarget,
  registeredAt: z.string().meta({ description: 'ISO 8601.' }),
});

export type BankNotificationResponse = z.infer<typeof bankNotificationResponse>;

// ---------------------------------------------------------------------------------------------------
// Internal: processor-gateway asks the owner of the target to settle it (internal HTTP, signed merchant
// context). The owner is idempotent by (merchant, reference): asked again, it answers what it did first.

export const INTERNAL_SETTLE_PATH = '/internal/bank-transfers/settle';

const settleCommon = {
  reference: z.string().min(1),
  amount: moneyOut,
  currency: z.enum(CURRENCIES).nullable(),
  /**
   * processor-gateway's id of the transfer (a UUID), the same each time it asks for one transfer: the owner
   * announces the payment with it as `txId`, the id the transfer's `bank-transfer.registered` carries.
   */
  txId: z.uuid(),
  /** The transfer as notified, for the payment's announcement. */
  bankName: z.string(),
  transferDate: z.string(),
  note: z.string().nullable(),
};

export const settleLinkByTransferRequest = z.object({ ...settleCommon, payRequestId: z.number().int() });
export type SettleLinkByTransferRequest = z.infer<typeof settleLinkByTransferRequest>;

export const settleLinkByTransferResponse = z.object({
  payRequestId: z.number().int(),
  statusId: z.number().int(),
  amount: moneyOut,
  currency: z.enum(CURRENCIES),
  paidAt: z.string(),
});
export type SettleLinkByTransferResponse = z.infer<typeof settleLinkByTransferResponse>;

export const settleInstallmentByTransferRequest = z.object({
  ...settleCommon,
  installmentId: z.number().int().nullable(),
  customIdentifier: z.string().nullable(),
  customIdentifier2: z.string().nullable(),
  paymentDate: z.string().nullable(),
});
export type SettleInstallmentByTransferRequest = z.infer<typeof settleInstallmentByTransferRequest>;

export const settleInstallmentByTransferResponse = z.object({
  installmentId: z.number().int(),
  subscriptionId: z.number().int(),
  paymentDate: z.string(),
  amount: moneyOut,
  currency: z.enum(CURRENCIES),
  status: z.literal('paid'),
  paidAt: z.string(),
  customIdentifier: z.string().nullable(),
  customIdentifier2: z.string().nullable(),
});
export type SettleInstallmentByTransferResponse = z.infer<typeof settleInstallmentByTransferResponse>;

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

function problemExample(status: number, code: string, title: string, detail: string, path?: string) {
  return {
    type: `about:blank#${code}`,
    title,
    status,
    code,
    detail,
    errors: path ? [{ path, message: detail }] : [],
    requestId: '0b8f3c1e-4a2d-4e77-9c61-5d2f8e1a7b90',
    instance: '/api/bank-notification/add',
  };
}

// The examples continue the story (`./story.ts`): the bank transfers pay link 1, the DYNAMIC
// subscription's first invoice (installment 17) and the membership's installment 2, all made on the day.

const linkExample = {
  payRequestId: STORY_LINKS.oneOff,
  amount: 150000,
  currency: 'PYG',
  bankName: 'Banco Nacional de Fomento',
  reference: 'TRF-2026-11-000123',
  transferDate: STORY_DAY,
  note: 'Paid at the branch',
};

const firstInvoice = SOFTWARE.invoices[0];
const installmentByIdExample = {
  installmentId: firstInvoice.installmentId,
  amount: money(firstInvoice.amount),
  bankName: 'Banco Continental',
  reference: '000981237',
  transferDate: STORY_DAY,
};

const secondInstallment = membershipInstallments('transfer')[1] as { paymentDate: string; amount: number };
const byIdentifiersExample = {
  customIdentifier: MEMBERSHIP.customIdentifier,
  customIdentifier2: MEMBERSHIP.customIdentifier2,
  paymentDate: secondInstallment.paymentDate,
  amount: secondInstallment.amount,
  bankName: 'Banco Itaú',
  reference: 'ITAU-77120045',
  transferDate: STORY_DAY,
};

const registered = (id: number, request: { reference: string; bankName: string; transferDate: string }) => ({
  id,
  reference: request.reference,
  bankName: request.bankName,
  currency: 'PYG',
  transferDate: request.transferDate,
  status: 'SETTLED',
  registeredAt: '2026-11-23T15:04:05.000Z',
});

const DESCRIPTION = [
  'Registers a transfer made outside the service and settles what it names, in the same request:',
  '',
  '- a pending payment link (`payRequestId`): it becomes paid (`statusId` 200) as if paid by card, and a',
  '  recurrent link activates its subscription (installment 1 paid);',
  '- a pending installment (`installmentId`, or `customIdentifier` / `customIdentifier2` with its',
  '  `paymentDate`): it becomes paid and is never charged.',
  '',
  'Give exactly one target. `amount` must be exactly what the target is due (the link amount, or the',
  "installment amount), else 422 `AMOUNT_MISMATCH`; `currency`, when given, must be the target's.",
  '',
  '**One transfer per merchant and bank `reference`.** The same reference again (a retry, a duplicate, two',
  'at once) answers the first result and pays nothing twice; the same reference with other content is 409',
  '`BANK_REFERENCE_REUSED`. A refused notification (400, 404, 409, 422) registers nothing and changes',
  'nothing: its reference stays free, so a corrected notification can use it. When the owner of the target',
  'cannot be reached the answer is 503 and nothing is settled; send the same notification again.',
  '',
  '409 codes: `PAYMENT_LINK_ALREADY_PAID`, `PAYMENT_LINK_CANCELLED`, `PAYMENT_LINK_EXPIRED`,',
  '`INSTALLMENT_ALREADY_PAID`, `INSTALLMENT_CANCELLED`, `INSTALLMENT_NOT_PENDING` (a charge is in progress,',
  'or it failed), `FIRST_INSTALLMENT_SETTLED_BY_LINK` (pay the link instead), `SUBSCRIPTION_NOT_ACTIVE`,',
  '`MULTIPLE_SUBSCRIPTIONS_MATCH`, `MULTIPLE_INSTALLMENTS_MATCH`, `BANK_REFERENCE_REUSED`.',
  '',
  'The examples settle one target each: a payment link, an installment by id, an installment by its',
  "subscription's identifiers and date.",
].join('\n');

/** processor-gateway's public operation, behind the gateway's `/api/*` (merchant `Api-Token`). */
export const bankNotificationApi = {
  notifyBankTransfer: defineOperation({
    method: 'post',
    path: '/api/bank-notification/add',
    operationId: 'notifyBankTransfer',
    summary: 'Notify a bank transfer made outside the service',
    description: DESCRIPTION,
    tags: ['Bank transfers'],
    security: 'apiToken',
    requestBody: {
      schema: bankNotificationRequest,
      example: linkExample,
      examples: {
        link: { summary: 'A transfer that pays link 1', value: linkExample },
        installmentById: {
          summary: "A transfer that pays installment 17, the DYNAMIC subscription's first invoice",
          value: installmentByIdExample,
        },
        installmentByIdentifiers: {
          summary:
            "A transfer that pays the membership's installment of 2026-12-10, found by identifiers and date",
          value: byIdentifiersExample,
        },
      },
    },
    responses: {
      200: {
        description: 'The transfer is registered and its target settled (or: the first result, again).',
        schema: bankNotificationResponse,
        examples: {
          link: {
            summary: 'Transfer 1: link 1 is paid',
            value: {
              ...registered(1, linkExample),
              amount: money(linkExample.amount),
              note: linkExample.note,
              target: { type: 'PAY_REQUEST', payRequestId: STORY_LINKS.oneOff, statusId: 200 },
            },
          },
          installmentById: {
            summary: 'Transfer 2: installment 17 is paid',
            value: {
              ...registered(2, installmentByIdExample),
              amount: installmentByIdExample.amount,
              note: null,
              target: {
                type: 'INSTALLMENT',
                installmentId: firstInvoice.installmentId,
                paymentDate: firstInvoice.paymentDate,
                status: 'paid',
                customIdentifier: SOFTWARE.customIdentifier,
                customIdentifier2: SOFTWARE.customIdentifier2,
              },
            },
          },
          installmentByIdentifiers: {
            summary: 'Transfer 3: installment 2 is paid',
            value: {
              ...registered(3, byIdentifiersExample),
              amount: money(byIdentifiersExample.amount),
              note: null,
              target: {
                type: 'INSTALLMENT',
                installmentId: 2,
                paymentDate: byIdentifiersExample.paymentDate,
                status: 'paid',
                customIdentifier: MEMBERSHIP.customIdentifier,
                customIdentifier2: MEMBERSHIP.customIdentifier2,
              },
            },
          },
        },
      },
      400: {
        description: 'A field is missing or malformed, or not exactly one target is given.',
        schema: problem,
        example: problemExample(
          400,
          'VALIDATION_ERROR',
          'Bad Request',
          'not allowed with payRequestId: give exactly one of payRequestId, installmentId, or customIdentifier with paymentDate',
          'installmentId',
        ),
      },
      401: {
        description: 'Api-Token missing or invalid.',
        schema: problem,
        example: problemExample(401, 'UNAUTHORIZED', 'Unauthorized', 'Api-Token header missing or invalid'),
      },
      404: {
        description:
          "The target does not exist or is another merchant's: PAYMENT_LINK_NOT_FOUND, INSTALLMENT_NOT_FOUND, SUBSCRIPTION_NOT_FOUND.",
        schema: problem,
        example: problemExample(404, 'PAYMENT_LINK_NOT_FOUND', 'Not Found', 'Payment link 1 not found'),
      },
      409: {
        description:
          'The target is not pending (already paid, cancelled, ...), or the reference was used for another transfer.',
        schema: problem,
        example: problemExample(
          409,
          'PAYMENT_LINK_ALREADY_PAID',
          'Conflict',
          'Payment link 1 is already paid',
        ),
      },
      422: {
        description:
          'The amount (AMOUNT_MISMATCH) or currency (CURRENCY_MISMATCH) is not what the target is due.',
        schema: problem,
        example: problemExample(
          422,
          'AMOUNT_MISMATCH',
          'Unprocessable Content',
          'The transfer is 140000.00; the payment link is due 150000.00',
          'amount',
        ),
      },
      503: {
        description:
          'The target could not be settled now; nothing was settled. Send the same notification again.',
        schema: problem,
        example: problemExample(
          503,
          'SETTLEMENT_UNAVAILABLE',
          'Service Unavailable',
          'The owner of the target did not answer; nothing was settled',
        ),
      },
    },
  }),
};

export const bankNotificationOperations: ApiOperation[] = Object.values(
  bankNotificationApi,
) as ApiOperation[];
