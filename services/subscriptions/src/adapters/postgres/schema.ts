import {
  INSTALLMENT_STATUSES,
  MAX_LENGTH,
  PAYMENT_METHOD_KINDS,
  SUBSCRIPTION_STATUSES,
} from '@payrail/contracts';
import { inboxTable, outboxTable } from '@payrail/messaging';
import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  date,
  index,
  integer,
  numeric,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';

/** The subscriptions service owns this schema: the only authority on installment state. */
export const subscriptionsSchema = pgSchema('subscriptions');

export const subscriptions = subscriptionsSchema.table(
  'subscriptions',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    merchantId: uuid('merchant_id').notNull(),
    /** The link whose payment activates the subscription; one subscription per link. */
    linkId: bigint('link_id', { mode: 'number' }).notNull().unique(),
    type: text('type', { enum: ['STATIC', 'DYNAMIC'] }).notNull(),
    status: text('status', { enum: SUBSCRIPTION_STATUSES }).notNull(),
    customIdentifier: varchar('custom_identifier', { length: MAX_LENGTH.customIdentifier }),
    customIdentifier2: varchar('custom_identifier2', { length: MAX_LENGTH.customIdentifier }),
    currency: text('currency').notNull(),
    firstAmount: numeric('first_amount', { precision: 18, scale: 2 }).notNull(),
    installmentAmount: numeric('installment_amount', { precision: 18, scale: 2 }),
    totalPeriods: integer('total_periods'),
    dayOfMonth: integer('day_of_month'),
    monthForSecondInstallment: integer('month_for_second_installment'),
    timezone: text('timezone').notNull(),
    /** The creation day in the merchant's time zone: the schedule counts months from it. */
    createdOn: date('created_on', { mode: 'string' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    activatedAt: timestamp('activated_at', { withTimezone: true }),
    /** When it became `completed` or `cancelled`. */
    endedAt: timestamp('ended_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('subscriptions_lookup_idx').on(table.merchantId, table.customIdentifier, table.customIdentifier2),
    // Bulk operations may name a subscription by its second identifier alone.
    index('subscriptions_lookup2_idx').on(table.merchantId, table.customIdentifier2),
    check(
      'subscriptions_status_check',
      sql`${table.status} in ('pending', 'active', 'completed', 'cancelled')`,
    ),
  ],
);

export const installments = subscriptionsSchema.table(
  'installments',
  {
    /** `installment_id` of the API. */
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    subscriptionId: bigint('subscription_id', { mode: 'number' })
      .notNull()
      .references(() => subscriptions.id),
    /** 1 is the link payment; 2.. the debits. */
    number: integer('number').notNull(),
    /** A calendar day in the merchant's time zone (no instant: the scheduler decides the hour). */
    paymentDate: date('payment_date', { mode: 'string' }).notNull(),
    amount: numeric('amount', { precision: 18, scale: 2, mode: 'string' }).notNull(),
    status: text('status', { enum: INSTALLMENT_STATUSES }).notNull(),
    /** DYNAMIC subscriptions: the merchant's invoice the installment collects. */
    invoiceNumber: varchar('invoice_number', { length: MAX_LENGTH.invoiceNumber }),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    unique('installments_subscription_number_unique').on(table.subscriptionId, table.number),
    uniqueIndex('installments_subscription_invoice_unique')
      .on(table.subscriptionId, table.invoiceNumber)
      .where(sql`invoice_number is not null`),
    // Bulk modification identifies installments by (subscription, payment date).
    index('installments_subscription_date_idx').on(table.subscriptionId, table.paymentDate),
    check(
      'installments_status_check',
      sql`${table.status} in ('pending', 'processing', 'paid', 'failed', 'cancelled')`,
    ),
    check('installments_amount_positive', sql`${table.amount} > 0`),
  ],
);

/**
 * A `link.paid` that arrived before the `link.created` of its subscription (redelivery or a replayed dead
 * letter can reorder them): kept so that the subscription is activated when it is created.
 */
export const earlyLinkPayments = subscriptionsSchema.table('early_link_payments', {
  linkId: bigint('link_id', { mode: 'number' }).primaryKey(),
  merchantId: uuid('merchant_id').notNull(),
  amount: numeric('amount', { precision: 18, scale: 2 }).notNull(),
  paidAt: timestamp('paid_at', { withTimezone: true }).notNull(),
  /** How the link was paid, for the `installment.paid` of installment 1. */
  method: text('method', { enum: PAYMENT_METHOD_KINDS }).notNull().default('CARD'),
  txId: text('tx_id'),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Installments paid by a bank transfer the merchant notified: one row per merchant and bank reference,
 * written in the transaction that marks the installment paid. processor-gateway asks again after a lost
 * answer or a crash; the row makes the second ask answer the first result instead of paying twice.
 */
export const bankTransferSettlements = subscriptionsSchema.table(
  'bank_transfer_settlements',
  {
    merchantId: uuid('merchant_id').notNull(),
    reference: varchar('reference', { length: MAX_LENGTH.bankReference }).notNull(),
    installmentId: integer('installment_id')
      .notNull()
      .unique()
      .references(() => installments.id),
    subscriptionId: bigint('subscription_id', { mode: 'number' })
      .notNull()
      .references(() => subscriptions.id),
    amount: numeric('amount', { precision: 18, scale: 2, mode: 'string' }).notNull(),
    settledAt: timestamp('settled_at', { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.merchantId, table.reference] })],
);

export const outbox = outboxTable(subscriptionsSchema);
export const inbox = inboxTable(subscriptionsSchema);
