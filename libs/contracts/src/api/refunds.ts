import { z } from 'zod';
import { REFUND_METHODS, REFUND_MODES } from '../events';
import { CURRENCIES, PROCESSORS } from '../merchant-context';
import { moneyString } from '../rules';
import { MAX_LENGTH, text } from '../text';
import { type ApiOperation, defineOperation } from './operation';
import { STORY_PAYMENTS } from './story';
import { offsetDateTime } from './time';

/**
 * Refunds of a money movement (issue 27), answered by processor-gateway behind the gateway's `/api/*`:
 * `POST /api/payments/{id}/refunds` gives money back from a payment, through its processor or recorded as
 * given back outside the service; `GET /api/payments/{id}/refunds/{refundId}` reads one as it stands.
 */

/** The refund's states as the API shows them (an outcome processor-gateway does not know yet is `pending`). */
export const REFUND_STATUSES = ['pending', 'scheduled', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/**
 * A refund's amount as it may arrive: a JSON number or a decimal string. Only its shape is checked here
 * (400): whether it is more than zero, has no more decimals than the payment's currency and fits in what is
 * left to refund depends on the payment, and is the domain's refusal (422 `REFUND_AMOUNT_INVALID` /
 * `REFUND_AMOUNT_EXCEEDS_REFUNDABLE`).
 */
export const refundAmountInput = z
  .union([z.number(), text(MAX_LENGTH.amountText)])
  .refine(
    (value) => DECIMAL_TEXT.test(typeof value === 'number' ? String(value) : value.trim()),
    'must be a decimal number',
  )
  .transform((value) => (typeof value === 'number' ? String(value) : value.trim()))
  .meta({
    description:
      "The amount to give back, a JSON number or a decimal string, in the payment's currency (a PYG amount is " +
      'whole guaraníes). A card refund: absent, or the whole payment (the processors give a card payment back ' +
      'whole). An outside refund: required, at most what is left to refund.',
  });

const OUTSIDE_METHODS = ['BANK_TRANSFER', 'CASH'] as const;

export const refundRequest = z
  .object({
    amount: refundAmountInput.nullish(),
    method: z
      .enum(REFUND_METHODS)
      .nullish()
      .meta({
        description:
          '`CARD` (or absent): through the processor that took the payment. `BANK_TRANSFER` or `CASH`: you ' +
          'gave the money back yourself and record it here; no processor is called.',
      }),
    reference: text(MAX_LENGTH.bankReference)
      .trim()
      .nullish()
      .meta({
        description:
          'An outside refund: your reference of it (the bank transfer, the receipt). Required with ' +
          '`BANK_TRANSFER`; not taken by a card refund.',
      }),
    reason: text(MAX_LENGTH.refundReason)
      .trim()
      .nullish()
      .meta({ description: 'Why the money is given back, for your records and the webhook.' }),
  })
  // Runs even when a field is invalid, so that a client sees every problem of its request at once.
  .superRefine(
    (body, ctx) => {
      const outside = (OUTSIDE_METHODS as readonly string[]).includes(body.method ?? '');
      if (outside && (body.amount === undefined || body.amount === null)) {
        ctx.addIssue({ code: 'custom', path: ['amount'], message: `is required with method ${body.method}` });
      }
      if (body.method === 'BANK_TRANSFER' && !body.reference) {
        ctx.addIssue({
          code: 'custom',
          path: ['reference'],
          message: 'is required with method BANK_TRANSFER',
        });
      }
      if (!outside && body.reference) {
        ctx.addIssue({
          code: 'custom',
          path: ['reference'],
          message: 'is only taken by an outside refund (method BANK_TRANSFER or CASH)',
        });
      }
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );
export type RefundRequest = z.infer<typeof refundRequest>;

export const paymentIdParams = z.object({
  id: z.uuid().meta({
    description:
      "The payment's id: the `txId` of its `PAYMENT_SUCCESS` webhook, the `id` in the payments ledger.",
  }),
});

export const refundIdParams = z.object({
  id: z.uuid().meta({ description: "The payment's id." }),
  refundId: z.uuid().meta({ description: "The refund's `id` (the `txId` of its webhooks)." }),
});

const money = moneyString;

/** A refund as the API answers it. */
export const refundResponse = z.object({
  id: z
    .uuid()
    .meta({ description: "The refund's id: a money movement of its own, the `txId` of its webhooks." }),
  paymentId: z.uuid().meta({ description: 'The payment it gives money back from.' }),
  status: z.enum(REFUND_STATUSES).meta({
    description:
      '`pending`: sent to the processor, its outcome not known yet (the service asks the processor until it ' +
      'is); `scheduled`: PARAGUAY.PROCESSOR_B will reverse it later (a payment of an earlier day), ' +
      '`succeeded` once its status shows it applied; `succeeded`: the money was given back (or recorded as ' +
      'given back outside); `failed`: nothing was given back (`failureCode`, `failureMessage`).',
  }),
  amount: money,
  currency: z.enum(CURRENCIES),
  mode: z.enum(REFUND_MODES).meta({
    description:
      "`rollback` (PARAGUAY.PROCESSOR_A, the payment's day), `reversal` (PARAGUAY.PROCESSOR_B: at once the " +
      'same day, scheduled after) or `outside` (given back by you and recorded).',
  }),
  method: z.enum(REFUND_METHODS),
  processor: z.enum(PROCESSORS).nullable().meta({ description: 'A card refund: the processor; else null.' }),
  reference: z.string().nullable(),
  reason: z.string().nullable(),
  failureCode: z.string().nullable().meta({
    description:
      "A failed refund: `PROCESSOR_UNAVAILABLE` (the processor could not be reached; nothing was given back) or the processor's own code (`TransactionAlreadyConfirmed`, ...)",
  }),
  failureMessage: z.string().nullable(),
  paymentAmount: money.meta({ description: 'What the payment took.' }),
  refundedAmount: money.meta({
    description: "The payment's refunds that succeeded, this one included once it has.",
  }),
  refundableAmount: money.meta({
    description:
      'What is left to refund of the payment: paid minus every refund not failed (in progress included).',
  }),
  createdAt: offsetDateTime,
  scheduledAt: offsetDateTime.nullable(),
  succeededAt: offsetDateTime.nullable(),
  failedAt: offsetDateTime.nullable(),
});
export type RefundResponse = z.infer<typeof refundResponse>;

// ---------------------------------------------------------------------------------------------------
// Examples: the story (`./story.ts`) goes on. The software contract's first payment (link 3, by card on
// PARAGUAY.PROCESSOR_A, the same day) is given back whole; link 1's bank transfer is given back in part, by
// a transfer of the merchant's.

const REFUNDS = {
  card: '0193b2c1-0a1b-7c2d-8e3f-4a5b6c7d8e11',
  outside: '0193b2c1-9f80-7e61-9a42-3b2c1d0e9f12',
} as const;

const cardRequest = { reason: 'Contract not signed in the end' };
const outsideRequest = {
  amount: 50000,
  method: 'BANK_TRANSFER',
  reference: 'DEV-2026-11-0042',
  reason: 'Two classes missed',
};

const cardRefund = {
  id: REFUNDS.card,
  paymentId: STORY_PAYMENTS.softwareCard,
  status: 'succeeded',
  amount: '87500.00',
  currency: 'PYG',
  mode: 'rollback',
  method: 'CARD',
  processor: 'PARAGUAY.PROCESSOR_A',
  reference: null,
  reason: cardRequest.reason,
  failureCode: null,
  failureMessage: null,
  paymentAmount: '87500.00',
  refundedAmount: '87500.00',
  refundableAmount: '0.00',
  createdAt: '2026-11-23T12:20:00-03:00',
  scheduledAt: null,
  succeededAt: '2026-11-23T12:20:01-03:00',
  failedAt: null,
};

const outsideRefund = {
  id: REFUNDS.outside,
  paymentId: STORY_PAYMENTS.oneOffTransfer,
  status: 'succeeded',
  amount: '50000.00',
  currency: 'PYG',
  mode: 'outside',
  method: 'BANK_TRANSFER',
  processor: null,
  reference: outsideRequest.reference,
  reason: outsideRequest.reason,
  failureCode: null,
  failureMessage: null,
  paymentAmount: '150000.00',
  refundedAmount: '50000.00',
  refundableAmount: '100000.00',
  createdAt: '2026-11-23T12:21:00-03:00',
  scheduledAt: null,
  succeededAt: '2026-11-23T12:21:00-03:00',
  failedAt: null,
};

const DESCRIPTION = [
  'Gives money back from a payment (a card payment or a bank transfer you notified), as its processor allows:',
  '',
  '- **Through the processor** (`method` absent or `CARD`; `amount` absent or the whole payment): a card',
  "  payment is given back whole. PARAGUAY.PROCESSOR_A rolls it back on the payment's day (Asunción time):",
  '  `succeeded` at once; on a later day it cannot (only in its portal): 409 `PROCESSOR_REFUND_NOT_POSSIBLE`.',
  '  PARAGUAY.PROCESSOR_B reverses it at once the same day (`succeeded`) and schedules it on a later day',
  '  (`scheduled`, then `succeeded` once its status shows it applied, usually the next day). A part of a card',
  '  payment cannot go back through the processor: 409 `PARTIAL_CARD_REFUND_NOT_POSSIBLE`.',
  '- **Outside** (`method` `BANK_TRANSFER` or `CASH`, `amount`, `reference`): you gave the money back yourself',
  '  (any payment, any day, whole or in part) and record it: `succeeded`, no processor call.',
  '',
  "Refunds of one payment add up to at most what it took, whatever arrives at once: what is left is the payment's",
  'amount minus every refund not failed (in progress included). A refused request (400, 404, 409, 422) leaves',
  'nothing: 404 `PAYMENT_NOT_FOUND` for a payment that is not yours; 409 `PAYMENT_NOT_REFUNDABLE` (a declined',
  'attempt), `PAYMENT_FULLY_REFUNDED` (nothing left); 422 `REFUND_AMOUNT_INVALID` (zero, negative, more decimals',
  'than the currency has), `REFUND_AMOUNT_EXCEEDS_REFUNDABLE` (more than is left).',
  '',
  '**`Idempotency-Key` is required** (400 `IDEMPOTENCY_KEY_REQUIRED` without it): the refund is written with its',
  'key before the processor is called, so the same key again (a retry after a lost answer, a duplicate sent at',
  'once) answers that one refund as it stands (200) and never gives money back twice; the same key with',
  'another request is 422 `IDEMPOTENCY_KEY_REUSED`. An answer the processor did not give (a lost reply) leaves',
  'the refund `pending` until the service learns its outcome from the processor. A refund the processor',
  'refused or could not be reached for is `failed`: nothing was given back; refund again with a new key.',
  '',
  "Effects: the payment's `refundedAmount`; a link stays paid (`statusId` 200, its `refundedAmount` shows it), an",
  'installment stays paid and its subscription is not changed (cancel it yourself if that is the decision).',
  'Webhooks: `PAYMENT_REFUNDED` (`statusId` 9, never 200) and `REFUND_FAILED`, for endpoints that take them.',
  '',
  "The examples give back the software contract's first payment (link 3, by card) and a part of link 1's bank",
  'transfer, by a transfer of yours.',
].join('\n');

const ERRORS = [
  'IDEMPOTENCY_KEY_REQUIRED',
  'PAYMENT_NOT_FOUND',
  'PAYMENT_NOT_REFUNDABLE',
  'PAYMENT_FULLY_REFUNDED',
  'PROCESSOR_REFUND_NOT_POSSIBLE',
  'PARTIAL_CARD_REFUND_NOT_POSSIBLE',
  'REFUND_AMOUNT_INVALID',
  'REFUND_AMOUNT_EXCEEDS_REFUNDABLE',
] as const;

/** processor-gateway's refund operations, behind the gateway's `/api/*` (merchant `Api-Token`). */
export const refundApi = {
  refundPayment: defineOperation({
    method: 'post',
    path: '/api/payments/{id}/refunds',
    operationId: 'refundPayment',
    summary: 'Refund a payment',
    description: DESCRIPTION,
    tags: ['Refunds'],
    security: 'apiToken',
    idempotencyKey: 'required',
    pathParams: paymentIdParams,
    parameterExamples: {
      default: { id: STORY_PAYMENTS.softwareCard },
      card: { id: STORY_PAYMENTS.softwareCard },
      outside: { id: STORY_PAYMENTS.oneOffTransfer },
    },
    requestBody: {
      schema: refundRequest,
      example: cardRequest,
      examples: {
        card: {
          summary:
            "The software contract's first payment (link 3, by card), given back whole by its processor",
          value: cardRequest,
        },
        outside: {
          summary: "50000 of link 1's bank transfer, given back by a transfer of yours and recorded",
          value: outsideRequest,
        },
      },
    },
    errors: ERRORS,
    responses: {
      201: {
        description: 'The refund, as it stands: `succeeded`, `scheduled`, `pending` or `failed`.',
        schema: refundResponse,
        examples: {
          card: { summary: 'Rolled back by PARAGUAY.PROCESSOR_A the same day', value: cardRefund },
          outside: { summary: 'Recorded: 100000 is left to refund of the transfer', value: outsideRefund },
        },
      },
      200: {
        description:
          'The same `Idempotency-Key` again (and the same request): the refund it made, as it stands now.',
        schema: refundResponse,
        example: cardRefund,
      },
    },
  }),
  getRefund: defineOperation({
    method: 'get',
    path: '/api/payments/{id}/refunds/{refundId}',
    operationId: 'getRefund',
    summary: 'Retrieve a refund',
    description:
      "A refund of one of your payments as it stands: how a `pending` or `scheduled` one ends. Another merchant's " +
      'payment or refund is 404.',
    tags: ['Refunds'],
    security: 'apiToken',
    pathParams: refundIdParams,
    parameterExamples: { default: { id: STORY_PAYMENTS.oneOffTransfer, refundId: REFUNDS.outside } },
    errors: ['PAYMENT_NOT_FOUND', 'REFUND_NOT_FOUND'],
    responses: {
      200: { description: 'The refund.', schema: refundResponse, example: outsideRefund },
    },
  }),
};

/** In document order. */
export const refundOperations: ApiOperation[] = Object.values(refundApi) as ApiOperation[];
