import { MAX_LENGTH } from '@payrail/contracts';
import { inboxTable, outboxTable } from '@payrail/messaging';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  text,
  timestamp,
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
  callbackUrl: varchar('callback_url', { length: MAX_LENGTH.url }),
  timezone: text('timezone').notNull().default('America/Asuncion'),
  processors: jsonb('processors').$type<string[]>().notNull(),
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
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
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
