import { z } from 'zod';
import { CURRENCIES, INSTANCES, PROCESSORS } from '../merchant-context';
import { contactEmailField, DEFAULT_CUSTOMER_EMAIL_SETTINGS, customerEmailSettings } from './customer-emails';
import { MAX_LENGTH, text, textRules } from '../text';
import { type ApiOperation, defineOperation } from './operation';
import { DEMO_MERCHANT_ID } from './story';

/** Spec 2.5: what each instance offers, its default first. */
export const INSTANCE_CURRENCIES = {
  NATIONAL: ['PYG'],
  INTERNATIONAL: ['USD', 'EUR'],
} as const satisfies Record<(typeof INSTANCES)[number], ReadonlyArray<(typeof CURRENCIES)[number]>>;

/**
 * A merchant's time zone when it names none (Paraguay's); the pay page also reads dates in it where the
 * merchant's settings are not known (they always are after a link).
 */
export const DEFAULT_TIMEZONE = 'America/Asuncion';

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const timezone = text(MAX_LENGTH.timezone)
  .refine(isTimeZone, 'must be an IANA time zone such as America/Asuncion')
  .meta({ description: 'IANA time zone: link expiry and installment dates are in it.' });

const callbackUrl = textRules(
  z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }),
  MAX_LENGTH.url,
).meta({ description: "Enables `redirectUrl` on links; a link's `redirectUrl` must share its origin." });

const processors = z
  .array(z.enum(PROCESSORS))
  .min(1)
  .transform((values) => [...new Set(values)]);

/** The settings an operator sets; `instance` fixes which currencies are possible. */
const settingsFields = {
  name: text(MAX_LENGTH.merchantName).trim().min(1),
  instance: z.enum(INSTANCES),
  currency: z.enum(CURRENCIES),
  saasContract: z.boolean(),
  noLoginEnabled: z.boolean(),
  customerCancelAllowed: z.boolean().meta({
    description:
      'The paying customer may cancel their own subscription on their page (`/pay/account`); off by default.',
  }),
  callbackUrl: callbackUrl.nullable(),
  timezone,
  processors,
  customerEmails: customerEmailSettings,
  contactEmail: contactEmailField.nullable(),
};

export const createMerchantRequest = z.object({
  name: settingsFields.name,
  instance: settingsFields.instance,
  currency: settingsFields.currency
    .optional()
    .meta({ description: 'NATIONAL: PYG; INTERNATIONAL: USD (default) or EUR.' }),
  saasContract: z.boolean().default(false),
  noLoginEnabled: z.boolean().default(false),
  customerCancelAllowed: z.boolean().default(false),
  callbackUrl: callbackUrl.nullish(),
  timezone: timezone.default(DEFAULT_TIMEZONE),
  processors: processors.optional().meta({ description: 'Default: both processors.' }),
  customerEmails: customerEmailSettings
    .optional()
    .meta({ description: 'Default: every e-mail on, reminders 3 days before.' }),
  contactEmail: contactEmailField.nullish(),
});

export type CreateMerchantRequest = z.infer<typeof createMerchantRequest>;

/** Every field optional; `callbackUrl: null` removes it. The merged settings are checked as a whole. */
export const updateMerchantRequest = z.object({
  name: settingsFields.name.optional(),
  instance: settingsFields.instance.optional(),
  currency: settingsFields.currency.optional(),
  saasContract: z.boolean().optional(),
  noLoginEnabled: z.boolean().optional(),
  customerCancelAllowed: z.boolean().optional(),
  callbackUrl: callbackUrl.nullable().optional(),
  timezone: timezone.optional(),
  processors: processors.optional(),
  customerEmails: customerEmailSettings.optional(),
  contactEmail: contactEmailField.nullable().optional(),
});

export type UpdateMerchantRequest = z.infer<typeof updateMerchantRequest>;

const apiTokenSummary = z.object({
  tokenId: z.uuid(),
  createdAt: z.iso.datetime({ offset: true }),
  revokedAt: z.iso.datetime({ offset: true }).nullable(),
});

export const merchantResponse = z.object({
  id: z.uuid(),
  ...settingsFields,
  processors: z.array(z.enum(PROCESSORS)),
  createdAt: z.iso.datetime({ offset: true }),
  updatedAt: z.iso.datetime({ offset: true }),
  tokens: z.array(apiTokenSummary).meta({ description: 'Issued tokens (never the token itself).' }),
});

export const MERCHANT_PAGE = { default: 25, max: 100 } as const;

export const listMerchantsQuery = z.object({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, `must be an integer from 1 to ${MERCHANT_PAGE.max}`)
    .transform(Number)
    .pipe(z.number().int().min(1).max(MERCHANT_PAGE.max))
    .optional()
    .meta({ description: `Page size, 1 to ${MERCHANT_PAGE.max} (default ${MERCHANT_PAGE.default}).` }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be a nextCursor of an earlier page')
    .optional()
    .meta({ description: '`nextCursor` of the previous page.' }),
});

/** A merchant in the operator's list: its settings, without its tokens. */
export const merchantSummary = merchantResponse.omit({ tokens: true });

export const merchantListResponse = z.object({
  merchants: z.array(merchantSummary),
  nextCursor: z
    .string()
    .nullable()
    .meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
});

/** `GET /api/merchant`: the merchant's own settings, as the operator set them (read only). */
export const merchantProfileResponse = z.object({
  id: z.uuid(),
  ...settingsFields,
  processors: z.array(z.enum(PROCESSORS)),
});

export const createMerchantResponse = merchantResponse.extend({
  tokenId: z.uuid(),
  apiToken: z.uuid().meta({ description: 'The `Api-Token`: shown this once, stored only as a hash.' }),
});

export const issueTokenResponse = z.object({
  tokenId: z.uuid(),
  apiToken: z.uuid().meta({ description: 'Shown this once, stored only as a hash.' }),
  createdAt: z.iso.datetime({ offset: true }),
});

export const merchantIdParams = z.object({ id: z.uuid() });
export const merchantTokenParams = z.object({ id: z.uuid(), tokenId: z.uuid() });

const merchantExample = {
  id: '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10',
  name: 'Gym Asunción',
  instance: 'NATIONAL',
  currency: 'PYG',
  saasContract: false,
  noLoginEnabled: false,
  customerCancelAllowed: false,
  callbackUrl: 'https://gym.example.com/payments/callback',
  timezone: 'America/Asuncion',
  processors: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
  customerEmails: { ...DEFAULT_CUSTOMER_EMAIL_SETTINGS, upcomingDebitDays: 5 },
  contactEmail: 'hola@gym.example.com',
  createdAt: '2026-11-22T12:00:00.000Z',
  updatedAt: '2026-11-22T12:00:00.000Z',
  tokens: [
    {
      tokenId: '6a1d0f57-31c4-4d5e-8f0a-5e2b9c7d1a34',
      createdAt: '2026-11-22T12:00:00.000Z',
      revokedAt: null,
    },
  ],
};

/** The token of the `issueApiToken` example, revoked by the `revokeApiToken` one. */
const ISSUED_TOKEN_ID = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';

/** The operator API on the gateway (`/admin/*`, `Authorization: Bearer <ADMIN_TOKEN>`). */
export const adminApi = {
  createMerchant: defineOperation({
    method: 'post',
    path: '/admin/merchants',
    operationId: 'createMerchant',
    summary: 'Create a merchant and its first API token',
    description:
      'NATIONAL instances use PYG; INTERNATIONAL ones USD (default) or EUR. The time zone defaults to ' +
      'America/Asuncion and the processors to both. The `apiToken` is returned once and stored only as a hash.',
    tags: ['Operator'],
    security: 'adminToken',
    requestBody: {
      schema: createMerchantRequest,
      example: {
        name: 'Gym Asunción',
        instance: 'NATIONAL',
        saasContract: false,
        noLoginEnabled: false,
        customerCancelAllowed: false,
        callbackUrl: 'https://gym.example.com/payments/callback',
      },
    },
    responses: {
      201: {
        description: 'The merchant, with its first token.',
        schema: createMerchantResponse,
        example: {
          ...merchantExample,
          tokenId: '6a1d0f57-31c4-4d5e-8f0a-5e2b9c7d1a34',
          apiToken: '3f2a9c4e-7b1d-4e8a-9c0f-1d2e3f4a5b6c',
        },
      },
    },
  }),
  listMerchants: defineOperation({
    method: 'get',
    path: '/admin/merchants',
    operationId: 'listMerchants',
    summary: 'List the merchants',
    description:
      'Every merchant, newest first, with its settings (its tokens at `GET /admin/merchants/{id}`). Paged: ' +
      `at most \`limit\` per page (default ${MERCHANT_PAGE.default}); when \`nextCursor\` is not null, pass it as ` +
      '`cursor` for the next page. In the example story: the merchant just created, then the demo merchant.',
    tags: ['Operator'],
    security: 'adminToken',
    query: listMerchantsQuery,
    parameterExamples: { default: { limit: '2' } },
    responses: {
      200: {
        description: 'One page of merchants.',
        schema: merchantListResponse,
        example: {
          merchants: [
            (({ tokens: _tokens, ...settings }) => settings)(merchantExample),
            {
              id: DEMO_MERCHANT_ID,
              name: 'Demo merchant',
              instance: 'NATIONAL',
              currency: 'PYG',
              saasContract: true,
              noLoginEnabled: true,
              customerCancelAllowed: false,
              callbackUrl: 'https://shop.example.com/payments/callback',
              timezone: 'America/Asuncion',
              processors: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
              customerEmails: DEFAULT_CUSTOMER_EMAIL_SETTINGS,
              contactEmail: null,
              createdAt: '2026-11-23T12:00:00.000Z',
              updatedAt: '2026-11-23T12:00:00.000Z',
            },
          ],
          nextCursor: null,
        },
      },
    },
  }),
  getMerchant: defineOperation({
    method: 'get',
    path: '/admin/merchants/{id}',
    operationId: 'getMerchant',
    summary: "A merchant's settings and tokens",
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: merchantIdParams,
    parameterExamples: { default: { id: merchantExample.id } },
    errors: ['MERCHANT_NOT_FOUND'],
    responses: {
      200: { description: 'The merchant.', schema: merchantResponse, example: merchantExample },
    },
  }),
  updateMerchant: defineOperation({
    method: 'patch',
    path: '/admin/merchants/{id}',
    operationId: 'updateMerchant',
    summary: "Change a merchant's settings",
    description: 'Only the fields given change; services see the new settings on the next request.',
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: merchantIdParams,
    parameterExamples: { default: { id: merchantExample.id } },
    errors: ['MERCHANT_NOT_FOUND'],
    requestBody: {
      schema: updateMerchantRequest,
      example: { saasContract: true, callbackUrl: 'https://gym.example.com/payments/callback' },
    },
    responses: {
      200: {
        description: 'The merchant after the change.',
        schema: merchantResponse,
        example: { ...merchantExample, saasContract: true },
      },
    },
  }),
  issueApiToken: defineOperation({
    method: 'post',
    path: '/admin/merchants/{id}/tokens',
    operationId: 'issueApiToken',
    summary: 'Issue another API token',
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: merchantIdParams,
    parameterExamples: { default: { id: merchantExample.id } },
    errors: ['MERCHANT_NOT_FOUND'],
    responses: {
      201: {
        description: 'The new token, shown this once.',
        schema: issueTokenResponse,
        example: {
          tokenId: ISSUED_TOKEN_ID,
          apiToken: 'c0ffee00-1234-4abc-8def-0123456789ab',
          createdAt: '2026-11-22T12:00:00.000Z',
        },
      },
    },
  }),
  revokeApiToken: defineOperation({
    method: 'delete',
    path: '/admin/merchants/{id}/tokens/{tokenId}',
    operationId: 'revokeApiToken',
    summary: 'Revoke an API token',
    description: 'From the next request on, the token gets 401.',
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: merchantTokenParams,
    parameterExamples: { default: { id: merchantExample.id, tokenId: ISSUED_TOKEN_ID } },
    errors: ['MERCHANT_NOT_FOUND', 'API_TOKEN_NOT_FOUND'],
    responses: {
      204: { description: 'Revoked (also when it already was).' },
    },
  }),
};

/** In document order. */
export const adminOperations: ApiOperation[] = Object.values(adminApi) as ApiOperation[];

/** The merchant's own profile (`Api-Token`), what the console's settings and forms read. */
export const merchantProfileApi = {
  getMerchantProfile: defineOperation({
    method: 'get',
    path: '/api/merchant',
    operationId: 'getMerchantProfile',
    summary: "Your merchant's settings",
    description:
      'The settings the operator set for your merchant (read only: the operator changes them): the instance ' +
      'and its currency, the SaaS contract (DYNAMIC subscriptions, signed-in-user links), paying without ' +
      "signing in, the callback URL a link's `redirectUrl` must share its origin with, the time zone of " +
      'your dates, and the processors a link may use.',
    tags: ['Payment links'],
    security: 'apiToken',
    responses: {
      200: {
        description: 'The settings.',
        schema: merchantProfileResponse,
        example: {
          id: DEMO_MERCHANT_ID,
          name: 'Demo merchant',
          instance: 'NATIONAL',
          currency: 'PYG',
          saasContract: true,
          noLoginEnabled: true,
          customerCancelAllowed: false,
          callbackUrl: 'https://shop.example.com/payments/callback',
          timezone: 'America/Asuncion',
          processors: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
          customerEmails: DEFAULT_CUSTOMER_EMAIL_SETTINGS,
          contactEmail: null,
        },
      },
    },
  }),
};

export const merchantProfileOperations: ApiOperation[] = Object.values(merchantProfileApi) as ApiOperation[];
