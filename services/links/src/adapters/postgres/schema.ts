import { inboxTable, outboxTable } from '@payrail/messaging';
import { bigint, boolean, index, integer, jsonb, numeric, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** The links service owns this schema; no other service reads it. */
export const linksSchema = pgSchema('links');

export const paymentLinks = linksSchema.table(
  'payment_links',
  {
    /** The payment ticket number: an integer that only grows. */
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    merchantId: uuid('merchant_id').notNull(),
    slug: text('slug').notNull().unique(),
    label: text('label').notNull(),
    amount: numeric('amount', { precision: 18, scale: 2 }).notNull(),
    currency: text('currency').notNull(),
    handleValue: text('handle_value').notNull(),
    handleLabel: text('handle_label').notNull(),
    customIdentifier: text('custom_identifier'),
    customIdentifier2: text('custom_identifier2'),
    singlePayment: boolean('single_payment').notNull(),
    creditAndDebitCard: boolean('credit_and_debit_card').notNull(),
    /** STATIC or DYNAMIC terms when the link starts a subscription. */
    recurrence: jsonb('recurrence').$type<Record<string, unknown> | null>(),
    payWaitHours: integer('pay_wait_hours').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    redirectUrl: text('redirect_url'),
    noLoginRequired: boolean('no_login_required').notNull().default(false),
    documentNumber: text('document_number'),
    paymentMethods: jsonb('payment_methods').$type<string[]>().notNull(),
    statusId: integer('status_id').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
  },
  (table) => [index('payment_links_merchant_idx').on(table.merchantId, table.id)],
);

export const outbox = outboxTable(linksSchema);
export const inbox = inboxTable(linksSchema);
