import { z } from 'zod';
import { MAX_LENGTH, textRules } from '../text';
import { type ApiOperation, defineOperation } from './operation';
import { offsetDateTime } from './time';

/**
 * E-mails to a merchant's customers (issue 29): links sends them through the mail port, once per event,
 * from an outbox of its own that retries an SMTP failure for 3 days. `X-Payrail-Email-Kind` names the kind.
 */
export const CUSTOMER_EMAIL_KINDS = [
  'receipt',
  'payment-failed',
  'upcoming-debit',
  'card-expiring',
  'past-due',
  'cancelled',
] as const;
export type CustomerEmailKind = (typeof CUSTOMER_EMAIL_KINDS)[number];

/** `pending`: in the outbox (maybe after a failed try); `sent`: the SMTP server took it; `failed`: given up. */
export const CUSTOMER_EMAIL_STATUSES = ['pending', 'sent', 'failed'] as const;
export type CustomerEmailStatus = (typeof CUSTOMER_EMAIL_STATUSES)[number];

/** The days before a debit the reminder goes: 0 turns it off. */
export const UPCOMING_DEBIT_DAYS = { default: 3, max: 30 } as const;

/**
 * The merchant's switches (a merchant setting the operator sets): each kind on or off, and how many days
 * before a debit its reminder goes. Absent (merchants from before issue 29): every kind on, 3 days.
 */
export const customerEmailSettings = z
  .object({
    receipt: z.boolean().default(true),
    paymentFailed: z.boolean().default(true),
    upcomingDebit: z.boolean().default(true),
    cardExpiring: z.boolean().default(true),
    pastDue: z.boolean().default(true),
    cancelled: z.boolean().default(true),
    upcomingDebitDays: z
      .number()
      .int()
      .min(0)
      .max(UPCOMING_DEBIT_DAYS.max)
      .default(UPCOMING_DEBIT_DAYS.default)
      .meta({ description: 'Days before a debit its reminder is sent; 0: no reminder.' }),
  })
  .meta({
    description:
      'Which e-mails your customers get (each on by default) and how many days before a debit the reminder goes.',
  });
export type CustomerEmailSettings = z.infer<typeof customerEmailSettings>;

export const DEFAULT_CUSTOMER_EMAIL_SETTINGS: CustomerEmailSettings = customerEmailSettings.parse({});

/** The setting's switch of each kind. */
export const CUSTOMER_EMAIL_SWITCH: Record<
  CustomerEmailKind,
  Exclude<keyof CustomerEmailSettings, 'upcomingDebitDays'>
> = {
  receipt: 'receipt',
  'payment-failed': 'paymentFailed',
  'upcoming-debit': 'upcomingDebit',
  'card-expiring': 'cardExpiring',
  'past-due': 'pastDue',
  cancelled: 'cancelled',
};

/** The merchant's contact address: the `Reply-To` of its customers' e-mails. */
export const contactEmailField = textRules(
  z.email({ message: 'must be a valid e-mail address' }),
  MAX_LENGTH.email,
).meta({
  description: "Your customers' replies to their e-mails go here (`Reply-To`); null: no reply address.",
});

export const CUSTOMER_EMAIL_PAGE = { default: 25, max: 100 } as const;

export const listCustomerEmailsQuery = z.object({
  kind: z.enum(CUSTOMER_EMAIL_KINDS).optional(),
  status: z.enum(CUSTOMER_EMAIL_STATUSES).optional(),
  customerId: z
    .string()
    .regex(/^\d{1,15}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().positive('must be a positive integer'))
    .optional()
    .meta({ description: 'Only the e-mails to this customer.' }),
  subscriptionId: z
    .string()
    .regex(/^\d{1,15}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().positive('must be a positive integer'))
    .optional()
    .meta({ description: 'Only the e-mails about this subscription.' }),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, `must be an integer from 1 to ${CUSTOMER_EMAIL_PAGE.max}`)
    .transform(Number)
    .pipe(z.number().int().min(1).max(CUSTOMER_EMAIL_PAGE.max))
    .optional()
    .meta({
      description: `Page size, 1 to ${CUSTOMER_EMAIL_PAGE.max} (default ${CUSTOMER_EMAIL_PAGE.default}).`,
    }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a nextCursor of an earlier page')
    .optional()
    .meta({ description: '`nextCursor` of the previous page.' }),
});

export const customerEmailView = z.object({
  id: z.string().meta({ description: 'The e-mail in the outbox.' }),
  kind: z.enum(CUSTOMER_EMAIL_KINDS),
  status: z.enum(CUSTOMER_EMAIL_STATUSES),
  customerId: z.number().int(),
  to: z.string(),
  subject: z.string(),
  language: z.enum(['es', 'en']),
  subscriptionId: z.number().int().nullable(),
  linkId: z.number().int().nullable(),
  attempts: z.number().int().meta({ description: 'SMTP tries so far.' }),
  lastError: z.string().nullable().meta({ description: 'Why the last try failed (no personal data).' }),
  createTime: offsetDateTime,
  sentTime: offsetDateTime.nullable(),
  nextAttemptTime: offsetDateTime
    .nullable()
    .meta({ description: 'When a pending e-mail is tried again; null once sent or failed.' }),
});

export const customerEmailListResponse = z.object({
  emails: z.array(customerEmailView),
  nextCursor: z.string().nullable().meta({
    description: 'Pass as `cursor` (with the same filters) for the next page; null on the last page.',
  }),
});

export const customerEmailApi = {
  listCustomerEmails: defineOperation({
    method: 'get',
    path: '/api/customer-emails',
    operationId: 'listCustomerEmails',
    summary: 'E-mails sent to your customers',
    description:
      'The e-mails your customers were sent or are due to be sent (receipts, failed payments, reminders, ' +
      'card expiry, past due, cancelled), newest first, with how each went: `sent`, `pending` (a failed try ' +
      'is tried again with backoff for 3 days) or `failed`. Filter by `kind`, `status`, `customerId`, ' +
      `\`subscriptionId\`. Paged: at most \`limit\` (default ${CUSTOMER_EMAIL_PAGE.default}); when ` +
      '`nextCursor` is not null, pass it as `cursor` with the same filters.',
    tags: ['Customers'],
    security: 'apiToken',
    query: listCustomerEmailsQuery,
    parameterExamples: { default: { kind: 'payment-failed', limit: '10' } },
    responses: {
      200: {
        description: 'One page of e-mails.',
        schema: customerEmailListResponse,
        example: {
          emails: [
            {
              id: '0193b0c2-7a1e-7c4d-9e2f-3a4b5c6d7e8f',
              kind: 'payment-failed',
              status: 'sent',
              customerId: 2,
              to: 'ana@example.com',
              subject: 'No pudimos cobrar tu cuota de Monthly membership',
              language: 'es',
              subscriptionId: 1,
              linkId: 2,
              attempts: 1,
              lastError: null,
              createTime: '2026-12-05T09:00:02-03:00',
              sentTime: '2026-12-05T09:00:03-03:00',
              nextAttemptTime: null,
            },
          ],
          nextCursor: null,
        },
      },
    },
  }),
};

export const customerEmailOperations: ApiOperation[] = Object.values(customerEmailApi) as ApiOperation[];
