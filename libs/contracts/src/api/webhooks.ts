import { z } from 'zod';
import { CURRENCIES } from '../merchant-context';
import { MAX_LENGTH, text, textRules } from '../text';
import { type ApiOperation, defineOperation } from './operation';
import { DEMO_MERCHANT_ID, MEMBERSHIP, STORY_DAY, STORY_LINKS, STORY_SUBSCRIPTIONS } from './story';

/**
 * The event kinds a merchant's webhook receiver gets (design 5: the envelope receivers in the field
 * parse). `WEBHOOK_TEST` is sent only by `POST /api/webhook-endpoints/{id}/test`.
 */
export const WEBHOOK_EVENT_KINDS = [
  'PAYMENT_SUCCESS',
  'PAYMENT_FAILED',
  'SUBSCRIPTION_ACTIVATED',
  'SUBSCRIPTION_PAST_DUE',
  'SUBSCRIPTION_CANCELLED',
  'SUBSCRIPTION_COMPLETED',
  'INSTALLMENT_UPDATED',
  'INSTALLMENT_CANCELLED',
  'INSTALLMENT_FAILED',
  'BANK_TRANSFER_REGISTERED',
  'LINK_EXPIRED',
  'LINK_CANCELLED',
  'PAYMENT_REFUNDED',
  'REFUND_FAILED',
] as const;
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];
export const WEBHOOK_TEST_KIND = 'WEBHOOK_TEST';

/**
 * The `statusId` of a `PAYMENT_REFUNDED` envelope: money was given back. Never 200, so a receiver that counts
 * `statusId === 200` as paid never counts a refund as a payment; a link itself stays 200 once refunded.
 */
export const REFUND_STATUS_ID = 9;

/** In an endpoint's `events`: every kind, those added later included. */
export const ALL_WEBHOOK_EVENTS = '*';
/**
 * What an endpoint registered without `events` gets: the payment events, what receivers in the field are
 * written for (endpoints registered before this default keep every kind: `["*"]`).
 */
export const DEFAULT_WEBHOOK_EVENTS = [
  'PAYMENT_SUCCESS',
  'PAYMENT_FAILED',
] as const satisfies readonly WebhookEventKind[];
/** An endpoint's `events`: kinds by name, or `["*"]`. */
export type WebhookEventFilter = Array<WebhookEventKind | typeof ALL_WEBHOOK_EVENTS>;

/** How long the previous signing secret keeps signing beside the new one after a rotation. */
export const SECRET_ROTATION_OVERLAP_HOURS = 24;
/** The event log keeps a merchant's events this long. */
export const EVENT_RETENTION_DAYS = 30;
export const EVENTS_PAGE = { default: 100, max: 1000 } as const;
export const DELIVERIES_PAGE = { default: 50, max: 200 } as const;

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
/** Headers the delivery sets itself: a configured header may not replace them. */
export const RESERVED_WEBHOOK_HEADERS = [
  'authorization',
  'content-type',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
];

const webhookUrl = textRules(
  z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }),
  MAX_LENGTH.url,
).meta({
  description:
    'Where events are sent (http or https). Addresses on loopback, private or link-local networks are refused ' +
    'unless the deployment allows them (`WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`, development only).',
});

const authInput = z
  .discriminatedUnion('type', [
    z.object({
      type: z.literal('basic'),
      username: text(200)
        .min(1)
        .refine((value) => !value.includes(':'), 'must not contain ":"'),
      password: text(200).min(1),
    }),
    z.object({
      type: z.literal('header'),
      name: text(100)
        .regex(HEADER_NAME, 'must be an HTTP header name')
        .refine(
          (value) => !RESERVED_WEBHOOK_HEADERS.includes(value.toLowerCase()),
          'is set by the delivery itself; choose another header name',
        ),
      value: text(1000)
        .min(1)
        .refine((value) => !/[\r\n]/.test(value), 'must not contain line breaks'),
    }),
  ])
  .meta({
    description:
      'How the receiver authenticates us: HTTP Basic (`Authorization: Basic ...`) or a header of its own ' +
      '(`X-Token: ...`). Stored encrypted; responses show only the type and the username or header name.',
  });

const EVENTS_FILTER_DESCRIPTION =
  'The event kinds to send: kinds by name, or `["*"]` for every kind (those added later included). ' +
  'Absent or null: `["PAYMENT_SUCCESS", "PAYMENT_FAILED"]`, the payment events.';

const eventsFilter = z
  .array(z.enum([...WEBHOOK_EVENT_KINDS, ALL_WEBHOOK_EVENTS]))
  .min(1)
  .max(WEBHOOK_EVENT_KINDS.length + 1)
  // `*` covers every kind: a list that has it is `["*"]`.
  .transform(
    (kinds): WebhookEventFilter => (kinds.includes(ALL_WEBHOOK_EVENTS) ? ['*'] : [...new Set(kinds)]),
  )
  .meta({ description: EVENTS_FILTER_DESCRIPTION });

export const createWebhookEndpointRequest = z.object({
  url: webhookUrl,
  method: z.enum(['POST', 'PUT']).default('POST'),
  auth: authInput.nullish(),
  events: eventsFilter.nullish(),
  description: text(500).nullish(),
});
export type CreateWebhookEndpointRequest = z.infer<typeof createWebhookEndpointRequest>;

export const updateWebhookEndpointRequest = z.object({
  url: webhookUrl.optional(),
  method: z.enum(['POST', 'PUT']).optional(),
  auth: authInput.nullable().optional().meta({ description: '`null` removes it.' }),
  events: eventsFilter
    .nullable()
    .optional()
    .meta({ description: `${EVENTS_FILTER_DESCRIPTION} Absent: unchanged.` }),
  description: text(500).nullable().optional(),
  enabled: z
    .boolean()
    .optional()
    .meta({ description: 'Re-enable an endpoint disabled after failing for 3 days (or pause one).' }),
});
export type UpdateWebhookEndpointRequest = z.infer<typeof updateWebhookEndpointRequest>;

const instant = z.iso.datetime({ offset: true });

export const webhookEndpointResponse = z.object({
  id: z.uuid(),
  url: z.string(),
  method: z.enum(['POST', 'PUT']),
  auth: z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('basic'), username: z.string() }),
      z.object({ type: z.literal('header'), name: z.string() }),
    ])
    .nullable()
    .meta({ description: 'The secret part (password, header value) is never shown.' }),
  events: z.array(z.enum([...WEBHOOK_EVENT_KINDS, ALL_WEBHOOK_EVENTS])).meta({
    description: 'The kinds sent to it: by name, or `["*"]` for every kind.',
  }),
  description: z.string().nullable(),
  status: z.enum(['enabled', 'disabled']),
  disabledAt: instant.nullable(),
  disabledReason: z.string().nullable().meta({
    description:
      '`failing`: every delivery failed for 3 days; `merchant`: switched off with `enabled: false`.',
  }),
  previousSecretExpiresAt: instant
    .nullable()
    .meta({ description: 'After a rotation: until then the old secret signs beside the new one.' }),
  createdAt: instant,
  updatedAt: instant,
});

export const createdWebhookEndpointResponse = webhookEndpointResponse.extend({
  secret: z.string().meta({
    description: 'The signing secret (`whsec_...`, Standard Webhooks): shown this once, stored encrypted.',
  }),
});

export const webhookEndpointListResponse = z.object({ endpoints: z.array(webhookEndpointResponse) });

export const rotateSecretResponse = z.object({
  secret: z.string().meta({ description: 'The new secret, shown this once.' }),
  previousSecretExpiresAt: instant,
});

export const webhookDeliveryAttempt = z.object({
  attemptedAt: instant,
  statusCode: z.number().int().nullable().meta({ description: 'null: no answer (timeout, refused).' }),
  durationMs: z.number().int(),
  response: z.string().nullable().meta({ description: 'The first 1 KB of the answer.' }),
  error: z.string().nullable(),
});

export const webhookDeliveryResponse = z.object({
  id: z.uuid(),
  endpointId: z.uuid(),
  eventId: z.string(),
  event: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  origin: z.enum(['event', 'test', 'retry', 'replay']),
  attempts: z.array(webhookDeliveryAttempt),
  nextAttemptAt: instant.nullable(),
  createdAt: instant,
  deliveredAt: instant.nullable(),
});

export const webhookDeliveryListResponse = z.object({
  deliveries: z.array(webhookDeliveryResponse),
  nextCursor: z
    .string()
    .nullable()
    .meta({ description: 'Pass as `cursor` for the next page; null: no more.' }),
});

const cursorText = text(40).regex(/^\d{1,18}$/, 'must be a cursor returned by this API');

export const listWebhookDeliveriesQuery = z.object({
  endpointId: z.uuid().optional(),
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  event: z.enum([...WEBHOOK_EVENT_KINDS, WEBHOOK_TEST_KIND]).optional(),
  cursor: cursorText.optional(),
  limit: z.coerce.number().int().min(1).max(DELIVERIES_PAGE.max).default(DELIVERIES_PAGE.default),
});

export const replayRequest = z
  .object({
    from: instant.meta({ description: 'Events created at or after this instant…' }),
    to: instant.meta({ description: '…and before this one (at most 30 days back: the event log).' }),
  })
  .refine((range) => Date.parse(range.from) < Date.parse(range.to), {
    message: 'must be after from',
    path: ['to'],
  });

export const replayResponse = z.object({
  replayed: z.number().int().meta({ description: 'How many events are queued again for this endpoint.' }),
});

export const queuedDeliveryResponse = z.object({
  deliveryId: z.uuid(),
  eventId: z.string(),
  status: z.literal('pending'),
});

/**
 * What every envelope's `data` has. Receivers in the field store each notification as a row of a strict
 * table and decide "paid" from `statusId` alone, so: the identifiers are always strings, only the payment
 * events carry `statusId`, and each money movement is announced once by a `PAYMENT_SUCCESS` with its
 * `txId`. Each kind adds its own fields (see each kind's example).
 */
export const webhookEnvelopeData = z.looseObject({
  txId: z
    .string()
    .nullable()
    .meta({
      description:
        "The money movement: processor-gateway's id of the card charge or of the registered bank transfer, a " +
        "UUID, the same on every event about that movement (a bank transfer's `PAYMENT_SUCCESS` and its " +
        '`BANK_TRANSFER_REGISTERED`). Never null on `PAYMENT_SUCCESS` and `PAYMENT_FAILED` (the declined ' +
        "charge's); on `PAYMENT_REFUNDED` and `REFUND_FAILED` it is the refund's own id, and `paymentTxId` the " +
        "payment refunded; null where no movement is concerned. The processor's own reference and the bank's " +
        'are in `processorReference` / `authorizationCode` and `bankReference`.',
    }),
  payRequestId: z.number().int().nullable().meta({ description: 'The payment link (pay request) id.' }),
  currency: z.enum(CURRENCIES).nullable(),
  amount: z
    .number()
    .optional()
    .meta({
      description:
        'A JSON number written with 2 decimals (`150000.00`). On `PAYMENT_SUCCESS` / `PAYMENT_FAILED` the ' +
        'amount paid or declined; on `INSTALLMENT_FAILED`, `INSTALLMENT_UPDATED` and `INSTALLMENT_CANCELLED` ' +
        "the installment's amount (an envelope listing several installments: their sum); on `LINK_EXPIRED` " +
        "and `LINK_CANCELLED` the link's; on `PAYMENT_REFUNDED` the amount given back (`refundedAmount`: the " +
        "payment's refunds so far). Absent from `SUBSCRIPTION_*`, `BANK_TRANSFER_REGISTERED`, `REFUND_FAILED` " +
        'and `WEBHOOK_TEST`. Never null.',
    }),
  statusId: z
    .number()
    .int()
    .optional()
    .meta({
      description:
        'Only on payment events: 200 on `PAYMENT_SUCCESS` (the money was taken), 5 on `PAYMENT_FAILED` (the ' +
        'attempt was declined), 9 on `PAYMENT_REFUNDED` (money was given back: never 200, and the link ' +
        'itself stays 200). Every other kind has no `statusId` key, so a receiver that stores ' +
        '`statusId === 200` as paid counts each payment once and nothing else.',
    }),
  customIdentifier: z.string().meta({
    description:
      'Exactly as the merchant gave it when creating the link; `""` when none was given. Never null.',
  }),
  customIdentifier2: z.string().meta({
    description: 'Exactly as the merchant gave it; `""` when none was given. Never null.',
  }),
  label: z.string().nullable(),
  subscriptionId: z.number().int().nullable().meta({ description: 'Null for a one-off payment.' }),
  subscriptionTotalPeriods: z.number().int().nullable().meta({
    description: "The subscription's periods; null for a one-off payment or a subscription without a total.",
  }),
  subscriptionPayedPeriod: z
    .number()
    .int()
    .nullable()
    .meta({
      description:
        "How many of the subscription's periods are paid: after the payment on `PAYMENT_SUCCESS`, so far on " +
        "every other event (a `PAYMENT_FAILED` of period 2 says 1). It never decreases along a subscription's " +
        'events. Null for a one-off payment. The period an event is about is `installmentNumber`.',
    }),
  installmentNumber: z
    .number()
    .int()
    .nullable()
    .optional()
    .meta({
      description:
        'The period an event is about: on `PAYMENT_SUCCESS`, `PAYMENT_FAILED`, `INSTALLMENT_FAILED`, ' +
        "`PAYMENT_REFUNDED`, `REFUND_FAILED` and an installment's `BANK_TRANSFER_REGISTERED` (null on a one-off " +
        'payment); absent from the other kinds.',
    }),
});

export const webhookEnvelope = z.object({
  id: z.string().meta({ description: '`evt_...`, also the `webhook-id` header: the same on every retry.' }),
  event: z.enum([...WEBHOOK_EVENT_KINDS, WEBHOOK_TEST_KIND]),
  createdAt: instant,
  data: webhookEnvelopeData,
});

export const listEventsQuery = z.object({
  after: cursorText.optional().meta({ description: 'The `nextCursor` of the previous page.' }),
  limit: z.coerce.number().int().min(1).max(EVENTS_PAGE.max).default(EVENTS_PAGE.default),
  type: z.enum(WEBHOOK_EVENT_KINDS).optional(),
});

export const eventListResponse = z.object({
  events: z.array(webhookEnvelope),
  nextCursor: z
    .string()
    .nullable()
    .meta({ description: 'Pass as `after` to continue; the same cursor again later finds newer events.' }),
  hasMore: z.boolean(),
});

export const webhookEndpointIdParams = z.object({ id: z.uuid() });
export const webhookDeliveryIdParams = z.object({ id: z.uuid() });
export const merchantWebhookEndpointParams = z.object({ id: z.uuid(), endpointId: z.uuid() });

// ---------------------------------------------------------------------------------------------------
// Examples: one story, replayed in document order (the demo merchant of `npm start`, `./story.ts`). The
// UUIDs are new in every account: each stands for the one the step that made it answered.

const ENDPOINT_ID = '7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const ADMIN_ENDPOINT_ID = '2b3c4d5e-6f70-4a81-9b2c-3d4e5f607182';
const DELIVERY_ID = '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b';
/** What the story's endpoints receive: the payments, as a receiver written for them stores them. */
const STORY_EVENTS = ['PAYMENT_SUCCESS', 'PAYMENT_FAILED'];

/** The fields every envelope has, for the examples: the demo story's subscription (12 monthly periods). */
const baseData = {
  txId: null as string | null,
  payRequestId: 1045 as number | null,
  currency: 'PYG',
  customIdentifier: '4567890',
  customIdentifier2: '',
  label: 'Gym membership',
  subscriptionId: 311 as number | null,
  subscriptionTotalPeriods: 12 as number | null,
  subscriptionPayedPeriod: 1 as number | null,
};

/** An example's `data` in the envelope's own order: the base fields, `amount` and `statusId` where the kind has them, then its own. */
function exampleData(
  base: Partial<typeof baseData>,
  money: { amount?: number; statusId?: number },
  extra: Record<string, unknown>,
): Record<string, unknown> {
  const { txId, payRequestId, currency, ...rest } = { ...baseData, ...base };
  return { txId, payRequestId, currency, ...money, ...rest, ...extra };
}

const CARD_CHARGE = '0193a5e2-7c41-7d2e-9a10-5b3c2d1e0f42';
const DECLINED_CHARGE = '0193a5e2-7c41-7d2e-9a10-5b3c2d1e0f43';
const TRANSFER = '0193a6f0-1b22-7e4a-8c55-3d2e1f0a9b87';
const REFUND = '0193a7b3-5d10-7c2e-9e41-6a7b8c9d0e1f';
const FAILED_REFUND = '0193a7b3-5d10-7c2e-9e41-6a7b8c9d0e20';

/** An example envelope of every kind, for the OpenAPI `webhooks` section. */
export const WEBHOOK_EXAMPLES: Record<WebhookEventKind, { summary: string; data: Record<string, unknown> }> =
  {
    PAYMENT_SUCCESS: {
      summary:
        'Money was taken: a link paid, or an installment of a subscription, by card or by a bank transfer you ' +
        'notified (`method`). One per money movement, `statusId` 200; `txId` names the movement. ' +
        '`installmentNumber` is the period paid, `subscriptionPayedPeriod` how many are paid now (`paidCount`, ' +
        'and `paidTotal` their sum). A card: `processor`, `processorReference` (what the processor knows the ' +
        'charge by) and `authorizationCode`; a transfer: `bankReference`, `bankName`, `transferDate`, `note`.',
      data: exampleData(
        { txId: CARD_CHARGE, subscriptionPayedPeriod: 2 },
        { amount: 150000, statusId: 200 },
        {
          installmentNumber: 2,
          installmentId: 9002,
          paymentDate: '2026-12-05',
          paidAt: '2026-12-05T09:00:00.000Z',
          method: 'CARD',
          processorReference: '004518227761',
          authorizationCode: '123456',
          paidCount: 2,
          paidTotal: 300000,
        },
      ),
    },
    PAYMENT_FAILED: {
      summary:
        'A payment attempt was declined: `statusId` 5, `txId` the declined charge, the reason. ' +
        '`installmentNumber` is the period attempted; `subscriptionPayedPeriod` stays the periods paid so far.',
      data: exampleData(
        { txId: DECLINED_CHARGE, subscriptionPayedPeriod: 1 },
        { amount: 150000, statusId: 5 },
        {
          installmentNumber: 2,
          installmentId: 9002,
          attempt: 1,
          declineCode: '51',
          declineReason: 'soft',
          retryable: true,
          failedAt: '2026-12-05T09:00:00.000Z',
          method: 'CARD',
          processor: 'PARAGUAY.PROCESSOR_A',
          processorReference: '004518227762',
        },
      ),
    },
    SUBSCRIPTION_ACTIVATED: {
      summary:
        'The first payment made the subscription active (the payment itself is its `PAYMENT_SUCCESS`).',
      data: exampleData({}, {}, { subscriptionStatus: 'active', activatedAt: '2026-11-23T12:05:00.000Z' }),
    },
    SUBSCRIPTION_PAST_DUE: {
      summary: 'An installment failed after its last retry: the subscription is past due until it is paid.',
      data: exampleData(
        {},
        {},
        { subscriptionStatus: 'past_due', pastDueAt: '2026-12-10T09:00:00.000Z', installmentId: 9002 },
      ),
    },
    SUBSCRIPTION_CANCELLED: {
      summary:
        'The subscription was cancelled: `reason` `merchant` (cancel-all), `customer` (on their own page, where the merchant allows it) or `dunning` (the dunning policy cancels after N failed installments in a row).',
      data: exampleData(
        { subscriptionPayedPeriod: 2 },
        {},
        { subscriptionStatus: 'cancelled', reason: 'merchant' },
      ),
    },
    SUBSCRIPTION_COMPLETED: {
      summary: 'Every installment is settled. No amount: the payments were each their own `PAYMENT_SUCCESS`.',
      data: exampleData({ subscriptionPayedPeriod: 12 }, {}, { subscriptionStatus: 'completed' }),
    },
    INSTALLMENT_UPDATED: {
      summary:
        'Installments changed amount or date (one event per subscription and operation). `amount`: the ' +
        'installments listed, summed.',
      data: exampleData(
        {},
        { amount: 160000 },
        {
          installments: [
            {
              installmentId: 9002,
              number: 2,
              paymentDate: '2026-12-05',
              amount: 160000,
              status: 'pending',
              invoiceNumber: null,
              changedFields: ['amount'],
            },
          ],
        },
      ),
    },
    INSTALLMENT_CANCELLED: {
      summary:
        'Installments were cancelled (one event per subscription and operation). `amount`: the installments ' +
        'listed, summed.',
      data: exampleData(
        {},
        { amount: 150000 },
        {
          installments: [
            {
              installmentId: 9003,
              number: 3,
              paymentDate: '2027-01-05',
              amount: 150000,
              status: 'cancelled',
              invoiceNumber: null,
            },
          ],
        },
      ),
    },
    INSTALLMENT_FAILED: {
      summary:
        'An installment failed after its last retry (or a hard decline): its amount, the attempts made and ' +
        'the last decline. No `statusId`: each declined attempt was its own `PAYMENT_FAILED`.',
      data: exampleData(
        {},
        { amount: 150000 },
        {
          installmentNumber: 2,
          installmentId: 9002,
          paymentDate: '2026-12-05',
          attempts: 4,
          declineCode: '51',
          declineReason: 'soft',
          failedAt: '2026-12-10T09:00:00.000Z',
        },
      ),
    },
    BANK_TRANSFER_REGISTERED: {
      summary:
        'A bank transfer you notified was registered and settled a link or an installment. A notice, not a ' +
        'payment: the payment is the `PAYMENT_SUCCESS` with the same `txId` (`method` `BANK_TRANSFER`), so ' +
        'this one has no `amount` and no `statusId`.',
      data: exampleData(
        { txId: TRANSFER, subscriptionPayedPeriod: 2 },
        {},
        {
          installmentNumber: 2,
          installmentId: 9002,
          bankName: 'Banco Nacional',
          bankReference: 'TRX-000123',
          transferDate: '2026-12-04',
          note: null,
          registeredAt: '2026-12-04T15:00:00.000Z',
        },
      ),
    },
    PAYMENT_REFUNDED: {
      summary:
        'Money was given back: by the processor (`mode` `rollback` or `reversal`, `method` `CARD`) or by you, ' +
        'recorded (`mode` `outside`, `method` `BANK_TRANSFER` or `CASH`, your `reference`). `statusId` 9, never ' +
        "200: the link stays paid and the installment stays paid. `txId` is the refund's own id, " +
        "`paymentTxId` the payment's (its `PAYMENT_SUCCESS`'s `txId`); `amount` the amount given back, " +
        "`refundedAmount` the payment's refunds so far. Not sent to an endpoint registered without `events`.",
      data: exampleData(
        { txId: REFUND, subscriptionPayedPeriod: 2 },
        { amount: 150000, statusId: REFUND_STATUS_ID },
        {
          installmentNumber: 2,
          installmentId: 9002,
          paymentTxId: CARD_CHARGE,
          refundedAmount: 150000,
          mode: 'reversal',
          method: 'CARD',
          processor: 'PARAGUAY.PROCESSOR_B',
          reference: null,
          reason: 'Charged twice by mistake',
          refundedAt: '2026-12-05T10:30:00.000Z',
        },
      ),
    },
    REFUND_FAILED: {
      summary:
        'A refund through the processor did not happen: the processor refused it or could not be reached, so ' +
        'nothing was given back (`code`, `message`). A notice: no `amount`, no `statusId`. The payment can be ' +
        'refunded again (with another `Idempotency-Key`), or the money given back outside and recorded.',
      data: exampleData(
        { txId: FAILED_REFUND, subscriptionPayedPeriod: 2 },
        {},
        {
          installmentNumber: 2,
          installmentId: 9002,
          paymentTxId: CARD_CHARGE,
          mode: 'rollback',
          method: 'CARD',
          processor: 'PARAGUAY.PROCESSOR_A',
          code: 'PROCESSOR_UNAVAILABLE',
          message: 'The processor could not be reached; nothing was given back',
          failedAt: '2026-12-05T10:30:00.000Z',
        },
      ),
    },
    LINK_EXPIRED: {
      summary: "The link was not paid in time (it now has statusId 6): the link's amount, no `statusId`.",
      data: exampleData(
        {
          payRequestId: 1046,
          label: 'Day pass',
          customIdentifier: '',
          subscriptionId: null,
          subscriptionTotalPeriods: null,
          subscriptionPayedPeriod: null,
        },
        { amount: 50000 },
        { expiredAt: '2026-11-24T12:00:00.000Z' },
      ),
    },
    LINK_CANCELLED: {
      summary: "The link was cancelled (it now has statusId 7): the link's amount, no `statusId`.",
      data: exampleData(
        {
          payRequestId: 1046,
          label: 'Day pass',
          customIdentifier: '',
          subscriptionId: null,
          subscriptionTotalPeriods: null,
          subscriptionPayedPeriod: null,
        },
        { amount: 50000 },
        { cancelledAt: '2026-11-23T13:00:00.000Z', reason: 'merchant' },
      ),
    },
  };

const endpointExample = {
  id: ENDPOINT_ID,
  url: 'https://gym.example.com/hooks/payments',
  method: 'PUT',
  auth: { type: 'basic', username: 'payrail' },
  events: STORY_EVENTS,
  description: 'Accounting system',
  status: 'enabled',
  disabledAt: null,
  disabledReason: null,
  previousSecretExpiresAt: null,
  createdAt: '2026-11-23T12:00:00.000Z',
  updatedAt: '2026-11-23T12:00:00.000Z',
};

/** The endpoint once its secret was rotated: the old secret signs beside the new one for 24 hours. */
const rotated = {
  previousSecretExpiresAt: '2026-11-24T12:00:01.000Z',
  updatedAt: '2026-11-23T12:00:01.000Z',
};

/** The first payment of the story (link 2, the membership's installment 1, by card) in the event log. */
const envelopeExample = {
  id: 'evt_2c7b1f0e9d8a4b6c5e3f2a1d',
  event: 'PAYMENT_SUCCESS',
  createdAt: '2026-11-23T12:04:12.000Z',
  data: {
    txId: '0193a4e2-6c1b-7d4e-9f20-3b5c7a9e1d42',
    payRequestId: STORY_LINKS.membership,
    currency: 'PYG',
    amount: MEMBERSHIP.firstAmount,
    statusId: 200,
    customIdentifier: MEMBERSHIP.customIdentifier,
    customIdentifier2: MEMBERSHIP.customIdentifier2,
    label: 'Monthly membership',
    subscriptionId: STORY_SUBSCRIPTIONS.membership,
    subscriptionTotalPeriods: MEMBERSHIP.totalPeriods,
    subscriptionPayedPeriod: 1,
    installmentNumber: 1,
    installmentId: 1,
    paymentDate: STORY_DAY,
    paidAt: '2026-11-23T12:04:12.000Z',
    method: 'CARD',
    processorReference: '004518227761',
    authorizationCode: '123456',
    paidCount: 1,
    paidTotal: MEMBERSHIP.firstAmount,
  },
};

/** The delivery of the story's test event: its receiver (not there yet) did not answer, so it is retried. */
const deliveryExample = {
  id: DELIVERY_ID,
  endpointId: ENDPOINT_ID,
  eventId: 'evt_9a8b7c6d5e4f3a2b1c0d9e8f',
  event: 'WEBHOOK_TEST',
  status: 'pending',
  origin: 'test',
  attempts: [
    {
      attemptedAt: '2026-11-23T12:00:01.000Z',
      statusCode: null,
      durationMs: 12,
      response: null,
      error: 'getaddrinfo ENOTFOUND gym.example.com',
    },
  ],
  nextAttemptAt: '2026-11-23T12:00:06.000Z',
  createdAt: '2026-11-23T12:00:00.000Z',
  deliveredAt: null,
};

const WEBHOOKS_DESCRIPTION =
  'Each delivery is signed the Standard Webhooks way: headers `webhook-id` (the event id, the same on every ' +
  'retry), `webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of ' +
  '"{id}.{timestamp}.{body}">`, keyed with the base64 part of your `whsec_` secret; two signatures, space ' +
  'separated, during the 24 hours after a rotation). Any 2xx answer within 10 seconds is delivered; otherwise ' +
  'it is retried with exponential backoff and jitter for 3 days (about 5 s, 5 min, 30 min, 2 h, 5 h, then every ' +
  '10 h), and events of one subscription (or one link) are delivered in order. An endpoint whose deliveries ' +
  'fail for 3 days is disabled; re-enable it with `PATCH {"enabled": true}`.';

/** The merchant's webhook endpoints, delivery log and event log: served by the gateway itself. */
export const webhookApi = {
  createWebhookEndpoint: defineOperation({
    method: 'post',
    path: '/api/webhook-endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint',
    description: `${WEBHOOKS_DESCRIPTION} The signing \`secret\` is in this response only.`,
    tags: ['Webhooks'],
    security: 'apiToken',
    requestBody: {
      schema: createWebhookEndpointRequest,
      example: {
        url: 'https://gym.example.com/hooks/payments',
        method: 'PUT',
        auth: { type: 'basic', username: 'payrail', password: 's3cret-of-the-receiver' },
        events: STORY_EVENTS,
        description: 'Accounting system',
      },
    },
    responses: {
      201: {
        description: 'The endpoint, with its signing secret (shown once).',
        schema: createdWebhookEndpointResponse,
        example: { ...endpointExample, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      },
    },
  }),
  listWebhookEndpoints: defineOperation({
    method: 'get',
    path: '/api/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'Your webhook endpoints',
    tags: ['Webhooks'],
    security: 'apiToken',
    responses: {
      200: {
        description: 'Every endpoint, oldest first.',
        schema: webhookEndpointListResponse,
        example: { endpoints: [endpointExample] },
      },
    },
  }),
  rotateWebhookSecret: defineOperation({
    method: 'post',
    path: '/api/webhook-endpoints/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret',
    description:
      'Returns a new secret. For 24 hours deliveries carry two signatures, one with each secret, so the ' +
      'receiver can switch without losing an event.',
    tags: ['Webhooks'],
    security: 'apiToken',
    pathParams: webhookEndpointIdParams,
    parameterExamples: { default: { id: ENDPOINT_ID } },
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    responses: {
      200: {
        description: 'The new secret (shown once) and when the old one stops signing.',
        schema: rotateSecretResponse,
        example: {
          secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
          previousSecretExpiresAt: rotated.previousSecretExpiresAt,
        },
      },
    },
  }),
  testWebhookEndpoint: defineOperation({
    method: 'post',
    path: '/api/webhook-endpoints/{id}/test',
    operationId: 'testWebhookEndpoint',
    summary: 'Send a test event',
    description: 'Queues a `WEBHOOK_TEST` event for this endpoint; its delivery shows in the delivery log.',
    tags: ['Webhooks'],
    security: 'apiToken',
    pathParams: webhookEndpointIdParams,
    parameterExamples: { default: { id: ENDPOINT_ID } },
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    responses: {
      202: {
        description: 'Queued.',
        schema: queuedDeliveryResponse,
        example: { deliveryId: DELIVERY_ID, eventId: 'evt_9a8b7c6d5e4f3a2b1c0d9e8f', status: 'pending' },
      },
    },
  }),
  listWebhookDeliveries: defineOperation({
    method: 'get',
    path: '/api/webhook-deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'The delivery log',
    description:
      'Newest first; each delivery with its attempts (time, status code, duration, first 1 KB of the answer). ' +
      "In the example story the endpoint's receiver (gym.example.com) does not exist: the test event's " +
      'delivery failed once and waits for its retry.',
    tags: ['Webhooks'],
    security: 'apiToken',
    query: listWebhookDeliveriesQuery,
    parameterExamples: { default: { endpointId: ENDPOINT_ID, event: 'WEBHOOK_TEST' } },
    responses: {
      200: {
        description: 'A page of deliveries.',
        schema: webhookDeliveryListResponse,
        example: { deliveries: [deliveryExample], nextCursor: null },
      },
    },
  }),
  retryWebhookDelivery: defineOperation({
    method: 'post',
    path: '/api/webhook-deliveries/{id}/retry',
    operationId: 'retryWebhookDelivery',
    summary: 'Send one delivery again',
    description: 'Queues a new delivery of the same event (same `webhook-id`) to the same endpoint, now.',
    tags: ['Webhooks'],
    security: 'apiToken',
    pathParams: webhookDeliveryIdParams,
    parameterExamples: { default: { id: DELIVERY_ID } },
    errors: ['WEBHOOK_DELIVERY_NOT_FOUND'],
    responses: {
      202: {
        description: 'Queued.',
        schema: queuedDeliveryResponse,
        example: {
          deliveryId: '8f9a0b1c-2d3e-4f50-8a6b-7c8d9e0f1a2b',
          eventId: 'evt_9a8b7c6d5e4f3a2b1c0d9e8f',
          status: 'pending',
        },
      },
    },
  }),
  replayWebhookEvents: defineOperation({
    method: 'post',
    path: '/api/webhook-endpoints/{id}/replay',
    operationId: 'replayWebhookEvents',
    summary: 'Send a time range of events again',
    description:
      'Queues, for this endpoint, every event of the range it subscribes to, in their order (each with its ' +
      'original id).',
    tags: ['Webhooks'],
    security: 'apiToken',
    pathParams: webhookEndpointIdParams,
    parameterExamples: { default: { id: ENDPOINT_ID } },
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    requestBody: {
      schema: replayRequest,
      example: { from: '2026-11-23T00:00:00-03:00', to: '2026-11-24T00:00:00-03:00' },
    },
    responses: {
      202: {
        description: 'Queued.',
        schema: replayResponse,
        example: { replayed: 5 },
      },
    },
  }),
  getWebhookEndpoint: defineOperation({
    method: 'get',
    path: '/api/webhook-endpoints/{id}',
    operationId: 'getWebhookEndpoint',
    summary: 'A webhook endpoint',
    tags: ['Webhooks'],
    security: 'apiToken',
    pathParams: webhookEndpointIdParams,
    parameterExamples: { default: { id: ENDPOINT_ID } },
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    responses: {
      200: {
        description: 'The endpoint.',
        schema: webhookEndpointResponse,
        example: { ...endpointExample, ...rotated },
      },
    },
  }),
  updateWebhookEndpoint: defineOperation({
    method: 'patch',
    path: '/api/webhook-endpoints/{id}',
    operationId: 'updateWebhookEndpoint',
    summary: 'Change a webhook endpoint',
    description:
      'Only the fields given change. `enabled: true` re-enables an endpoint disabled after failing.',
    tags: ['Webhooks'],
    security: 'apiToken',
    pathParams: webhookEndpointIdParams,
    parameterExamples: { default: { id: ENDPOINT_ID } },
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    requestBody: {
      schema: updateWebhookEndpointRequest,
      example: {
        method: 'POST',
        auth: { type: 'header', name: 'X-Receiver-Token', value: 'tok_8d1f6a' },
      },
    },
    responses: {
      200: {
        description: 'The endpoint after the change.',
        schema: webhookEndpointResponse,
        example: {
          ...endpointExample,
          ...rotated,
          method: 'POST',
          auth: { type: 'header', name: 'X-Receiver-Token' },
        },
      },
    },
  }),
  deleteWebhookEndpoint: defineOperation({
    method: 'delete',
    path: '/api/webhook-endpoints/{id}',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description: 'Nothing more is sent to it; its delivery log goes with it.',
    tags: ['Webhooks'],
    security: 'apiToken',
    pathParams: webhookEndpointIdParams,
    parameterExamples: { default: { id: ENDPOINT_ID } },
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    responses: { 204: { description: 'Deleted.' } },
  }),
  listEvents: defineOperation({
    method: 'get',
    path: '/api/events',
    operationId: 'listEvents',
    summary: 'The event log, for polling',
    description:
      'Your events of the last 30 days, oldest first, in the webhook envelope. Keep the `nextCursor` and ask ' +
      'again with `after`: no event is skipped or repeated.',
    tags: ['Webhooks'],
    security: 'apiToken',
    query: listEventsQuery,
    parameterExamples: { default: { type: 'PAYMENT_SUCCESS', limit: 1 } },
    responses: {
      200: {
        description: 'A page of events.',
        schema: eventListResponse,
        example: { events: [envelopeExample], nextCursor: '3', hasMore: true },
      },
    },
  }),
};

const adminEndpointExample = {
  ...endpointExample,
  id: ADMIN_ENDPOINT_ID,
  method: 'POST',
  auth: { type: 'header', name: 'X-Receiver-Token' },
  description: 'Set up by the operator',
};

/** The same endpoints, managed by the operator (`/admin/merchants/{id}/webhook-endpoints`). */
export const adminWebhookApi = {
  adminCreateWebhookEndpoint: defineOperation({
    method: 'post',
    path: '/admin/merchants/{id}/webhook-endpoints',
    operationId: 'adminCreateWebhookEndpoint',
    summary: 'Register a webhook endpoint for a merchant',
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: z.object({ id: z.uuid() }),
    parameterExamples: { default: { id: DEMO_MERCHANT_ID } },
    errors: ['MERCHANT_NOT_FOUND'],
    requestBody: {
      schema: createWebhookEndpointRequest,
      example: {
        url: 'https://gym.example.com/hooks/operator',
        method: 'POST',
        auth: { type: 'header', name: 'X-Receiver-Token', value: 'tok_0p3r4t0r' },
        events: STORY_EVENTS,
        description: 'Set up by the operator',
      },
    },
    responses: {
      201: {
        description: 'The endpoint, with its signing secret (shown once).',
        schema: createdWebhookEndpointResponse,
        example: {
          ...adminEndpointExample,
          url: 'https://gym.example.com/hooks/operator',
          secret: 'whsec_pJ0aF4mO8wG6y2b5CkQ1sHtLnV7rXeZd',
        },
      },
    },
  }),
  adminListWebhookEndpoints: defineOperation({
    method: 'get',
    path: '/admin/merchants/{id}/webhook-endpoints',
    operationId: 'adminListWebhookEndpoints',
    summary: "A merchant's webhook endpoints (disabled ones show why)",
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: z.object({ id: z.uuid() }),
    parameterExamples: { default: { id: DEMO_MERCHANT_ID } },
    errors: ['MERCHANT_NOT_FOUND'],
    responses: {
      200: {
        description: 'Every endpoint of the merchant.',
        schema: webhookEndpointListResponse,
        example: { endpoints: [{ ...adminEndpointExample, url: 'https://gym.example.com/hooks/operator' }] },
      },
    },
  }),
  adminRotateWebhookSecret: defineOperation({
    method: 'post',
    path: '/admin/merchants/{id}/webhook-endpoints/{endpointId}/rotate-secret',
    operationId: 'adminRotateWebhookSecret',
    summary: "Rotate a merchant's webhook signing secret",
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: merchantWebhookEndpointParams,
    parameterExamples: { default: { id: DEMO_MERCHANT_ID, endpointId: ADMIN_ENDPOINT_ID } },
    errors: ['MERCHANT_NOT_FOUND', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
    responses: {
      200: {
        description: 'The new secret (shown once).',
        schema: rotateSecretResponse,
        example: {
          secret: 'whsec_Yb2nQ7tV1cX9mK4pL6sD3fG8hJ0wE5rA',
          previousSecretExpiresAt: rotated.previousSecretExpiresAt,
        },
      },
    },
  }),
  adminTestWebhookEndpoint: defineOperation({
    method: 'post',
    path: '/admin/merchants/{id}/webhook-endpoints/{endpointId}/test',
    operationId: 'adminTestWebhookEndpoint',
    summary: "Send a test event to a merchant's endpoint",
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: merchantWebhookEndpointParams,
    parameterExamples: { default: { id: DEMO_MERCHANT_ID, endpointId: ADMIN_ENDPOINT_ID } },
    errors: ['MERCHANT_NOT_FOUND', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
    responses: {
      202: {
        description: 'Queued.',
        schema: queuedDeliveryResponse,
        example: {
          deliveryId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
          eventId: 'evt_1b2c3d4e5f6a7b8c9d0e1f2a',
          status: 'pending',
        },
      },
    },
  }),
  adminGetWebhookEndpoint: defineOperation({
    method: 'get',
    path: '/admin/merchants/{id}/webhook-endpoints/{endpointId}',
    operationId: 'adminGetWebhookEndpoint',
    summary: "A merchant's webhook endpoint",
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: merchantWebhookEndpointParams,
    parameterExamples: { default: { id: DEMO_MERCHANT_ID, endpointId: ADMIN_ENDPOINT_ID } },
    errors: ['MERCHANT_NOT_FOUND', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
    responses: {
      200: {
        description: 'The endpoint.',
        schema: webhookEndpointResponse,
        example: { ...adminEndpointExample, ...rotated, url: 'https://gym.example.com/hooks/operator' },
      },
    },
  }),
  adminUpdateWebhookEndpoint: defineOperation({
    method: 'patch',
    path: '/admin/merchants/{id}/webhook-endpoints/{endpointId}',
    operationId: 'adminUpdateWebhookEndpoint',
    summary: "Change a merchant's webhook endpoint (re-enable a disabled one)",
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: merchantWebhookEndpointParams,
    parameterExamples: { default: { id: DEMO_MERCHANT_ID, endpointId: ADMIN_ENDPOINT_ID } },
    errors: ['MERCHANT_NOT_FOUND', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
    requestBody: { schema: updateWebhookEndpointRequest, example: { enabled: true } },
    responses: {
      200: {
        description: 'The endpoint after the change.',
        schema: webhookEndpointResponse,
        example: { ...adminEndpointExample, ...rotated, url: 'https://gym.example.com/hooks/operator' },
      },
    },
  }),
  adminDeleteWebhookEndpoint: defineOperation({
    method: 'delete',
    path: '/admin/merchants/{id}/webhook-endpoints/{endpointId}',
    operationId: 'adminDeleteWebhookEndpoint',
    summary: "Delete a merchant's webhook endpoint",
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: merchantWebhookEndpointParams,
    parameterExamples: { default: { id: DEMO_MERCHANT_ID, endpointId: ADMIN_ENDPOINT_ID } },
    errors: ['MERCHANT_NOT_FOUND', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
    responses: { 204: { description: 'Deleted.' } },
  }),
};

/**
 * In document order, which groups operations by path: the operations on an endpoint's sub-paths come
 * before its own path, whose DELETE ends the story.
 */
export const webhookOperations: ApiOperation[] = Object.values(webhookApi) as ApiOperation[];
export const adminWebhookOperations: ApiOperation[] = Object.values(adminWebhookApi) as ApiOperation[];
