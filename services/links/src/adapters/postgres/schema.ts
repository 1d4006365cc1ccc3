import { MAX_LENGTH } from '@payrail/contracts';
import { inboxTable, outboxTable } from '@payrail/messaging';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  unique,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';

/** The links service owns this schema; no other service reads it. */
export const linksSchema = pgSchema('links');

/** Service users of a merchant (spec 2.3 `userId`): one per e-mail, whatever its case. */
export const customers = linksSchema.table(
  'customers',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    merchantId: uuid('merchant_id').notNull(),
    email: varchar('email', { length: MAX_LENGTH.email }).notNull(),
    /** Lower-cased e-mail: the unique key, so `Ana@x.com` and `ana@x.com` are one user. */
    emailKey: varchar('email_key', { length: MAX_LENGTH.email }).notNull(),
    firstName: varchar('first_name', { length: MAX_LENGTH.personName }).notNull(),
    lastName: varchar('last_name', { length: MAX_LENGTH.personName }).notNull(),
    status: text('status', { enum: ['active', 'inactive'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    activatedAt: timestamp('activated_at', { withTimezone: true }),
  },
  (table) => [unique('customers_merchant_email_key').on(table.merchantId, table.emailKey)],
);

export const paymentLinks = linksSchema.table(
  'payment_links',
  {
    /** The payment ticket number: an integer that only grows. */
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    merchantId: uuid('merchant_id').notNull(),
    slug: text('slug').notNull().unique(),
    label: varchar('label', { length: MAX_LENGTH.label }).notNull(),
    amount: numeric('amount', { precision: 18, scale: 2 }).notNull(),
    currency: text('currency').notNull(),
    handleValue: varchar('handle_value', { length: MAX_LENGTH.handleValue }).notNull(),
    handleLabel: varchar('handle_label', { length: MAX_LENGTH.handleLabel }).notNull(),
    customIdentifier: varchar('custom_identifier', { length: MAX_LENGTH.customIdentifier }),
    customIdentifier2: varchar('custom_identifier2', { length: MAX_LENGTH.customIdentifier }),
    singlePayment: boolean('single_payment').notNull(),
    creditAndDebitCard: boolean('credit_and_debit_card').notNull(),
    /** STATIC or DYNAMIC terms when the link starts a subscription. */
    recurrence: jsonb('recurrence').$type<Record<string, unknown> | null>(),
    payWaitHours: integer('pay_wait_hours').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    redirectUrl: varchar('redirect_url', { length: MAX_LENGTH.url }),
    noLoginRequired: boolean('no_login_required').notNull().default(false),
    documentNumber: varchar('document_number', { length: MAX_LENGTH.documentNumber }),
    paymentMethods: jsonb('payment_methods').$type<string[]>().notNull(),
    statusId: integer('status_id').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    /** The signed-in user the link was made for (spec 4.2). */
    customerId: bigint('customer_id', { mode: 'number' }).references(() => customers.id),
  },
  (table) => [index('payment_links_merchant_idx').on(table.merchantId, table.id)],
);

/**
 * Single-use login codes of signed-in-user links. Only the SHA-256 of the code is kept: the clear code
 * exists in the link's URL, nowhere here.
 */
export const loginCodes = linksSchema.table(
  'login_codes',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    codeHash: text('code_hash').notNull().unique(),
    merchantId: uuid('merchant_id').notNull(),
    customerId: bigint('customer_id', { mode: 'number' })
      .notNull()
      .references(() => customers.id),
    linkId: bigint('link_id', { mode: 'number' })
      .notNull()
      .references(() => paymentLinks.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
  },
  (table) => [index('login_codes_link_idx').on(table.linkId)],
);

/**
 * Links paid by a bank transfer the merchant notified: one row per merchant and bank reference, written in
 * the transaction that marks the link paid. processor-gateway asks again after a lost answer or a crash;
 * the row makes the second ask answer the first result instead of paying twice.
 */
export const bankTransferSettlements = linksSchema.table(
  'bank_transfer_settlements',
  {
    merchantId: uuid('merchant_id').notNull(),
    reference: varchar('reference', { length: MAX_LENGTH.bankReference }).notNull(),
    linkId: bigint('link_id', { mode: 'number' })
      .notNull()
      .unique()
      .references(() => paymentLinks.id),
    amount: numeric('amount', { precision: 18, scale: 2 }).notNull(),
    settledAt: timestamp('settled_at', { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.merchantId, table.reference] })],
);

export const outbox = outboxTable(linksSchema);
export const inbox = inboxTable(linksSchema);
