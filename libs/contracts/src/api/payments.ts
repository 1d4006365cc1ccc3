import { z } from 'zod';
import { DECLINE_CATEGORIES } from '../events';
import { CURRENCIES, PROCESSORS } from '../merchant-context';
import { moneyString } from '../rules';
import { calendarDate, MAX_LENGTH, text } from '../text';
import { type ApiOperation, defineOperation } from './operation';
import { paymentIdParams } from './refunds';
import { STORY_LINKS, STORY_PAYMENTS, STORY_SUBSCRIPTIONS } from './story';
import { offsetDateTime } from './time';

/**
 * The payments ledger (issue 27): one row per money movement of a merchant, kept by processor-gateway (the
 * service every movement passes through) from the events of charges, transfers and refunds, through its
 * inbox. `GET /api/payments` finds them (JSON pages or the whole selection as CSV), `GET /api/payments/{id}`
 * reads one with its refunds and what it paid.
 */

/**
 * What a movement is: a link paid (or tried) by card on the pay page, an installment's automatic charge
 * (approved or declined), a bank transfer the merchant notified, money given back.
 */
export const PAYMENT_KINDS = ['LINK_PAYMENT', 'INSTALLMENT_CHARGE', 'BANK_TRANSFER', 'REFUND'] as const;
export type PaymentKind = (typeof PAYMENT_KINDS)[number];

/**
 * How it stands: `succeeded` (money moved), `declined` (a card attempt the processor refused: nothing
 * moved), and for a refund also `pending`, `scheduled` (PARAGUAY.PROCESSOR_B will reverse it later) and
 * `failed` (nothing was given back).
 */
export const PAYMENT_STATUSES = ['succeeded', 'declined', 'pending', 'scheduled', 'failed'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** How the money moved: a card through a processor, a bank transfer; a refund given back in cash too. */
export const PAYMENT_MOVEMENT_METHODS = ['CARD', 'BANK_TRANSFER', 'CASH'] as const;
export type PaymentMovementMethod = (typeof PAYMENT_MOVEMENT_METHODS)[number];

export const PAYMENT_PAGE = { default: 50, max: 200 } as const;

const positiveId = (what: string) =>
  z
    .string()
    .regex(/^\d{1,15}$/, `must be a ${what} id (a positive integer)`)
    .transform(Number)
    .pipe(z.number().int().positive(`must be a ${what} id (a positive integer)`));

const amountBound = z
  .string()
  .regex(/^\d{1,15}(\.\d{1,2})?$/, 'must be a decimal amount with a dot, at most 2 decimals');

/** `GET /api/payments`: every filter optional, each narrows the one before (AND). */
export const listPaymentsQuery = z.object({
  status: z.enum(PAYMENT_STATUSES).optional(),
  kind: z.enum(PAYMENT_KINDS).optional(),
  method: z.enum(PAYMENT_MOVEMENT_METHODS).optional(),
  processor: z.enum(PROCESSORS).optional(),
  payRequestId: positiveId('payment link')
    .optional()
    .meta({ description: "The link's movements (its payment, declined attempts, refunds)." }),
  subscriptionId: positiveId('subscription')
    .optional()
    .meta({ description: "The subscription's movements: its link's payment, installments, refunds." }),
  customIdentifier: text(MAX_LENGTH.customIdentifier).min(1).optional(),
  q: text(MAX_LENGTH.handleValue).trim().min(1).optional().meta({
    description:
      "The start of the customer's e-mail or phone (`handleValue`) or name (`handleLabel`), whatever its case.",
  }),
  createdFrom: calendarDate
    .optional()
    .meta({ description: "Created on this day or later (the merchant's time zone), `yyyy-MM-dd`." }),
  createdTo: calendarDate
    .optional()
    .meta({ description: "Created on this day or earlier (the merchant's time zone), `yyyy-MM-dd`." }),
  amountMin: amountBound.optional().meta({ description: 'Amount at least this (a decimal with a dot).' }),
  amountMax: amountBound.optional().meta({ description: 'Amount at most this (a decimal with a dot).' }),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, `must be an integer from 1 to ${PAYMENT_PAGE.max}`)
    .transform(Number)
    .pipe(z.number().int().min(1).max(PAYMENT_PAGE.max))
    .optional()
    .meta({ description: `Page size, 1 to ${PAYMENT_PAGE.max} (default ${PAYMENT_PAGE.default}).` }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,96}$/, 'must be a nextCursor of an earlier page')
    .optional()
    .meta({ description: '`nextCursor` of the previous page.' }),
  format: z.enum(['json', 'csv']).optional().meta({
    description:
      '`csv`: every matching row as CSV (as `Accept: text/csv`), streamed; `limit` and `cursor` do not apply.',
  }),
});
export type ListPaymentsQuery = z.infer<typeof listPaymentsQuery>;

/** One money movement as the ledger keeps it. */
export const paymentMovement = z.object({
  id: z.uuid().meta({
    description:
      'The movement: the `txId` its webhooks carry (a charge, a registered transfer or a refund of processor-gateway).',
  }),
  kind: z.enum(PAYMENT_KINDS),
  status: z.enum(PAYMENT_STATUSES),
  method: z.enum(PAYMENT_MOVEMENT_METHODS),
  processor: z
    .enum(PROCESSORS)
    .nullable()
    .meta({ description: 'A card movement: its processor; else null.' }),
  amount: moneyString,
  currency: z.enum(CURRENCIES),
  refundedAmount: moneyString.meta({
    description: 'Refunds of this movement that succeeded (0.00 for a refund or a declined attempt).',
  }),
  cardBrand: z.string().nullable().meta({ description: 'A card movement: the brand, when known.' }),
  cardLast4: z
    .string()
    .nullable()
    .meta({ description: "A card movement: the card's last 4 digits, no more." }),
  processorReference: z
    .string()
    .nullable()
    .meta({ description: 'What the processor knows a card charge by (its ledger shows it).' }),
  reference: z
    .string()
    .nullable()
    .meta({ description: "A bank transfer's reference, or an outside refund's; else null." }),
  paymentId: z
    .uuid()
    .nullable()
    .meta({ description: 'A refund: the movement it gives money back from; else null.' }),
  payRequestId: z.number().int().nullable().meta({ description: 'The payment link, when there is one.' }),
  label: z.string().nullable().meta({ description: "The link's label." }),
  subscriptionId: z.number().int().nullable(),
  installmentId: z.number().int().nullable(),
  installmentNumber: z.number().int().nullable(),
  handleValue: z.string().nullable().meta({ description: "The customer's e-mail or phone, as on the link." }),
  handleLabel: z.string().nullable().meta({ description: "The customer's name, as on the link." }),
  customIdentifier: z.string().nullable(),
  customIdentifier2: z.string().nullable(),
  declineCode: z.string().nullable().meta({ description: "A declined attempt: the processor's code." }),
  declineCategory: z.enum(DECLINE_CATEGORIES).nullable(),
  createdAt: offsetDateTime,
  settledAt: offsetDateTime.nullable().meta({
    description:
      "When it was decided (paid, declined, given back); null while it is not. The merchant's zone.",
  }),
});
export type PaymentMovement = z.infer<typeof paymentMovement>;

export const paymentListResponse = z.object({
  payments: z.array(paymentMovement),
  nextCursor: z.string().nullable().meta({
    description: 'Pass as `cursor` (with the same filters) for the next page; null on the last page.',
  }),
});
export type PaymentListResponse = z.infer<typeof paymentListResponse>;

export const paymentDetailsResponse = paymentMovement.extend({
  refunds: z.array(paymentMovement).meta({ description: 'Its refunds, oldest first (none for a refund).' }),
  paid: z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('PAY_REQUEST'), payRequestId: z.number().int() }),
      z.object({
        type: z.literal('INSTALLMENT'),
        subscriptionId: z.number().int().nullable(),
        installmentId: z.number().int(),
        number: z.number().int().nullable(),
      }),
    ])
    .nullable()
    .meta({
      description: 'What the money paid (a link, an installment); null for a declined attempt or a refund.',
    }),
});
export type PaymentDetailsResponse = z.infer<typeof paymentDetailsResponse>;

/** The CSV's columns, in order: the movement's fields by the same names. */
export const PAYMENT_CSV_COLUMNS = [
  'id',
  'kind',
  'status',
  'method',
  'processor',
  'amount',
  'currency',
  'refundedAmount',
  'cardBrand',
  'cardLast4',
  'processorReference',
  'reference',
  'paymentId',
  'payRequestId',
  'label',
  'subscriptionId',
  'installmentId',
  'installmentNumber',
  'handleValue',
  'handleLabel',
  'customIdentifier',
  'customIdentifier2',
  'declineCode',
  'declineCategory',
  'createdAt',
  'settledAt',
] as const satisfies ReadonlyArray<keyof PaymentMovement>;

// ---------------------------------------------------------------------------------------------------
// Examples: the story (`./story.ts`) so far. Link 3 (the software contract) was paid by card on
// PARAGUAY.PROCESSOR_A; link 1 was paid by the bank transfer TRF-2026-11-000123. The list asks for the
// movements of 87500 to 150000: those two and installment 17's transfer.

const softwareCard = {
  id: STORY_PAYMENTS.softwareCard,
  kind: 'LINK_PAYMENT',
  status: 'succeeded',
  method: 'CARD',
  processor: 'PARAGUAY.PROCESSOR_A',
  amount: '87500.00',
  currency: 'PYG',
  refundedAmount: '0.00',
  cardBrand: 'Visa',
  cardLast4: '4242',
  processorReference: '418230776512',
  reference: null,
  paymentId: null,
  payRequestId: STORY_LINKS.software,
  label: 'Accounting software',
  subscriptionId: STORY_SUBSCRIPTIONS.software,
  installmentId: null,
  installmentNumber: null,
  handleValue: 'billing@ferreteria.example.com',
  handleLabel: 'Ferretería Central',
  customIdentifier: '4567891',
  customIdentifier2: 'CONTRACT-2026-118',
  declineCode: null,
  declineCategory: null,
  createdAt: '2026-11-23T10:05:00-03:00',
  settledAt: '2026-11-23T10:05:02-03:00',
} as const;

const oneOffTransfer = {
  id: STORY_PAYMENTS.oneOffTransfer,
  kind: 'BANK_TRANSFER',
  status: 'succeeded',
  method: 'BANK_TRANSFER',
  processor: null,
  amount: '150000.00',
  currency: 'PYG',
  refundedAmount: '0.00',
  cardBrand: null,
  cardLast4: null,
  processorReference: null,
  reference: 'TRF-2026-11-000123',
  paymentId: null,
  payRequestId: STORY_LINKS.oneOff,
  label: 'Gym membership',
  subscriptionId: null,
  installmentId: null,
  installmentNumber: null,
  handleValue: 'ana@example.com',
  handleLabel: 'Ana Gómez',
  customIdentifier: 'ORDER-5521',
  customIdentifier2: null,
  declineCode: null,
  declineCategory: null,
  createdAt: '2026-11-23T11:00:00-03:00',
  settledAt: '2026-11-23T11:00:00-03:00',
} as const;

/** Installment 17 (the software contract's first invoice), paid by the transfer 000981237. */
const invoiceTransfer = {
  ...oneOffTransfer,
  id: '0193b2a0-4c1d-7e2f-8a3b-4c5d6e7f8a04',
  amount: '87500.00',
  reference: '000981237',
  payRequestId: STORY_LINKS.software,
  label: softwareCard.label,
  subscriptionId: STORY_SUBSCRIPTIONS.software,
  installmentId: 17,
  installmentNumber: 2,
  handleValue: softwareCard.handleValue,
  handleLabel: softwareCard.handleLabel,
  customIdentifier: softwareCard.customIdentifier,
  customIdentifier2: softwareCard.customIdentifier2,
  createdAt: '2026-11-23T11:05:00-03:00',
  settledAt: '2026-11-23T11:05:00-03:00',
} as const;

const LIST_DESCRIPTION = [
  'Every money movement of yours, newest first: links paid by card, installments charged (approved or',
  'declined), bank transfers you notified, refunds. Filters narrow it (all of them together): `status`, `kind`,',
  '`method`, `processor`, `payRequestId`, `subscriptionId`, `customIdentifier`, `q` (the start of the',
  "customer's e-mail, phone or name), `createdFrom` / `createdTo` (days in your time zone, both inclusive),",
  '`amountMin` / `amountMax`.',
  '',
  `Paged: at most \`limit\` per page (default ${PAYMENT_PAGE.default}, at most ${PAYMENT_PAGE.max}); when`,
  '`nextCursor` is not null, pass it as `cursor` with the same filters. The cursor is a position in the',
  'order (creation time, then id): movements recorded while you page never make a page skip or repeat one.',
  '',
  '**Export**: the same filters with `Accept: text/csv` (or `format=csv`) answer every matching movement as',
  'CSV (RFC 4180: a header row, then one row per movement, the fields of the JSON by the same names;',
  'amounts as decimals with a dot, times with the offset of your time zone), streamed as it is read. A text',
  "cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return (a customer's phone `+595…`, a name",
  "or label someone wrote as a formula) begins with a `'` in the CSV, so that a spreadsheet shows it as text",
  'instead of running it (CSV injection); the JSON has the text as it is.',
].join('\n');

/** processor-gateway's ledger operations, behind the gateway's `/api/*` (merchant `Api-Token`). */
export const paymentApi = {
  listPayments: defineOperation({
    method: 'get',
    path: '/api/payments',
    operationId: 'listPayments',
    summary: 'Find payments (or export them as CSV)',
    description: LIST_DESCRIPTION,
    tags: ['Payments'],
    security: 'apiToken',
    query: listPaymentsQuery,
    parameterExamples: { default: { amountMin: '87500', amountMax: '150000' } },
    responses: {
      200: {
        description: 'One page of movements, newest first (or, asked for CSV, every matching one).',
        schema: paymentListResponse,
        example: { payments: [invoiceTransfer, oneOffTransfer, softwareCard], nextCursor: null },
      },
    },
  }),
  getPayment: defineOperation({
    method: 'get',
    path: '/api/payments/{id}',
    operationId: 'getPayment',
    summary: 'Retrieve a payment',
    description:
      "One money movement with its refunds and what it paid (a link, an installment). Another merchant's is 404.",
    tags: ['Payments'],
    security: 'apiToken',
    pathParams: paymentIdParams,
    parameterExamples: { default: { id: STORY_PAYMENTS.softwareCard } },
    errors: ['PAYMENT_NOT_FOUND'],
    responses: {
      200: {
        description: 'The movement.',
        schema: paymentDetailsResponse,
        example: {
          ...softwareCard,
          refunds: [],
          paid: { type: 'PAY_REQUEST', payRequestId: STORY_LINKS.software },
        },
      },
    },
  }),
};

/** In document order. */
export const paymentOperations: ApiOperation[] = Object.values(paymentApi) as ApiOperation[];
