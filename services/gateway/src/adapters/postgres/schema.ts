import { API_TOKEN_SCOPES, CONSOLE_LANGUAGES, MAX_LENGTH, MERCHANT_ROLES } from '@payrail/contracts';
import { inboxTable, outboxTable } from '@payrail/messaging';
import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';

/** The gateway owns merchants, their settings, their API tokens (hashes only) and idempotency records. */
export const gatewaySchema = pgSchema('gateway');

export const merchants = gatewaySchema.table('merchants', {
  id: uuid('id').primaryKey(),
  name: varchar('name', { length: MAX_LENGTH.merchantName }).notNull(),
  instance: text('instance', { enum: ['NATIONAL', 'INTERNATIONAL'] }).notNull(),
  currency: text('currency', { enum: ['PYG', 'USD', 'EUR'] }).notNull(),
  saasContract: boolean('saas_contract').notNull().default(false),
  noLoginEnabled: boolean('no_login_enabled').notNull().default(false),
  /** The paying customer may cancel their own subscription on `/pay/account` (issue 29). */
  customerCancelAllowed: boolean('customer_cancel_allowed').notNull().default(false),
  callbackUrl: varchar('callback_url', { length: MAX_LENGTH.url }),
  timezone: text('timezone').notNull().default('America/Asuncion'),
  processors: jsonb('processors').$type<string[]>().notNull(),
  /** The customers' e-mails (issue 29): each kind on or off, the reminder's days; null: the defaults. */
  customerEmails: jsonb('customer_emails').$type<Record<string, unknown> | null>(),
  /** The `Reply-To` of the customers' e-mails. */
  contactEmail: varchar('contact_email', { length: MAX_LENGTH.email }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const apiTokens = gatewaySchema.table(
  'api_tokens',
  {
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => merchants.id),
    /** SHA-256 of the token: the token itself is shown once, when issued, and never stored. */
    tokenHash: text('token_hash').notNull().unique(),
    /** The merchant's name for it; null for the tokens the operator issues. */
    name: text('name'),
    /** `full` (everything but users) or `read-only` (reads): libs/contracts `GRANTS`. */
    scope: text('scope', { enum: API_TOKEN_SCOPES }).notNull().default('full'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Written at most once a minute per token (`LAST_USED_RESOLUTION_MS`), not on every request. */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (table) => [index('api_tokens_merchant_idx').on(table.merchantId)],
);

/**
 * `Idempotency-Key` records (design 4): the primary key (merchant, key) is the lock, so of two
 * concurrent requests with one key only one inserts and runs.
 */
export const idempotencyRecords = gatewaySchema.table(
  'idempotency_records',
  {
    merchantId: uuid('merchant_id').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    state: text('state', { enum: ['in_progress', 'completed'] }).notNull(),
    responseStatus: integer('response_status'),
    responseContentType: text('response_content_type'),
    responseBody: text('response_body'),
    lockedAt: timestamp('locked_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.merchantId, table.key] }),
    index('idempotency_records_expires_idx').on(table.expiresAt),
  ],
);

export const outbox = outboxTable(gatewaySchema);
export const inbox = inboxTable(gatewaySchema);

// ---------------------------------------------------------------------------------------------------
// Webhooks (issue 11): endpoints, the event log, deliveries and their attempts, and a small projection
// of links and subscriptions so that an envelope carries what receivers expect without asking back.

export const webhookEndpoints = gatewaySchema.table(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => merchants.id),
    url: varchar('url', { length: MAX_LENGTH.url }).notNull(),
    method: text('method', { enum: ['POST', 'PUT'] }).notNull(),
    authType: text('auth_type', { enum: ['basic', 'header'] }),
    /** The username or header name, shown in responses; the whole credential is in `auth_sealed`. */
    authLabel: text('auth_label'),
    /** AES-256-GCM sealed JSON of the credential (password or header value never in clear). */
    authSealed: text('auth_sealed'),
    events: jsonb('events').$type<string[] | null>(),
    description: text('description'),
    secretSealed: text('secret_sealed').notNull(),
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true }),
    enabled: boolean('enabled').notNull().default(true),
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    disabledReason: text('disabled_reason'),
    lastSuccessAt: timestamp('last_success_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('webhook_endpoints_merchant_idx').on(table.merchantId)],
);

/**
 * The event log: one row per envelope, `seq` its place. Rows of one merchant are written under that
 * merchant's advisory lock, so they commit in `seq` order and a cursor never skips a late commit.
 */
export const webhookEvents = gatewaySchema.table(
  'webhook_events',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    id: text('id').notNull().unique(),
    merchantId: uuid('merchant_id').notNull(),
    kind: text('kind').notNull(),
    /** Events with one key (one subscription, or one link) are delivered in order. */
    orderingKey: text('ordering_key').notNull(),
    /** The envelope exactly as sent (`amount` written as a number with 2 decimals). */
    body: text('body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    index('webhook_events_merchant_seq_idx').on(table.merchantId, table.seq),
    index('webhook_events_merchant_created_idx').on(table.merchantId, table.createdAt),
    index('webhook_events_created_idx').on(table.createdAt),
  ],
);

export const webhookDeliveries = gatewaySchema.table(
  'webhook_deliveries',
  {
    position: bigserial('position', { mode: 'number' }).notNull().unique(),
    id: uuid('id').primaryKey(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    merchantId: uuid('merchant_id').notNull(),
    eventSeq: bigint('event_seq', { mode: 'number' })
      .notNull()
      .references(() => webhookEvents.seq, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    kind: text('kind').notNull(),
    orderingKey: text('ordering_key').notNull(),
    origin: text('origin', { enum: ['event', 'test', 'retry', 'replay'] }).notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attemptCount: integer('attempt_count').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    /** Claimed by a worker until then; a crashed worker's claim lapses and another takes it. */
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('webhook_deliveries_event_once_idx')
      .on(table.endpointId, table.eventSeq)
      .where(sql`origin = 'event'`),
    // What the worker claims: per endpoint, its oldest due deliveries (claimDue's lateral scan). Each of
    // the two pending indexes has a condition of its own (a pending delivery always has both columns), so
    // that only a statement naming `next_attempt_at` can use this one and only one naming `ordering_key`
    // the next: the claim's plan cannot change with the statistics (see `dueCandidatesStatement`).
    index('webhook_deliveries_endpoint_due_idx')
      .on(table.endpointId, table.nextAttemptAt, table.position)
      .where(sql`status = 'pending' and next_attempt_at is not null`),
    index('webhook_deliveries_order_idx')
      .on(table.endpointId, table.orderingKey, table.eventSeq)
      .where(sql`status = 'pending' and ordering_key is not null`),
    index('webhook_deliveries_merchant_idx').on(table.merchantId, table.position),
  ],
);

export const webhookDeliveryAttempts = gatewaySchema.table(
  'webhook_delivery_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attemptedAt: timestamp('attempted_at', { withTimezone: true }).notNull(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    response: text('response'),
    error: text('error'),
  },
  (table) => [index('webhook_delivery_attempts_delivery_idx').on(table.deliveryId)],
);

/** What envelopes need of a link (from `link.created`, then its status from link events). */
export const webhookLinks = gatewaySchema.table('webhook_links', {
  linkId: integer('link_id').primaryKey(),
  merchantId: uuid('merchant_id').notNull(),
  label: text('label').notNull(),
  amount: text('amount').notNull(),
  currency: text('currency').notNull(),
  customIdentifier: text('custom_identifier'),
  customIdentifier2: text('custom_identifier2'),
  recurrent: boolean('recurrent').notNull(),
  totalPeriods: integer('total_periods'),
  statusId: integer('status_id').notNull(),
  subscriptionId: integer('subscription_id'),
  /** The transaction of its payment (`link.paid`): installment 1's, for a subscription. */
  txId: text('tx_id'),
});

export const webhookSubscriptions = gatewaySchema.table('webhook_subscriptions', {
  subscriptionId: integer('subscription_id').primaryKey(),
  merchantId: uuid('merchant_id').notNull(),
  linkId: integer('link_id').notNull(),
  totalPeriods: integer('total_periods'),
});

export const webhookInstallments = gatewaySchema.table('webhook_installments', {
  installmentId: integer('installment_id').primaryKey(),
  subscriptionId: integer('subscription_id').notNull(),
  number: integer('number').notNull(),
  /**
   * The processor's transaction of its last successful charge, as an older gateway recorded it from
   * `payment.succeeded`; no longer written (`installment.paid` carries it), read only for an older
   * subscriptions' `installment.paid` that does not.
   */
  txId: text('tx_id'),
});

/**
 * How many of a subscription's periods are paid, for `subscriptionPayedPeriod`: the greatest `paidCount` of
 * its `installment.paid` events seen. Apart from `webhook_subscriptions`, so that a payment recorded before
 * the subscription's creation (a redelivered or reordered event) still counts.
 */
export const webhookPaidCounts = gatewaySchema.table('webhook_paid_counts', {
  subscriptionId: integer('subscription_id').primaryKey(),
  paidCount: integer('paid_count').notNull(),
});

// ---------------------------------------------------------------------------------------------------
// The console's people (issue 28): a merchant's users and the operator's own accounts, their sessions,
// invitations and resets, second factors, and the audit log of every write through the API.

export const consoleUsers = gatewaySchema.table(
  'console_users',
  {
    id: uuid('id').primaryKey(),
    /** `merchant`: one merchant's user, with a role; `operator`: the operator's own console account. */
    kind: text('kind', { enum: ['merchant', 'operator'] }).notNull(),
    merchantId: uuid('merchant_id').references(() => merchants.id),
    /** Lower case; one account per address across the console (the login form asks nothing else). */
    email: varchar('email', { length: MAX_LENGTH.email }).notNull(),
    name: varchar('name', { length: MAX_LENGTH.personName }),
    role: text('role', { enum: MERCHANT_ROLES }),
    language: text('language', { enum: CONSOLE_LANGUAGES }).notNull().default('es'),
    /** scrypt (`application/console/passwords.ts`); null until the invitation is accepted. */
    passwordHash: text('password_hash'),
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true }),
    /** The TOTP secret, sealed (AES-256-GCM); without `totp_enabled_at` an enrolment not yet confirmed. */
    totpSecretSealed: text('totp_secret_sealed'),
    totpEnabledAt: timestamp('totp_enabled_at', { withTimezone: true }),
    /** The time step of the last code accepted: a code of that step or an earlier one is refused. */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    failedLogins: integer('failed_logins').notNull().default(0),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    lastLoginAt: timestamp('last_login_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    uniqueIndex('console_users_email_idx').on(table.email),
    index('console_users_merchant_idx').on(table.merchantId),
    check(
      'console_users_kind_check',
      sql`(kind = 'merchant' and merchant_id is not null and role is not null) or (kind = 'operator' and merchant_id is null and role is null)`,
    ),
  ],
);

/** Invitation and password-reset links: only the SHA-256 of each is kept; each works once, until it expires. */
export const consoleUserTokens = gatewaySchema.table(
  'console_user_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => consoleUsers.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: ['invitation', 'reset'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('console_user_tokens_user_idx').on(table.userId)],
);

/** Sessions: the SHA-256 of the cookie's value; a session ends by its row being deleted. */
export const consoleSessions = gatewaySchema.table(
  'console_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => consoleUsers.id, { onDelete: 'cascade' }),
    /** `enrol`: just accepted an invitation, may only set up TOTP; `totp`: password right, code awaited. */
    stage: text('stage', { enum: ['enrol', 'totp', 'full'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    /** Idle expiry counts from here; written at most once a minute. */
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
    clientAddress: text('client_address'),
  },
  (table) => [
    index('console_sessions_user_idx').on(table.userId),
    index('console_sessions_seen_idx').on(table.lastSeenAt),
  ],
);

/** Recovery codes of a second factor, hashed; each works once. */
export const consoleRecoveryCodes = gatewaySchema.table(
  'console_recovery_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => consoleUsers.id, { onDelete: 'cascade' }),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (table) => [index('console_recovery_codes_user_idx').on(table.userId)],
);

/**
 * Every write through the API (an API token, a console user, the operator): who, what, on what, the object
 * before and after where it fits, the answer's status, when, from where. Kept one year.
 */
export const auditLog = gatewaySchema.table(
  'audit_log',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    id: uuid('id').notNull().unique(),
    /** The merchant concerned; null for the operator's own (a billing run, an operator account). */
    merchantId: uuid('merchant_id'),
    at: timestamp('at', { withTimezone: true }).notNull(),
    actorType: text('actor_type', { enum: ['user', 'token', 'operator'] }).notNull(),
    actorId: text('actor_id'),
    actorLabel: text('actor_label'),
    operationId: text('operation_id').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    target: text('target'),
    status: integer('status').notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
    clientAddress: text('client_address'),
  },
  (table) => [
    index('audit_log_merchant_seq_idx').on(table.merchantId, table.seq),
    index('audit_log_at_idx').on(table.at),
  ],
);
