import { inboxTable, outboxTable } from '@payrail/messaging';
import { bigint, date, index, integer, numeric, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';

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
    status: text('status', { enum: ['pending', 'active', 'completed', 'cancelled'] }).notNull(),
    customIdentifier: text('custom_identifier'),
    customIdentifier2: text('custom_identifier2'),
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
  },
  (table) => [index('subscriptions_lookup_idx').on(table.merchantId, table.customIdentifier, table.customIdentifier2)],
);

export const outbox = outboxTable(subscriptionsSchema);
export const inbox = inboxTable(subscriptionsSchema);
