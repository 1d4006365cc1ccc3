import {
  DECLINE_CATEGORIES,
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
  jsonb,
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
    customIdentifier2: varchar('custom_identifier2', { length: MAX_LENGTH.customIdentifier2 }),
    currency: text('currency').notNull(),
    firstAmount: numeric('first_amount', { precision: 18, scale: 2 }).notNull(),
    installmentAmount: numeric('installment_amount', { precision: 18, scale: 2 }),
    totalPeriods: integer('total_periods'),
    dayOfMonth: integer('day_of_month'),
    monthForSecondInstallment: integer('month_for_second_installment'),
    /**
     * Open-ended plans (STATIC, `total_periods` null): how many of the plan's months have their installment
     * so far; the rolling horizon adds the next month's (`src/domain/open-ended.ts`). Null otherwise.
     */
    periodsScheduled: integer('periods_scheduled'),
    timezone: text('timezone').notNull(),
    /** The creation day in the merchant's time zone: the schedule counts months from it. */
    createdOn: date('created_on', { mode: 'string' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    activatedAt: timestamp('activated_at', { withTimezone: true }),
    /** When it became `completed` or `cancelled`. */
    endedAt: timestamp('ended_at', { withTimezone: true }),
    /**
     * The card later installments are charged to: the vault's payment method of the first payment
     * (`link.paid`), or a replacement. Null: no card (a transfer paid the link, or the card was removed).
     */
    paymentMethodId: uuid('payment_method_id'),
    processor: text('processor'),
    /** The links service's customer who paid the link: whose newly saved card may replace a removed one. */
    customerId: bigint('customer_id', { mode: 'number' }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('subscriptions_lookup_idx').on(table.merchantId, table.customIdentifier, table.customIdentifier2),
    // Bulk operations may name a subscription by its second identifier alone.
    index('subscriptions_lookup2_idx').on(table.merchantId, table.customIdentifier2),
    // The customer's own page lists their subscriptions at the merchant.
    index('subscriptions_customer_idx')
      .on(table.merchantId, table.customerId)
      .where(sql`customer_id is not null`),
    index('subscriptions_payment_method_idx')
      .on(table.paymentMethodId)
      .where(sql`payment_method_id is not null`),
    check(
      'subscriptions_status_check',
      sql`${table.status} in ('pending', 'active', 'past_due', 'completed', 'cancelled')`,
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
    /** Dunning: the day of the next charge attempt billing-scheduler scheduled after a failed one. */
    nextAttemptOn: date('next_attempt_on', { mode: 'string' }),
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
  /** The references beside `tx_id` (`EarlyPaymentDetails`); null in rows kept before they existed. */
  details: jsonb('details').$type<Record<string, unknown>>(),
  /** The card that paid, to charge later installments with (null for a transfer or an older message). */
  paymentMethodId: uuid('payment_method_id'),
  processor: text('processor'),
  customerId: bigint('customer_id', { mode: 'number' }),
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

/**
 * Every charge attempt of an installment (automatic debit), kept for the audit: written `requested` in the
 * transaction that moves the installment to `processing` and emits `charge.requested`, then settled by
 * `payment.succeeded` / `payment.failed`. (installment, attempt) is unique, so attempt n is requested once.
 * The 24-hour cap per card counts these rows by `payment_method_id` and `requested_at`.
 */
export const chargeAttempts = subscriptionsSchema.table(
  'charge_attempts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    installmentId: integer('installment_id')
      .notNull()
      .references(() => installments.id),
    subscriptionId: bigint('subscription_id', { mode: 'number' })
      .notNull()
      .references(() => subscriptions.id),
    merchantId: uuid('merchant_id').notNull(),
    attempt: integer('attempt').notNull(),
    /** `installment:<id>:attempt:<n>`: the key processor-gateway charges at most once. */
    idempotencyKey: text('idempotency_key').notNull().unique(),
    runId: uuid('run_id'),
    paymentMethodId: uuid('payment_method_id').notNull(),
    processor: text('processor'),
    amount: numeric('amount', { precision: 18, scale: 2, mode: 'string' }).notNull(),
    currency: text('currency').notNull(),
    status: text('status', { enum: ['requested', 'succeeded', 'failed'] }).notNull(),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
    chargeId: uuid('charge_id'),
    declineCode: text('decline_code'),
    category: text('category', { enum: DECLINE_CATEGORIES }),
    /** Set by `installment.retry-scheduled` for this failed attempt. */
    nextAttemptOn: date('next_attempt_on', { mode: 'string' }),
    /**
     * The customer's charge with a new card (`change-subscription-card.ts`) of an installment that had
     * failed: `failed`, where a decline leaves it. Null: a decline leaves it `pending` for dunning.
     */
    declinedTo: text('declined_to', { enum: ['pending', 'failed'] }),
  },
  (table) => [
    unique('charge_attempts_installment_attempt_unique').on(table.installmentId, table.attempt),
    index('charge_attempts_card_idx').on(table.paymentMethodId, table.requestedAt),
    check('charge_attempts_status_check', sql`${table.status} in ('requested', 'succeeded', 'failed')`),
  ],
);

export const outbox = outboxTable(subscriptionsSchema);
export const inbox = inboxTable(subscriptionsSchema);
