import { z } from 'zod';
import { MAX_LENGTH, text, textRules } from '../text';
import { type ApiOperation, defineOperation } from './operation';

// ---------------------------------------------------------------------------------------------------
// Who may do what (issue 28). Every merchant operation needs one permission: the read or the write of an
// area. A console user's role and an API token's scope are each a set of permissions, checked by the one
// authorization layer of the gateway, so a console page can do nothing a token of the same rights cannot.

/** The areas of a merchant's account a permission is about. */
export const ACCESS_AREAS = [
  'links',
  'subscriptions',
  'refunds',
  'transfers',
  'webhooks',
  'events',
  'tokens',
  'users',
  'settings',
  'audit',
] as const;
export type AccessArea = (typeof ACCESS_AREAS)[number];
export type AccessKind = 'read' | 'write';

export interface Permission {
  area: AccessArea;
  access: AccessKind;
}

/** The roles of a merchant's console users. */
export const MERCHANT_ROLES = ['owner', 'operations', 'developer', 'viewer'] as const;
export type MerchantRole = (typeof MERCHANT_ROLES)[number];

/** The scopes of a merchant's API tokens; the tokens the operator issues are `full`. */
export const API_TOKEN_SCOPES = ['full', 'read-only'] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

/** Every area but users: API tokens never see nor manage the people of an account. */
const TOKEN_AREAS = ACCESS_AREAS.filter((area) => area !== 'users');

/**
 * What each role and each token scope may read and write. Every role reads every area; the writes are the
 * issue's: `owner` everything (users included), `operations` links, subscriptions, refunds and transfers,
 * `developer` tokens, webhooks and events, `viewer` nothing. A `full` token is everything but users, a
 * `read-only` token reads (but users).
 */
export const GRANTS: Record<
  MerchantRole | ApiTokenScope,
  { reads: readonly AccessArea[]; writes: readonly AccessArea[] }
> = {
  owner: { reads: ACCESS_AREAS, writes: ACCESS_AREAS },
  operations: { reads: ACCESS_AREAS, writes: ['links', 'subscriptions', 'refunds', 'transfers'] },
  developer: { reads: ACCESS_AREAS, writes: ['tokens', 'webhooks', 'events'] },
  viewer: { reads: ACCESS_AREAS, writes: [] },
  full: { reads: TOKEN_AREAS, writes: TOKEN_AREAS },
  'read-only': { reads: TOKEN_AREAS, writes: [] },
};

/** Whether a role or a token scope has the permission. */
export function grants(holder: MerchantRole | ApiTokenScope, permission: Permission): boolean {
  const grant = GRANTS[holder];
  return (permission.access === 'read' ? grant.reads : grant.writes).includes(permission.area);
}

const read = (area: AccessArea): Permission => ({ area, access: 'read' });
const write = (area: AccessArea): Permission => ({ area, access: 'write' });

/**
 * The permission each merchant operation (`operationId`) needs: the one table the gateway authorizes every
 * `/api/*` request by, whoever makes it (an API token or a console user). An operation of the merchant API
 * that is not here stops the gateway at start, naming it (`services/gateway/test/access/authorization.test.ts`
 * checks the table against the document).
 */
export const OPERATION_PERMISSIONS: Record<string, Permission> = {
  createPaymentLink: write('links'),
  createSignedInUserPaymentLink: write('links'),
  getPaymentLink: read('links'),
  listPaymentLinks: read('links'),
  cancelPaymentLink: write('links'),
  listSubscriptions: read('subscriptions'),
  getSubscription: read('subscriptions'),
  listPendingInstallments: read('subscriptions'),
  addInstallments: write('subscriptions'),
  modifyInstallment: write('subscriptions'),
  cancelInstallment: write('subscriptions'),
  listInstallmentAttempts: read('subscriptions'),
  bulkModifyInstallments: write('subscriptions'),
  modifyInstallmentsByAmount: write('subscriptions'),
  modifyAllInstallments: write('subscriptions'),
  modifyPaymentDay: write('subscriptions'),
  cancelInstallmentsByAmount: write('subscriptions'),
  cancelInstallmentByInvoice: write('subscriptions'),
  cancelSubscription: write('subscriptions'),
  notifyBankTransfer: write('transfers'),
  createWebhookEndpoint: write('webhooks'),
  listWebhookEndpoints: read('webhooks'),
  getWebhookEndpoint: read('webhooks'),
  updateWebhookEndpoint: write('webhooks'),
  deleteWebhookEndpoint: write('webhooks'),
  rotateWebhookSecret: write('webhooks'),
  testWebhookEndpoint: write('webhooks'),
  listWebhookDeliveries: read('webhooks'),
  retryWebhookDelivery: write('webhooks'),
  replayWebhookEvents: write('webhooks'),
  listEvents: read('events'),
  listApiTokens: read('tokens'),
  createApiToken: write('tokens'),
  deleteApiToken: write('tokens'),
  listUsers: read('users'),
  inviteUser: write('users'),
  updateUser: write('users'),
  deleteUser: write('users'),
  listAuditLog: read('audit'),
  refundPayment: write('refunds'),
  getRefund: read('refunds'),
  listPayments: read('refunds'),
  getPayment: read('refunds'),
  // Totals of the ledger's money: read as the ledger itself is.
  getReportSummary: read('refunds'),
  getMerchantProfile: read('settings'),
  listCustomers: read('links'),
  getCustomer: read('links'),
  listCustomerEmails: read('links'),
  getPaymentLinkSummary: read('links'),
  getSubscriptionSummary: read('subscriptions'),
};

/** The roles and scopes that have a permission, for the reference (each operation says who may call it). */
export function holdersOf(permission: Permission): Array<MerchantRole | ApiTokenScope> {
  return [...MERCHANT_ROLES, ...API_TOKEN_SCOPES].filter((holder) => grants(holder, permission));
}

// ---------------------------------------------------------------------------------------------------
// The API: the merchant's tokens, its console users, the audit log; the operator's own accounts.

const instant = z.iso.datetime({ offset: true });
const email = textRules(z.email({ message: 'must be a valid e-mail address' }), MAX_LENGTH.email);
const personName = text(MAX_LENGTH.personName).trim().min(1);

export const apiTokenView = z.object({
  id: z.uuid(),
  name: z.string().nullable().meta({ description: 'Null for the tokens the operator issued.' }),
  scope: z.enum(API_TOKEN_SCOPES),
  createdAt: instant,
  lastUsedAt: instant.nullable().meta({ description: 'To the minute; null: never used.' }),
  revokedAt: instant.nullable(),
});

export const apiTokenListResponse = z.object({
  tokens: z.array(apiTokenView).meta({ description: 'Newest first, revoked ones included.' }),
});

export const createApiTokenRequest = z.object({
  name: text(100).trim().min(1).meta({ description: 'What the token is for, as the merchant sees it.' }),
  scope: z.enum(API_TOKEN_SCOPES).meta({
    description:
      '`full`: every operation but users; `read-only`: reads only (every write is 403 `FORBIDDEN`).',
  }),
});

export const createdApiTokenResponse = apiTokenView.extend({
  apiToken: z.uuid().meta({ description: 'The `Api-Token`: shown this once, stored only as a hash.' }),
});

export const apiTokenIdParams = z.object({ id: z.uuid() });

export const USER_STATUSES = ['invited', 'active'] as const;
export const CONSOLE_LANGUAGES = ['es', 'en'] as const;
export type ConsoleLanguage = (typeof CONSOLE_LANGUAGES)[number];

export const userView = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  role: z.enum(MERCHANT_ROLES),
  status: z
    .enum(USER_STATUSES)
    .meta({ description: '`invited` until the invitation is accepted (a password set).' }),
  twoFactor: z.boolean().meta({ description: 'Whether the user signs in with a TOTP code too.' }),
  language: z.enum(CONSOLE_LANGUAGES),
  createdAt: instant,
  lastLoginAt: instant.nullable(),
  invitationExpiresAt: instant.nullable().meta({ description: 'While invited: until then the link works.' }),
});

export const userListResponse = z.object({ users: z.array(userView) });

export const inviteUserRequest = z.object({
  email,
  role: z.enum(MERCHANT_ROLES),
  name: personName.optional(),
});

export const updateUserRequest = z.object({ role: z.enum(MERCHANT_ROLES) });
export const userIdParams = z.object({ id: z.uuid() });

export const AUDIT_LOG_PAGE = { default: 50, max: 200 } as const;
/** The audit log keeps a merchant's entries this long. */
export const AUDIT_LOG_RETENTION_DAYS = 365;
export const AUDIT_ACTOR_TYPES = ['user', 'token', 'operator'] as const;

export const auditEntry = z.object({
  id: z.uuid(),
  at: instant,
  actor: z
    .object({
      type: z.enum(AUDIT_ACTOR_TYPES),
      id: z.string().nullable().meta({
        description: "The user's or the token's id; null for the operator's bearer token.",
      }),
      label: z.string().nullable().meta({ description: "The user's e-mail, the token's name." }),
    })
    .meta({ description: 'Who: a console user, an API token, or the operator.' }),
  operationId: z.string().meta({ description: 'What: the operation of this reference.' }),
  method: z.string(),
  path: z.string(),
  target: z.string().nullable().meta({
    description:
      "The object acted on: the path's last parameter (`/api/webhook-endpoints/{id}`), else the `id` of what was created.",
  }),
  status: z.number().int().meta({ description: 'The answer: 2xx done, 4xx refused.' }),
  before: z.record(z.string(), z.unknown()).nullable().meta({
    description:
      'The object as read just before a change or removal, where a read of it exists; secrets removed.',
  }),
  after: z
    .record(z.string(), z.unknown())
    .nullable()
    .meta({ description: 'The answer of a change (a JSON object), secrets removed.' }),
  clientAddress: z.string().nullable(),
});

export const auditLogQuery = z.object({
  operationId: text(100).optional(),
  actorId: text(100).optional().meta({ description: "A user's or token's id." }),
  target: text(200).optional(),
  from: instant.optional().meta({ description: 'Entries at or after this instant…' }),
  to: instant.optional().meta({ description: '…and before this one.' }),
  cursor: text(40)
    .regex(/^\d{1,18}$/, 'must be a cursor returned by this API')
    .optional(),
  limit: z.coerce.number().int().min(1).max(AUDIT_LOG_PAGE.max).default(AUDIT_LOG_PAGE.default),
});

export const auditLogResponse = z.object({
  entries: z.array(auditEntry).meta({ description: 'Newest first.' }),
  nextCursor: z
    .string()
    .nullable()
    .meta({ description: 'Pass as `cursor` for the next (older) page; null: no more.' }),
});

export const operatorView = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  status: z.enum(USER_STATUSES),
  twoFactor: z.boolean(),
  createdAt: instant,
  lastLoginAt: instant.nullable(),
  invitationExpiresAt: instant.nullable(),
});

export const operatorListResponse = z.object({ operators: z.array(operatorView) });
export const inviteOperatorRequest = z.object({ email, name: personName.optional() });
export const inviteMerchantUserRequest = z.object({
  email,
  role: z
    .enum(MERCHANT_ROLES)
    .default('owner')
    .meta({ description: "Default `owner`: the merchant's first." }),
  name: personName.optional(),
});

// ---------------------------------------------------------------------------------------------------
// Examples, continuing the story (`./story.ts`): the demo merchant's own token makes a read-only one for
// its reporting, lists both, revokes it; users are managed by an owner in the console (a token is refused);
// the audit log shows who made the token.

const DEMO_TOKEN_ID = '1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5';
const REPORTING_TOKEN_ID = '8f7e6d5c-4b3a-4291-8f0e-d1c2b3a4f5e6';
const USER_ID = '3a4b5c6d-7e8f-4091-a2b3-c4d5e6f70819';
const OPERATOR_ID = '6e5d4c3b-2a19-4f08-b7e6-d5c4b3a29180';
const STORY_INSTANT = '2026-11-23T15:00:00.000Z';

const reportingToken = {
  id: REPORTING_TOKEN_ID,
  name: 'Monthly reports',
  scope: 'read-only' as const,
  createdAt: STORY_INSTANT,
  lastUsedAt: null,
  revokedAt: null,
};

const invitedUser = {
  id: USER_ID,
  email: 'ana@gym.example.com',
  name: 'Ana Benítez',
  role: 'operations' as const,
  status: 'invited' as const,
  twoFactor: false,
  language: 'es' as const,
  createdAt: STORY_INSTANT,
  lastLoginAt: null,
  invitationExpiresAt: '2026-11-26T15:00:00.000Z',
};

const TOKENS_ONLY_OWNER =
  'Users are managed by an `owner` signed in to the console, through this operation; an API token, whatever ' +
  'its scope, gets 403 `FORBIDDEN` (tokens never see nor manage the people of an account), as in the example.';

export const accessApi = {
  createApiToken: defineOperation({
    method: 'post',
    path: '/api/api-tokens',
    operationId: 'createApiToken',
    summary: 'Create an API token',
    description:
      'A token for an integration, `full` (every operation but users) or `read-only` (every write answers 403 ' +
      '`FORBIDDEN`). Its value is answered this once and stored only as a hash; it works in `Api-Token` at once.',
    tags: ['Access'],
    security: 'apiToken',
    requestBody: {
      schema: createApiTokenRequest,
      example: { name: 'Monthly reports', scope: 'read-only' },
    },
    responses: {
      201: {
        description: 'The token, with its value shown this once.',
        schema: createdApiTokenResponse,
        example: { ...reportingToken, apiToken: '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e' },
      },
    },
  }),
  listApiTokens: defineOperation({
    method: 'get',
    path: '/api/api-tokens',
    operationId: 'listApiTokens',
    summary: "The merchant's API tokens",
    description: 'Newest first, revoked ones included; never a token value.',
    tags: ['Access'],
    security: 'apiToken',
    responses: {
      200: {
        description: 'The tokens.',
        schema: apiTokenListResponse,
        example: {
          tokens: [
            reportingToken,
            {
              id: DEMO_TOKEN_ID,
              name: null,
              scope: 'full',
              createdAt: '2026-11-23T12:00:00.000Z',
              lastUsedAt: STORY_INSTANT,
              revokedAt: null,
            },
          ],
        },
      },
    },
  }),
  deleteApiToken: defineOperation({
    method: 'delete',
    path: '/api/api-tokens/{id}',
    operationId: 'deleteApiToken',
    summary: 'Revoke an API token',
    description: 'From the next request on, the token gets 401. Revoking a revoked token changes nothing.',
    tags: ['Access'],
    security: 'apiToken',
    pathParams: apiTokenIdParams,
    parameterExamples: { default: { id: REPORTING_TOKEN_ID } },
    errors: ['API_TOKEN_NOT_FOUND'],
    responses: { 204: { description: 'Revoked.' } },
  }),
  inviteUser: defineOperation({
    method: 'post',
    path: '/api/users',
    operationId: 'inviteUser',
    summary: 'Invite a console user',
    description:
      'Mails the person an invitation link, valid 72 hours and once, to choose a password (and a second ' +
      'factor). Inviting an invited user of the merchant again sends a new link (the old one stops working). ' +
      TOKENS_ONLY_OWNER,
    tags: ['Access'],
    security: 'apiToken',
    requestBody: {
      schema: inviteUserRequest,
      example: { email: 'ana@gym.example.com', name: 'Ana Benítez', role: 'operations' },
    },
    errors: ['USER_EMAIL_TAKEN', 'MAIL_UNAVAILABLE'],
    exampleOutcomes: { default: 'FORBIDDEN' },
    responses: {
      201: { description: 'The invited user.', schema: userView, example: invitedUser },
    },
  }),
  listUsers: defineOperation({
    method: 'get',
    path: '/api/users',
    operationId: 'listUsers',
    summary: "The merchant's console users",
    description: `Every role may read them. ${TOKENS_ONLY_OWNER}`,
    tags: ['Access'],
    security: 'apiToken',
    exampleOutcomes: { default: 'FORBIDDEN' },
    responses: {
      200: { description: 'The users.', schema: userListResponse, example: { users: [invitedUser] } },
    },
  }),
  updateUser: defineOperation({
    method: 'patch',
    path: '/api/users/{id}',
    operationId: 'updateUser',
    summary: "Change a user's role",
    description: `The account keeps at least one owner (409 \`LAST_OWNER\`). ${TOKENS_ONLY_OWNER}`,
    tags: ['Access'],
    security: 'apiToken',
    pathParams: userIdParams,
    parameterExamples: { default: { id: USER_ID } },
    requestBody: { schema: updateUserRequest, example: { role: 'viewer' } },
    errors: ['USER_NOT_FOUND', 'LAST_OWNER'],
    exampleOutcomes: { default: 'FORBIDDEN' },
    responses: {
      200: { description: 'The user.', schema: userView, example: { ...invitedUser, role: 'viewer' } },
    },
  }),
  deleteUser: defineOperation({
    method: 'delete',
    path: '/api/users/{id}',
    operationId: 'deleteUser',
    summary: 'Remove a console user',
    description: `Their sessions end at once. The account keeps at least one owner (409 \`LAST_OWNER\`). ${TOKENS_ONLY_OWNER}`,
    tags: ['Access'],
    security: 'apiToken',
    pathParams: userIdParams,
    parameterExamples: { default: { id: USER_ID } },
    errors: ['USER_NOT_FOUND', 'LAST_OWNER'],
    exampleOutcomes: { default: 'FORBIDDEN' },
    responses: { 204: { description: 'Removed.' } },
  }),
  listAuditLog: defineOperation({
    method: 'get',
    path: '/api/audit-log',
    operationId: 'listAuditLog',
    summary: 'The audit log',
    description:
      'Every change made to the account through the API or the console, and every write refused: who (a ' +
      'console user, an API token, the operator), what (the operation), its target, the object before and ' +
      'after where it fits (secrets removed), when, from which address. Newest first, kept one year.',
    tags: ['Access'],
    security: 'apiToken',
    query: auditLogQuery,
    parameterExamples: { default: { operationId: 'createApiToken' } },
    responses: {
      200: {
        description: 'A page of entries.',
        schema: auditLogResponse,
        example: {
          entries: [
            {
              id: '0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a',
              at: STORY_INSTANT,
              actor: { type: 'token', id: DEMO_TOKEN_ID, label: null },
              operationId: 'createApiToken',
              method: 'POST',
              path: '/api/api-tokens',
              target: REPORTING_TOKEN_ID,
              status: 201,
              before: null,
              after: reportingToken,
              clientAddress: '203.0.113.7',
            },
          ],
          nextCursor: null,
        },
      },
    },
  }),
};

/** In document order. */
export const accessOperations: ApiOperation[] = Object.values(accessApi) as ApiOperation[];

const invitedOwner = {
  ...invitedUser,
  id: '4b5c6d7e-8f90-4a1b-b2c3-d4e5f6a7b8c9',
  email: 'owner@gym.example.com',
  name: 'Marta Ayala',
  role: 'owner' as const,
};

const invitedOperator = {
  id: OPERATOR_ID,
  email: 'support@payrail.example.com',
  name: 'Luis Duarte',
  status: 'invited' as const,
  twoFactor: false,
  createdAt: STORY_INSTANT,
  lastLoginAt: null,
  invitationExpiresAt: '2026-11-26T15:00:00.000Z',
};

/** The operator's: a merchant's first owner, and the operator's own console accounts. */
export const adminAccessApi = {
  inviteMerchantUser: defineOperation({
    method: 'post',
    path: '/admin/merchants/{id}/users',
    operationId: 'inviteMerchantUser',
    summary: "Invite a merchant's console user (its first owner)",
    description: 'Mails the invitation (72 hours, once). The owner then invites the others from the console.',
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: z.object({ id: z.uuid() }),
    parameterExamples: { default: { id: '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10' } },
    requestBody: {
      schema: inviteMerchantUserRequest,
      example: { email: 'owner@gym.example.com', name: 'Marta Ayala', role: 'owner' },
    },
    errors: ['MERCHANT_NOT_FOUND', 'USER_EMAIL_TAKEN', 'MAIL_UNAVAILABLE'],
    responses: {
      201: { description: 'The invited user.', schema: userView, example: invitedOwner },
    },
  }),
  listMerchantUsers: defineOperation({
    method: 'get',
    path: '/admin/merchants/{id}/users',
    operationId: 'listMerchantUsers',
    summary: "A merchant's console users",
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: z.object({ id: z.uuid() }),
    parameterExamples: { default: { id: '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10' } },
    errors: ['MERCHANT_NOT_FOUND'],
    responses: {
      200: { description: 'The users.', schema: userListResponse, example: { users: [invitedOwner] } },
    },
  }),
  inviteOperator: defineOperation({
    method: 'post',
    path: '/admin/operators',
    operationId: 'inviteOperator',
    summary: "Invite an operator's console account",
    description:
      'Mails the invitation (72 hours, once); the account signs in at `/console/operator` with its own password, not the bearer token.',
    tags: ['Operator'],
    security: 'adminToken',
    requestBody: {
      schema: inviteOperatorRequest,
      example: { email: 'support@payrail.example.com', name: 'Luis Duarte' },
    },
    errors: ['USER_EMAIL_TAKEN', 'MAIL_UNAVAILABLE'],
    responses: {
      201: { description: 'The invited account.', schema: operatorView, example: invitedOperator },
    },
  }),
  listOperators: defineOperation({
    method: 'get',
    path: '/admin/operators',
    operationId: 'listOperators',
    summary: "The operator's console accounts",
    tags: ['Operator'],
    security: 'adminToken',
    responses: {
      200: {
        description: 'The accounts.',
        schema: operatorListResponse,
        example: { operators: [invitedOperator] },
      },
    },
  }),
};

export const adminAccessOperations: ApiOperation[] = Object.values(adminAccessApi) as ApiOperation[];
