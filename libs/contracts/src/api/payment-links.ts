import { type ApiOperation, defineOperation } from './operation';
import { parseAmount } from '@payrail/money';
import { z } from 'zod';
import { PROCESSORS, type Processor } from '../merchant-context';
import { dayOfMonthSchema, moneyString } from '../rules';
import { calendarDate, MAX_LENGTH, text, textRules } from '../text';
import { PAID_ON_PAY_PAGE, STORY_BASE_URL, STORY_LINKS, STORY_PAYMENTS } from './story';
import { offsetDateTime } from './time';

/** The largest amount a `numeric(18, 2)` column holds, in minor units. */
const MAX_AMOUNT_MINOR = 10n ** 18n - 1n;
/** Ten years: longer validities are surely a mistake, and would overflow date arithmetic long before int4. */
export const MAX_PAY_WAIT_HOURS = 87_600;
/** Fifty years of monthly installments: bounds the schedule a single request can make the system build. */
export const MAX_TOTAL_PERIODS = 600;
export const MAX_MONTH_FOR_SECOND_INSTALLMENT = 120;

/**
 * Payment link `statusId` values. The spec leaves the table open; these are the design's (section 4).
 * Status 5 is still payable: the customer may try again.
 */
export const PAYMENT_LINK_STATUSES = {
  PENDING: 1,
  LAST_ATTEMPT_REJECTED: 5,
  EXPIRED: 6,
  CANCELLED: 7,
  PAID: 200,
} as const;

export const PAYMENT_LINK_STATUS_TABLE = [
  '| statusId | Meaning |',
  '|---|---|',
  '| 1 | Pending: not paid yet, payable |',
  '| 5 | Last payment attempt rejected: still payable |',
  '| 6 | Expired (`payWaitHours` elapsed): no longer payable |',
  '| 7 | Cancelled: no longer payable |',
  '| 200 | Paid |',
  "| 9 | Refunded: only a `PAYMENT_REFUNDED` webhook's `statusId` (money given back); a link itself stays 200 once refunded |",
].join('\n');

const statusId = z.number().int().meta({
  description: `Payment status code: 1 pending, 5 last attempt rejected (still payable), 6 expired, 7 cancelled, 200 paid.`,
});

/** Amounts arrive as JSON numbers (integers from many clients) or decimal strings; at most two decimals. */
export const amountInput = z
  .union([z.number(), text(MAX_LENGTH.amountText)])
  .superRefine((value, ctx) => {
    // Parsed once for all three rules.
    let minor: bigint;
    try {
      minor = parseAmount(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a number with at most two decimals' });
      return;
    }
    if (minor <= 0n) ctx.addIssue({ code: 'custom', message: 'must be greater than 0' });
    else if (minor > MAX_AMOUNT_MINOR) ctx.addIssue({ code: 'custom', message: 'is too large' });
  })
  .meta({
    description:
      'At most two decimals; a PYG amount is a whole number (the guaraní has no decimals): a fraction is refused with 400 naming the field.',
  });

/**
 * `paymentMethods`: the array itself must be an array (else 400), but unknown or invalid values inside it
 * are dropped (spec 2.1 rule 1). `null` counts as absent, like every other optional field.
 */
export const paymentMethodsInput = z
  .array(z.unknown())
  .nullish()
  .transform((values) =>
    values?.filter(
      (v): v is Processor => typeof v === 'string' && (PROCESSORS as readonly string[]).includes(v),
    ),
  );

/**
 * Merchant identifiers are text, but clients in the field send digits, sometimes as a JSON number: a
 * whole number is taken as its digits, wherever an identifier is accepted.
 */
export function identifierOf(max: number) {
  return z.union([text(max), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).transform(String)]);
}
export const identifierText = identifierOf(MAX_LENGTH.customIdentifier);
export const identifierInput = identifierText.nullish();
/** `customIdentifier2` (`custom_identifier2` in v2), with its own maximum. */
export const identifier2Input = identifierOf(MAX_LENGTH.customIdentifier2).nullish();

const httpUrl = textRules(
  z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }),
  MAX_LENGTH.redirectUrl,
);

const STATIC_FIELDS = [
  'installmentAmount',
  'totalPeriods',
  'dayOfMonth',
  'monthForSecondInstallment',
] as const;

/** The fields of spec 2.1 shared by both link-creating endpoints (2.3 takes all of them but `paymentMethods`). */
const linkFields = {
  label: text(MAX_LENGTH.label).trim().min(1),
  amount: amountInput,
  handleValue: text(MAX_LENGTH.handleValue)
    .trim()
    .min(1)
    .meta({ description: 'Customer e-mail or telephone number (free text is accepted).' }),
  handleLabel: text(MAX_LENGTH.handleLabel).trim().min(1),
  customIdentifier: identifierInput,
  customIdentifier2: identifier2Input,
  singlePayment: z.boolean(),
  creditAndDebitCard: z.boolean(),
  // The spec marks it required, but one-off clients in production omit it: absent means false.
  recurrentPayment: z
    .boolean()
    .nullish()
    .transform((value) => value ?? false),
  recurrentPaymentType: z
    .enum(['STATIC', 'DYNAMIC'])
    .nullish()
    .transform((value) => value ?? 'STATIC'),
  installmentAmount: amountInput.nullish(),
  totalPeriods: z
    .number()
    .int()
    .min(1)
    .max(MAX_TOTAL_PERIODS)
    .nullish()
    .meta({
      description:
        `Total installments including the first, 1 to ${MAX_TOTAL_PERIODS}. On a STATIC subscription, \`null\` ` +
        'sent as such makes it open-ended: charged every month until cancelled (`POST ' +
        '/api/subscriptions/cancel-all`), never completed; its next 12 installments always exist, the next ' +
        'month added as each one is paid, failed or cancelled. Absent on a STATIC subscription: 400. Not ' +
        'used by DYNAMIC subscriptions.',
    }),
  dayOfMonth: dayOfMonthSchema.nullish(),
  monthForSecondInstallment: z.number().int().min(0).max(MAX_MONTH_FOR_SECOND_INSTALLMENT).nullish(),
  payWaitHours: z
    .number()
    .int()
    .min(0)
    .max(MAX_PAY_WAIT_HOURS)
    .nullish()
    .meta({ description: 'Validity in hours; 0 or absent: the link never expires.' }),
  redirectUrl: z
    .union([z.literal(''), httpUrl])
    .nullish()
    .meta({
      description: 'Must share the origin of the merchant\'s configured callback URL; `""` means none.',
    }),
  noLoginRequired: z.boolean().nullish(),
  documentNumber: identifierOf(MAX_LENGTH.documentNumber).nullish(),
  /** Not in the spec; real clients send it. Must be a currency the merchant's instance offers (else 422). */
  currency: text(MAX_LENGTH.currency)
    .nullish()
    .meta({ description: "Optional; must be offered by the merchant's instance." }),
};

type LinkShape = z.output<z.ZodObject<typeof linkFields>>;

/**
 * The cross-field rules of spec 2.1. They run even when another field is invalid (`when`), so a client
 * sees every problem of its request at once; hence each rule looks only at values of the right type.
 */
function linkRules(link: LinkShape, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (link.singlePayment === false && link.recurrentPayment === false) {
    issue('singlePayment', 'singlePayment or recurrentPayment must be true');
  }
  if (link.recurrentPayment === true && link.creditAndDebitCard === false) {
    issue('creditAndDebitCard', 'must be true for recurring payments');
  }
  if (link.recurrentPayment === true && link.recurrentPaymentType === 'STATIC') {
    for (const field of STATIC_FIELDS) {
      // `totalPeriods: null`, sent as such, is an open-ended plan (every month until cancelled); absent, it
      // is missing like the others.
      const value = link[field];
      const missing = value === undefined || (value === null && field !== 'totalPeriods');
      if (missing) {
        issue(
          field,
          field === 'totalPeriods'
            ? 'required when recurrentPayment is true and recurrentPaymentType is STATIC (null: every month until cancelled)'
            : 'required when recurrentPayment is true and recurrentPaymentType is STATIC',
        );
      }
    }
  }
  if (
    link.noLoginRequired === true &&
    (link.documentNumber === undefined || link.documentNumber === null || link.documentNumber === '')
  ) {
    issue('documentNumber', 'required when noLoginRequired is true');
  }
}

const runOnObjects = {
  when: (payload: { value: unknown }) => typeof payload.value === 'object' && payload.value !== null,
};

/** The request of `POST /api/saleitems/add` (spec 2.1), liberal where real clients are (design 5). */
export const createPaymentLinkRequest = z
  .object({ ...linkFields, paymentMethods: paymentMethodsInput })
  .superRefine(linkRules, runOnObjects);

export type CreatePaymentLinkRequest = z.infer<typeof createPaymentLinkRequest>;

/** The request of `POST /api/ext-app/payrequests/signed-in-user` (spec 2.3): 2.1 without `paymentMethods`. */
export const signedInUserLinkRequest = z
  .object({
    ...linkFields,
    signedInUser: z.object({
      email: textRules(z.email({ message: 'must be a valid e-mail address' }), MAX_LENGTH.email),
      firstName: text(MAX_LENGTH.personName).trim().min(1),
      lastName: text(MAX_LENGTH.personName).trim().min(1),
    }),
  })
  .superRefine(linkRules, runOnObjects);

export type SignedInUserLinkRequest = z.infer<typeof signedInUserLinkRequest>;

const moneyOut = moneyString;
const localDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
  .meta({ description: "`yyyy-MM-dd HH:mm:ss` in the merchant's time zone" });

/** The response of `POST /api/saleitems/add` (spec 2.2; `ammount` is spelled with two m's). */
export const createPaymentLinkResponse = z.object({
  id: z.number().int().meta({ description: 'Payment ticket number (increasing).' }),
  currency: z.string(),
  ammount: moneyOut.meta({
    description: 'Payment amount, 2 decimals (spelled with two m’s, as in the spec).',
  }),
  statusId,
  slug: z.string(),
  publicPayUrl: z.url(),
});

/** The response of `POST /api/ext-app/payrequests/signed-in-user` (spec 2.3). */
export const signedInUserLinkResponse = z.object({
  id: z.number().int(),
  currency: z.string(),
  amount: moneyOut,
  expireTime: localDateTime
    .nullable()
    .meta({ description: 'Expiry in the merchant’s time zone; null: never.' }),
  statusId,
  slug: z.string(),
  publicPayUrl: z.url().meta({
    description: 'Carries a single-use, expiring login code: opening it starts the session of that user.',
  }),
  userId: z.number().int(),
});

/** Who paid a link on its pay page: the service user (`GET /api/customers/{id}`) as they were then. */
export const linkPayer = z.object({
  userId: z.number().int().meta({ description: 'The service user (`GET /api/customers/{userId}`).' }),
  email: z.string().nullable().meta({ description: 'Their e-mail; null for a customer known by document.' }),
  documentNumber: z
    .string()
    .nullable()
    .meta({ description: 'The document number confirmed on a no-login link; else null.' }),
  firstName: z.string().meta({ description: 'Empty when never given (a customer known by document).' }),
  lastName: z.string().meta({ description: 'Empty when never given (a customer known by document).' }),
});

/**
 * What paid a link (issue 27). On a link not paid (any `statusId` but 200) every one of these is null: a
 * client that stores them keeps nullable columns, or reads `paid` first.
 */
const linkPaymentFields = {
  paymentId: z
    .uuid()
    .nullable()
    .meta({
      description:
        'The payment (`GET /api/payments/{id}`): the `txId` its webhooks carry. Null until the link is paid ' +
        '(and for a link paid by bank transfer before payments were recorded with it).',
    }),
  paidAt: offsetDateTime
    .nullable()
    .meta({ description: "When it was paid, with your time zone's offset; null until it is." }),
  method: z.enum(['CARD', 'BANK_TRANSFER']).nullable().meta({
    description:
      'How it was paid: by card on the pay page, or by a bank transfer you notified; null until it is.',
  }),
  processor: z
    .enum(PROCESSORS)
    .nullable()
    .meta({ description: 'A card payment: the processor that took it; else null.' }),
  cardBrand: z
    .string()
    .nullable()
    .meta({ description: "A card payment: the card's brand when known; else null." }),
  cardLast4: z
    .string()
    .nullable()
    .meta({ description: "A card payment: the card's last 4 digits when known (never more); else null." }),
  paidBy: linkPayer.nullable().meta({
    description:
      'A card payment: the customer who paid on the pay page; null for a bank transfer and until paid.',
  }),
};

/** The response of `GET /api/payrequests/{id}`. */
export const paymentLinkDetails = z.object({
  id: z.number().int(),
  statusId,
  paid: z.boolean(),
  currency: z.string(),
  amount: moneyOut,
  refundedAmount: moneyOut.meta({
    description:
      "What was given back of the link's payment (`POST /api/payments/{id}/refunds`, refunds that succeeded); " +
      '`"0.00"` when nothing was. A refunded link stays paid (`statusId` 200).',
  }),
  label: z.string().max(MAX_LENGTH.label),
  handleValue: z.string().max(MAX_LENGTH.handleValue),
  handleLabel: z.string().max(MAX_LENGTH.handleLabel),
  customIdentifier: z.string().max(MAX_LENGTH.customIdentifier).nullable(),
  customIdentifier2: z.string().max(MAX_LENGTH.customIdentifier2).nullable(),
  createTime: offsetDateTime,
  expireTime: offsetDateTime.nullable().meta({ description: 'Null: the link never expires.' }),
  slug: z.string(),
  publicPayUrl: z.url(),
  singlePayment: z.boolean(),
  creditAndDebitCard: z.boolean(),
  paymentMethods: z.array(z.enum(PROCESSORS)),
  recurrentPayment: z.boolean(),
  recurrentPaymentType: z.enum(['STATIC', 'DYNAMIC']).nullable(),
  installmentAmount: moneyOut
    .nullable()
    .meta({ description: 'STATIC subscriptions: amount from the 2nd installment on.' }),
  totalPeriods: z.number().int().nullable(),
  dayOfMonth: z.number().int().nullable(),
  monthForSecondInstallment: z.number().int().nullable(),
  ...linkPaymentFields,
});

export type PaymentLinkDetails = z.infer<typeof paymentLinkDetails>;

export const paymentLinkIdParams = z.object({
  id: z
    .string()
    .regex(/^\d{1,15}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().positive('must be a positive integer'))
    .meta({ description: 'Payment ticket number (`id` of the creation response).' }),
});

/** The names `status` filters by, and the `statusId` each stands for. */
export const PAYMENT_LINK_STATUS_NAMES = {
  pending: PAYMENT_LINK_STATUSES.PENDING,
  rejected: PAYMENT_LINK_STATUSES.LAST_ATTEMPT_REJECTED,
  expired: PAYMENT_LINK_STATUSES.EXPIRED,
  cancelled: PAYMENT_LINK_STATUSES.CANCELLED,
  paid: PAYMENT_LINK_STATUSES.PAID,
} as const;
export type PaymentLinkStatusName = keyof typeof PAYMENT_LINK_STATUS_NAMES;

export const PAYMENT_LINK_PAGE = { default: 20, max: 100 } as const;

/** `GET /api/payrequests`: every filter optional; dates are calendar days in the merchant's time zone. */
export const listPaymentLinksQuery = z.object({
  status: z
    .enum(Object.keys(PAYMENT_LINK_STATUS_NAMES) as [PaymentLinkStatusName, ...PaymentLinkStatusName[]])
    .optional()
    .meta({
      description:
        'pending (statusId 1), rejected (5), expired (6), cancelled (7) or paid (200); a payable link past ' +
        'its expiry counts as expired.',
    }),
  customIdentifier: text(MAX_LENGTH.customIdentifier).min(1).optional(),
  q: text(MAX_LENGTH.label)
    .trim()
    .min(1)
    .optional()
    .meta({
      description:
        'Text found (whatever its case) in the label, the customer (`handleLabel`, `handleValue`) or either ' +
        'identifier.',
    }),
  createdFrom: calendarDate
    .optional()
    .meta({ description: "Created on this day or later (the merchant's time zone), `yyyy-MM-dd`." }),
  createdTo: calendarDate
    .optional()
    .meta({ description: "Created on this day or earlier (the merchant's time zone), `yyyy-MM-dd`." }),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, `must be an integer from 1 to ${PAYMENT_LINK_PAGE.max}`)
    .transform(Number)
    .pipe(z.number().int().min(1).max(PAYMENT_LINK_PAGE.max))
    .optional()
    .meta({
      description: `Page size, 1 to ${PAYMENT_LINK_PAGE.max} (default ${PAYMENT_LINK_PAGE.default}).`,
    }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a nextCursor of an earlier page')
    .optional()
    .meta({ description: '`nextCursor` of the previous page.' }),
});

/** The response of `GET /api/payrequests/summary`: how many links are in each status now. */
export const paymentLinkSummaryResponse = z.object({
  counts: z
    .object({
      pending: z.number().int(),
      rejected: z.number().int(),
      expired: z.number().int(),
      cancelled: z.number().int(),
      paid: z.number().int(),
    })
    .meta({
      description: 'As `GET /api/payrequests?status=` finds them: a payable link past its expiry is expired.',
    }),
});

/** The response of `GET /api/payrequests`: one page, newest first. */
export const paymentLinkListResponse = z.object({
  payRequests: z.array(paymentLinkDetails),
  nextCursor: z
    .string()
    .nullable()
    .meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
});

// The examples are one story for the demo merchant of a fresh `npm start` (SaaS contract, no-login links
// enabled, callback URL on https://shop.example.com), on 2026-11-23 (`./story.ts`): links 1 to 5 are made
// here, and the subscription examples continue with them.

const oneOffExample = {
  label: 'Gym membership',
  amount: 150000,
  handleValue: 'ana@example.com',
  handleLabel: 'Ana Gómez',
  customIdentifier: 'ORDER-5521',
  singlePayment: true,
  creditAndDebitCard: true,
  recurrentPayment: false,
  payWaitHours: 48,
};

const staticSubscriptionExample = {
  label: 'Monthly membership',
  amount: 200000,
  handleValue: '+595981123456',
  handleLabel: 'Ana Gómez',
  customIdentifier: '4567890',
  customIdentifier2: 'CONTRACT-2026-117',
  singlePayment: false,
  creditAndDebitCard: true,
  recurrentPayment: true,
  recurrentPaymentType: 'STATIC',
  installmentAmount: 150000,
  totalPeriods: 12,
  dayOfMonth: 5,
  monthForSecondInstallment: 1,
  payWaitHours: 0,
  redirectUrl: 'https://shop.example.com/payments/done?order=117',
  noLoginRequired: true,
  documentNumber: '4567890',
  paymentMethods: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
};

const dynamicSubscriptionExample = {
  label: 'Accounting software',
  amount: 87500,
  handleValue: 'billing@ferreteria.example.com',
  handleLabel: 'Ferretería Central',
  customIdentifier: 4567891,
  customIdentifier2: 'CONTRACT-2026-118',
  singlePayment: false,
  creditAndDebitCard: true,
  recurrentPayment: true,
  recurrentPaymentType: 'DYNAMIC',
  noLoginRequired: true,
  documentNumber: '4567891',
};

const noIdentifierSubscriptionExample = {
  label: 'Language course',
  amount: 50000,
  handleValue: 'luis@example.com',
  handleLabel: 'Luis Benítez',
  singlePayment: false,
  creditAndDebitCard: true,
  recurrentPayment: true,
  installmentAmount: 50000,
  totalPeriods: 3,
  dayOfMonth: 10,
  monthForSecondInstallment: 1,
};

const signedInUserExample = {
  label: 'Invoice 2026-11',
  amount: 99000,
  handleValue: 'ana@example.com',
  handleLabel: 'Ana Gómez',
  customIdentifier: 'CUST-881',
  singlePayment: true,
  creditAndDebitCard: true,
  recurrentPayment: false,
  payWaitHours: 24,
  signedInUser: { email: 'ana@example.com', firstName: 'Ana', lastName: 'Gómez' },
};

/** The payment fields of a link not paid. */
export const UNPAID = {
  paymentId: null,
  paidAt: null,
  method: null,
  processor: null,
  cardBrand: null,
  cardLast4: null,
  paidBy: null,
} as const;

/** Link 2 as the customer with document 4567890 paid it on the pay page (PROCESSOR_A, the test Visa). */
export const MEMBERSHIP_PAYMENT = {
  paymentId: STORY_PAYMENTS.membershipCard,
  paidAt: '2026-11-23T09:04:20-03:00',
  method: 'CARD',
  processor: 'PARAGUAY.PROCESSOR_A',
  cardBrand: 'Visa',
  cardLast4: '4242',
  paidBy: { userId: 2, email: null, documentNumber: '4567890', firstName: '', lastName: '' },
} as const;

const createdLink = (id: number, amount: string, slug: string) => ({
  id,
  currency: 'PYG',
  ammount: amount,
  statusId: 1,
  slug,
  publicPayUrl: `${STORY_BASE_URL}/pay/${slug}`,
});

/** Link 1 of the story as `GET /api/payrequests` finds it, before the bank transfer pays it. */
const oneOffDetails = {
  id: STORY_LINKS.oneOff,
  statusId: 1,
  paid: false,
  currency: 'PYG',
  amount: '150000.00',
  refundedAmount: '0.00',
  label: 'Gym membership',
  handleValue: 'ana@example.com',
  handleLabel: 'Ana Gómez',
  customIdentifier: 'ORDER-5521',
  customIdentifier2: null,
  createTime: '2026-11-23T09:00:00-03:00',
  expireTime: '2026-11-25T09:00:00-03:00',
  slug: 'q3JpVx0b7sX0cM2kTt9hWw',
  publicPayUrl: `${STORY_BASE_URL}/pay/q3JpVx0b7sX0cM2kTt9hWw`,
  singlePayment: true,
  creditAndDebitCard: true,
  paymentMethods: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
  recurrentPayment: false,
  recurrentPaymentType: null,
  installmentAmount: null,
  totalPeriods: null,
  dayOfMonth: null,
  monthForSecondInstallment: null,
  ...UNPAID,
};

const statusNote = `\n\nStatus codes (\`statusId\`):\n\n${PAYMENT_LINK_STATUS_TABLE}`;

const LINK_RULE_ERRORS = [
  'NO_LOGIN_NOT_ENABLED',
  'SAAS_CONTRACT_REQUIRED',
  'CALLBACK_URL_NOT_CONFIGURED',
  'REDIRECT_ORIGIN_MISMATCH',
  'CURRENCY_NOT_OFFERED',
] as const;

/** Generating links (single payments and subscriptions) and reading them back. */
export const paymentLinkApi = {
  createPaymentLink: defineOperation({
    method: 'post',
    path: '/api/saleitems/add',
    operationId: 'createPaymentLink',
    summary: 'Generate a payment link (single payment or subscription)',
    description:
      'A link for one payment, or the first payment of a subscription: a recurrent link makes a subscription, ' +
      'found afterwards by its identifiers or by the link `id` (`payRequestId`). Unknown values inside ' +
      '`paymentMethods` are ignored; when none remains, or the field is absent, every processor of the ' +
      'merchant is enabled. `recurrentPayment` absent means false. `customIdentifier` and ' +
      '`customIdentifier2` may be sent as JSON numbers. 422 when your account does not allow the request: ' +
      '`noLoginRequired` not enabled, `DYNAMIC` without a SaaS contract, `redirectUrl` without a configured ' +
      'callback URL or on another origin, a currency your instance does not offer.' +
      statusNote,
    tags: ['Payment links'],
    security: 'apiToken',
    errors: LINK_RULE_ERRORS,
    requestBody: {
      schema: createPaymentLinkRequest,
      example: oneOffExample,
      examples: {
        oneOff: { summary: 'Single payment, valid for 48 hours', value: oneOffExample },
        staticSubscription: {
          summary:
            'STATIC subscription: enrolment fee, then 11 monthly installments; the customer pays without an account, by document number',
          value: staticSubscriptionExample,
        },
        dynamicSubscription: {
          summary:
            'DYNAMIC subscription (SaaS contract only), identifier sent as a number; paid without an account',
          value: dynamicSubscriptionExample,
        },
        subscriptionWithoutIdentifiers: {
          summary: 'STATIC subscription without identifiers: found later by the link id',
          value: noIdentifierSubscriptionExample,
        },
      },
    },
    responses: {
      200: {
        description: 'The link was created.',
        schema: createPaymentLinkResponse,
        example: createdLink(STORY_LINKS.oneOff, '150000.00', 'q3JpVx0b7sX0cM2kTt9hWw'),
        examples: {
          oneOff: {
            summary: 'Link 1',
            value: createdLink(STORY_LINKS.oneOff, '150000.00', 'q3JpVx0b7sX0cM2kTt9hWw'),
          },
          staticSubscription: {
            summary: 'Link 2: subscription 1 follows (installments 1 to 12)',
            value: createdLink(STORY_LINKS.membership, '200000.00', 'Zp8rT2mQw4XbK1sLd9VfYg'),
          },
          dynamicSubscription: {
            summary: 'Link 3: subscription 2 follows (installment 13)',
            value: createdLink(STORY_LINKS.software, '87500.00', 'Hc5nE0uJr7WqA3tPz6MkDs'),
          },
          subscriptionWithoutIdentifiers: {
            summary: 'Link 4: subscription 3 follows (installments 14 to 16)',
            value: createdLink(STORY_LINKS.course, '50000.00', 'Lm2gY9dFh4NbV8cXq1RsTe'),
          },
        },
      },
    },
  }),
  createSignedInUserPaymentLink: defineOperation({
    method: 'post',
    path: '/api/ext-app/payrequests/signed-in-user',
    operationId: 'createSignedInUserPaymentLink',
    summary: 'Generate a payment link for a user already signed in at the merchant (SaaS contract only)',
    description:
      'The fields of `POST /api/saleitems/add` except `paymentMethods`, plus `signedInUser`. The user is found ' +
      'by e-mail (case-insensitive) or created and activated; `publicPayUrl` carries a single-use login code ' +
      'that expires with the link (at most 24 hours). `expireTime` is `yyyy-MM-dd HH:mm:ss` in your time ' +
      'zone. 422 SAAS_CONTRACT_REQUIRED without a SaaS contract.' +
      statusNote,
    tags: ['Payment links'],
    security: 'apiToken',
    errors: LINK_RULE_ERRORS,
    requestBody: { schema: signedInUserLinkRequest, example: signedInUserExample },
    responses: {
      200: {
        description: 'The link was created.',
        schema: signedInUserLinkResponse,
        example: {
          id: STORY_LINKS.invoice,
          currency: 'PYG',
          amount: '99000.00',
          expireTime: '2026-11-24 09:00:00',
          statusId: 1,
          slug: 'Vd2y0nQd8M4lq0cX3JbR9g',
          publicPayUrl: `${STORY_BASE_URL}/pay/Vd2y0nQd8M4lq0cX3JbR9g?login=2tq1Xb0M5yJk3b0PZ9w7rVd8Qn4sLc1E6hA0uF2gT3I`,
          userId: 1,
        },
      },
    },
  }),
  getPaymentLinkSummary: defineOperation({
    method: 'get',
    path: '/api/payrequests/summary',
    operationId: 'getPaymentLinkSummary',
    summary: 'How many links are in each status',
    description:
      "Counts of the merchant's links by status as they are now (the console's home shows them). In the " +
      'example story the five links are made and none is paid yet.' +
      statusNote,
    tags: ['Payment links'],
    security: 'apiToken',
    responses: {
      200: {
        description: 'The counts.',
        schema: paymentLinkSummaryResponse,
        example: { counts: { pending: 5, rejected: 0, expired: 0, cancelled: 0, paid: 0 } },
      },
    },
  }),
  getPaymentLink: defineOperation({
    method: 'get',
    path: '/api/payrequests/{id}',
    operationId: 'getPaymentLink',
    summary: 'Retrieve a payment link',
    description: `The link's current state; another merchant's link is 404.${statusNote}`,
    tags: ['Payment links'],
    security: 'apiToken',
    pathParams: paymentLinkIdParams,
    parameterExamples: { default: { id: String(STORY_LINKS.membership) } },
    storyPaysFirst: PAID_ON_PAY_PAGE,
    errors: ['PAYMENT_LINK_NOT_FOUND'],
    responses: {
      200: {
        description: 'The payment link.',
        schema: paymentLinkDetails,
        example: {
          id: STORY_LINKS.membership,
          statusId: 200,
          paid: true,
          currency: 'PYG',
          amount: '200000.00',
          refundedAmount: '0.00',
          label: 'Monthly membership',
          handleValue: '+595981123456',
          handleLabel: 'Ana Gómez',
          customIdentifier: '4567890',
          customIdentifier2: 'CONTRACT-2026-117',
          createTime: '2026-11-23T09:00:00-03:00',
          expireTime: null,
          slug: 'Zp8rT2mQw4XbK1sLd9VfYg',
          publicPayUrl: `${STORY_BASE_URL}/pay/Zp8rT2mQw4XbK1sLd9VfYg`,
          singlePayment: false,
          creditAndDebitCard: true,
          paymentMethods: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
          recurrentPayment: true,
          recurrentPaymentType: 'STATIC',
          installmentAmount: '150000.00',
          totalPeriods: 12,
          dayOfMonth: 5,
          monthForSecondInstallment: 1,
          ...MEMBERSHIP_PAYMENT,
        },
      },
    },
  }),
  listPaymentLinks: defineOperation({
    method: 'get',
    path: '/api/payrequests',
    operationId: 'listPaymentLinks',
    summary: 'Find payment links',
    description:
      'The merchant’s links, newest first, filtered by any of `status`, `customIdentifier`, `q` (text in the ' +
      'label, the customer or an identifier) and the day of ' +
      "creation in the merchant's time zone (`createdFrom`, `createdTo`, both inclusive); every link when " +
      `none is given. Paged: at most \`limit\` per page (default ${PAYMENT_LINK_PAGE.default}, at most ` +
      `${PAYMENT_LINK_PAGE.max}); when \`nextCursor\` is not null, pass it as \`cursor\` (with the same ` +
      'filters) for the next page. Each item is what `GET /api/payrequests/{id}` answers.' +
      statusNote,
    tags: ['Payment links'],
    security: 'apiToken',
    query: listPaymentLinksQuery,
    parameterExamples: { default: { status: 'pending', customIdentifier: 'ORDER-5521' } },
    responses: {
      200: {
        description: 'One page of payment links.',
        schema: paymentLinkListResponse,
        example: { payRequests: [oneOffDetails], nextCursor: null },
      },
    },
  }),
  cancelPaymentLink: defineOperation({
    method: 'post',
    path: '/api/payrequests/{id}/cancel',
    operationId: 'cancelPaymentLink',
    summary: 'Cancel a payment link',
    description:
      'A link still payable (`statusId` 1 pending, or 5 last attempt rejected) becomes cancelled (7): its ' +
      'page offers nothing to pay any more. A paid, expired or already cancelled link is 409 and stays as ' +
      "it was; another merchant's link is 404. A recurrent link's subscription is not changed by this; " +
      'cancel it with `POST /api/subscriptions/cancel-all` (which also cancels a link still unpaid).' +
      statusNote,
    tags: ['Payment links'],
    security: 'apiToken',
    pathParams: paymentLinkIdParams,
    parameterExamples: { default: { id: String(STORY_LINKS.invoice) } },
    errors: [
      'PAYMENT_LINK_NOT_FOUND',
      'PAYMENT_LINK_ALREADY_PAID',
      'PAYMENT_LINK_CANCELLED',
      'PAYMENT_LINK_EXPIRED',
    ],
    responses: {
      200: {
        description: 'The link, cancelled.',
        schema: paymentLinkDetails,
        example: {
          id: STORY_LINKS.invoice,
          statusId: 7,
          paid: false,
          currency: 'PYG',
          amount: '99000.00',
          refundedAmount: '0.00',
          label: 'Invoice 2026-11',
          handleValue: 'ana@example.com',
          handleLabel: 'Ana Gómez',
          customIdentifier: 'CUST-881',
          customIdentifier2: null,
          createTime: '2026-11-23T09:00:00-03:00',
          expireTime: '2026-11-24T09:00:00-03:00',
          slug: 'Vd2y0nQd8M4lq0cX3JbR9g',
          publicPayUrl: `${STORY_BASE_URL}/pay/Vd2y0nQd8M4lq0cX3JbR9g`,
          singlePayment: true,
          creditAndDebitCard: true,
          paymentMethods: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
          recurrentPayment: false,
          recurrentPaymentType: null,
          installmentAmount: null,
          totalPeriods: null,
          dayOfMonth: null,
          monthForSecondInstallment: null,
          ...UNPAID,
        },
      },
    },
  }),
};

/** In document order. */
export const paymentLinkOperations: ApiOperation[] = Object.values(paymentLinkApi) as ApiOperation[];
