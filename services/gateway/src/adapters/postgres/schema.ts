import { inboxTable, outboxTable } from '@payrail/messaging';
import { boolean, index, jsonb, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** The gateway owns merchants, their settings and their API tokens (hashes only). */
export const gatewaySchema = pgSchema('gateway');

export const merchants = gatewaySchema.table('merchants', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  instance: text('instance', { enum: ['NATIONAL', 'INTERNATIONAL'] }).notNull(),
  currency: text('currency', { enum: ['PYG', 'USD', 'EUR'] }).notNull(),
  saasContract: boolean('saas_contract').notNull().default(false),
  noLoginEnabled: boolean('no_login_enabled').notNull().default(false),
  callbackUrl: text('callback_url'),
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

export const outbox = outboxTable(gatewaySchema);
export const inbox = inboxTable(gatewaySchema);
