import { MAX_LENGTH } from '@payrail/contracts';
import { inboxTable, outboxTable } from '@payrail/messaging';
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  date,
  foreignKey,
  index,
  integer,
  json,
  jsonb,
  numeric,
  pgSchema,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';

/**
 * The processor-gateway service owns this schema. By design no column here can hold a card number or a
 * CVV: cards are known only by the processor's durable references and what the processor shows masked.
 */
export const processorGatewaySchema = pgSchema('processor_gateway');

export const outbox = outboxTable(processorGatewaySchema);
export const inbox = inboxTable(processorGatewaySchema);

/**
 * Who a customer of a merchant is at one processor (A's `user_id`, B's `identificador`). The reference is
 * random rather than a sequence so that it stays unique at the processor across databases (staging,
 * restored backups, test runs against one sandbox).
 */
export const processorCustomers = processorGatewaySchema.table(
  'processor_customers',
  {
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id').notNull(),
    /** The links service's customer id. */
    customerId: bigint('customer_id', { mode: 'number' }).notNull(),
    processor: text('processor').notNull(),
    customerRef: text('customer_ref').notNull().unique(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    uniqueIndex('processor_customers_identity_key').on(table.merchantId, table.customerId, table.processor),
  ],
);

/** The vault: one row per card a customer saved at one processor. */
export const paymentMethods = processorGatewaySchema.table(
  'payment_methods',
  {
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id').notNull(),
    customerId: bigint('customer_id', { mode: 'number' }).notNull(),
    processor: text('processor').notNull(),
    customerRef: text('customer_ref').notNull(),
    /** The processor's durable card id; never the short-lived alias token. */
    cardRef: text('card_ref').notNull(),
    maskedNumber: text('masked_number').notNull(),
    last4: text('last4').notNull(),
    brand: text('brand').notNull(),
    expiryMonth: smallint('expiry_month').notNull(),
    expiryYear: smallint('expiry_year').notNull(),
    /** Set by the card lock (7 declines in 24 h) or by the processor's own block: no charge before this. */
    blockedUntil: timestamp('blocked_until', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    removedAt: timestamp('removed_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('payment_methods_card_key')
      .on(table.processor, table.customerRef, table.cardRef)
      .where(sql`removed_at is null`),
    index('payment_methods_customer_idx').on(table.merchantId, table.customerId),
  ],
);

/** A hosted card-registration form opened for a customer; completed when the browser comes back. */
export const cardRegistrations = processorGatewaySchema.table('card_registrations', {
  id: uuid('id').primaryKey(),
  merchantId: uuid('merchant_id').notNull(),
  customerId: bigint('customer_id', { mode: 'number' }).notNull(),
  processor: text('processor').notNull(),
  customerRef: text('customer_ref').notNull(),
  /** A's `card_id` for `cards/new`: 12 random digits. */
  registrationRef: text('registration_ref').notNull().unique(),
  linkId: bigint('link_id', { mode: 'number' }),
  status: text('status', { enum: ['open', 'completed'] }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  completedAt: timestamp('completed_at', { withTimezone: true }),
});

export const CHARGE_STATUSES = ['pending', 'succeeded', 'failed', 'unknown'] as const;

/**
 * One row per charge attempt, written `pending` before the processor is called. The idempotency key is
 * the exactly-once guard: a redelivered command or a second replica finds the row and does nothing.
 */
export const charges = processorGatewaySchema.table(
  'charges',
  {
    id: uuid('id').primaryKey(),
    idempotencyKey: text('idempotency_key').notNull().unique(),
    merchantId: uuid('merchant_id').notNull(),
    /** `stored-card`: we charge a vaulted card; `hosted`: the person pays on the processor's form. */
    kind: text('kind', { enum: ['stored-card', 'hosted'] }).notNull(),
    installmentId: bigint('installment_id', { mode: 'number' }),
    attempt: integer('attempt'),
    linkId: bigint('link_id', { mode: 'number' }),
    paymentMethodId: uuid('payment_method_id').references(() => paymentMethods.id),
    processor: text('processor').notNull(),
    /** Ours, sent to the processor as its id for the operation (12 random digits). */
    reference: text('reference').notNull().unique(),
    /** The processor's own id when it gives one (A's `process_id`, B's hash). */
    processorReference: text('processor_reference'),
    amount: numeric('amount', { precision: 18, scale: 2 }).notNull(),
    currency: text('currency').notNull(),
    status: text('status', { enum: CHARGE_STATUSES }).notNull(),
    declineCode: text('decline_code'),
    declineCategory: text('decline_category'),
    retryable: boolean('retryable'),
    authorizationCode: text('authorization_code'),
    /** What the pay page needs to show the hosted form again (URLs only). */
    hostedForm: jsonb('hosted_form').$type<Record<string, unknown>>(),
    /** How many times we sent the charge to the processor: the exactly-once tests read it. */
    processorCalls: integer('processor_calls').notNull().default(0),
    /** How many times the janitor asked the processor about it. */
    statusChecks: integer('status_checks').notNull().default(0),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    /** When the janitor may look at it next (unknown and pending rows). */
    nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (table) => [
    index('charges_unsettled_idx').on(table.nextCheckAt).where(sql`status in ('pending', 'unknown')`),
    index('charges_declines_idx').on(table.paymentMethodId, table.settledAt).where(sql`status = 'failed'`),
    index('charges_merchant_idx').on(table.merchantId, table.createdAt),
    index('charges_processor_reference_idx').on(table.processor, table.processorReference),
  ],
);

/**
 * Transfers merchants notified (`POST /api/bank-notification/add`), one per merchant and bank reference.
 * A row is `pending` from the moment a notification claims the reference until the owner of its target has
 * settled it (`settled`, with the answer every later notification of that reference replays); a refused
 * notification removes its row, so it leaves nothing behind and its reference stays free.
 */
export const bankTransfers = processorGatewaySchema.table(
  'bank_transfers',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /**
     * The transfer as a money movement (UUIDv7, chosen when the notification is claimed): the `txId` its
     * owner announces the payment with and `bank-transfer.registered` carries, the same shape as a charge's id.
     */
    txId: uuid('tx_id').notNull(),
    merchantId: uuid('merchant_id').notNull(),
    reference: varchar('reference', { length: MAX_LENGTH.bankReference }).notNull(),
    /** SHA-256 of the normalised notification: the same reference with other content is refused. */
    fingerprint: text('fingerprint').notNull(),
    status: text('status', { enum: ['pending', 'settled'] }).notNull(),
    targetType: text('target_type', { enum: ['PAY_REQUEST', 'INSTALLMENT'] }).notNull(),
    amount: numeric('amount', { precision: 18, scale: 2, mode: 'string' }).notNull(),
    currency: text('currency'),
    bankName: varchar('bank_name', { length: MAX_LENGTH.bankName }).notNull(),
    transferDate: date('transfer_date', { mode: 'string' }).notNull(),
    note: varchar('note', { length: MAX_LENGTH.transferNote }),
    /** The normalised notification, so that whoever finds the row pending can finish it. */
    request: jsonb('request').$type<Record<string, unknown>>().notNull(),
    /** The answer given once settled; replayed for the same reference (`json` keeps it as written). */
    response: json('response').$type<Record<string, unknown>>(),
    /** The merchant context the notification came with, to finish a pending row without its request. */
    merchant: jsonb('merchant').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (table) => [
    unique('bank_transfers_merchant_reference_unique').on(table.merchantId, table.reference),
    unique('bank_transfers_tx_id_unique').on(table.txId),
    index('bank_transfers_pending_idx').on(table.createdAt).where(sql`status = 'pending'`),
    check('bank_transfers_status_check', sql`${table.status} in ('pending', 'settled')`),
  ],
);

export const REFUND_STATUSES = ['pending', 'unknown', 'scheduled', 'succeeded', 'failed'] as const;

/**
 * Refunds of a money movement (issue 27), one per merchant and `Idempotency-Key`. A refund through the
 * processor is written `pending` and committed before the processor is called; an outside refund is written
 * `succeeded`. The refunds of one payment are written under its row's lock (`charges` or `bank_transfers`),
 * so that those not failed never add up to more than it took.
 */
export const refunds = processorGatewaySchema.table(
  'refunds',
  {
    /** UUIDv7: the refund as a money movement, the `txId` of its webhooks. */
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id').notNull(),
    /** The movement refunded: a charge's `id` or a bank transfer's `tx_id`. */
    paymentId: uuid('payment_id').notNull(),
    idempotencyKey: varchar('idempotency_key', { length: 255 }).notNull(),
    fingerprint: text('fingerprint').notNull(),
    mode: text('mode', { enum: ['rollback', 'reversal', 'outside'] }).notNull(),
    method: text('method', { enum: ['CARD', 'BANK_TRANSFER', 'CASH'] }).notNull(),
    processor: text('processor'),
    amount: numeric('amount', { precision: 18, scale: 2, mode: 'string' }).notNull(),
    currency: text('currency').notNull(),
    reference: varchar('reference', { length: MAX_LENGTH.bankReference }),
    reason: varchar('reason', { length: MAX_LENGTH.refundReason }),
    status: text('status', { enum: REFUND_STATUSES }).notNull(),
    failureCode: text('failure_code'),
    failureMessage: text('failure_message'),
    /** Requests sent to the processor, each counted before it leaves. */
    processorCalls: integer('processor_calls').notNull().default(0),
    statusChecks: integer('status_checks').notNull().default(0),
    lastError: text('last_error'),
    linkId: bigint('link_id', { mode: 'number' }),
    installmentId: bigint('installment_id', { mode: 'number' }),
    subscriptionId: bigint('subscription_id', { mode: 'number' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    /** When the janitor may look at it next (pending, unknown and scheduled refunds). */
    nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull(),
    scheduledAt: timestamp('scheduled_at', { withTimezone: true }),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (table) => [
    unique('refunds_merchant_key_unique').on(table.merchantId, table.idempotencyKey),
    index('refunds_payment_idx').on(table.paymentId),
    index('refunds_unsettled_idx')
      .on(table.nextCheckAt)
      .where(sql`status in ('pending', 'unknown', 'scheduled')`),
    check(
      'refunds_status_check',
      sql`${table.status} in ('pending', 'unknown', 'scheduled', 'succeeded', 'failed')`,
    ),
    check('refunds_amount_positive', sql`${table.amount} > 0`),
  ],
);

/**
 * The payments ledger (issue 27): one row per money movement of a merchant, written by
 * `record-movements-on-money-events` from this service's own events (charges, transfers, refunds) through
 * the inbox, its context (link, subscription, installment, customer) from the events that carry it. `id` is
 * the movement's `txId`. Pages are read newest first by (`created_at`, `id`), which never change.
 */
export const ledger = processorGatewaySchema.table(
  'ledger',
  {
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id').notNull(),
    kind: text('kind', {
      enum: ['LINK_PAYMENT', 'INSTALLMENT_CHARGE', 'BANK_TRANSFER', 'REFUND'],
    }).notNull(),
    status: text('status', { enum: ['succeeded', 'declined', 'pending', 'scheduled', 'failed'] }).notNull(),
    method: text('method', { enum: ['CARD', 'BANK_TRANSFER', 'CASH'] }).notNull(),
    processor: text('processor'),
    amount: numeric('amount', { precision: 18, scale: 2, mode: 'string' }).notNull(),
    currency: text('currency').notNull(),
    refundedAmount: numeric('refunded_amount', { precision: 18, scale: 2, mode: 'string' })
      .notNull()
      .default('0'),
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    processorReference: text('processor_reference'),
    reference: text('reference'),
    /** A refund: the movement it gives money back from. */
    paymentId: uuid('payment_id'),
    linkId: bigint('link_id', { mode: 'number' }),
    label: text('label'),
    subscriptionId: bigint('subscription_id', { mode: 'number' }),
    installmentId: bigint('installment_id', { mode: 'number' }),
    installmentNumber: integer('installment_number'),
    handleValue: text('handle_value'),
    handleLabel: text('handle_label'),
    customIdentifier: text('custom_identifier'),
    customIdentifier2: text('custom_identifier2'),
    declineCode: text('decline_code'),
    declineCategory: text('decline_category'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (table) => [
    index('ledger_merchant_created_idx').on(table.merchantId, table.createdAt, table.id),
    index('ledger_merchant_status_idx').on(table.merchantId, table.status, table.createdAt, table.id),
    index('ledger_merchant_kind_idx').on(table.merchantId, table.kind, table.createdAt, table.id),
    // The report's read: movements decided (settled, else created) in a range of instants.
    index('ledger_merchant_decided_idx').on(
      table.merchantId,
      sql`coalesce(${table.settledAt}, ${table.createdAt})`,
    ),
    index('ledger_link_idx').on(table.linkId),
    index('ledger_subscription_idx').on(table.merchantId, table.subscriptionId),
    index('ledger_installment_idx').on(table.installmentId),
    index('ledger_payment_idx').on(table.paymentId),
    index('ledger_custom_identifier_idx').on(table.merchantId, table.customIdentifier),
    index('ledger_handle_value_idx').on(table.merchantId, sql`lower(${table.handleValue}) text_pattern_ops`),
    index('ledger_handle_label_idx').on(table.merchantId, sql`lower(${table.handleLabel}) text_pattern_ops`),
    // The codes the page's JSON writes only quoted, without `to_json` (ledger-store.ts, `plain`): none holds
    // a quote, a backslash or a control character, the only characters JSON escapes.
    check(
      'ledger_plain_texts',
      sql`(${table.kind} || ${table.status} || ${table.method} || ${table.currency} || coalesce(${table.processor}, '') || coalesce(${table.declineCategory}, '')) !~ '["\\\\[:cntrl:]]'`,
    ),
  ],
);

/**
 * What the ledger's rows of a link say of it and its customer (`link.created`; `subscription.created` adds
 * the subscription), kept so that a movement recorded later gets them, and rows recorded before get them
 * when it arrives.
 */
export const ledgerLinks = processorGatewaySchema.table('ledger_links', {
  linkId: bigint('link_id', { mode: 'number' }).primaryKey(),
  merchantId: uuid('merchant_id').notNull(),
  label: text('label'),
  handleValue: text('handle_value'),
  handleLabel: text('handle_label'),
  customIdentifier: text('custom_identifier'),
  customIdentifier2: text('custom_identifier2'),
  subscriptionId: bigint('subscription_id', { mode: 'number' }),
});

/** An installment's subscription, number and link (`subscription.created`, `installments.scheduled`). */
export const ledgerInstallments = processorGatewaySchema.table('ledger_installments', {
  installmentId: bigint('installment_id', { mode: 'number' }).primaryKey(),
  subscriptionId: bigint('subscription_id', { mode: 'number' }).notNull(),
  linkId: bigint('link_id', { mode: 'number' }),
  number: integer('number').notNull(),
});

/**
 * The report's cache (`GET /api/reports/summary` at a million rows): a local day of a merchant's time zone
 * whose totals are kept, totalled the first time a summary asked for it once it was over there. Exact: a
 * trigger on the ledger (migration 0007) deletes the day's row, and with it its totals, in the same
 * transaction as any ledger write that changes what the day sums (a late movement, a refund that turned
 * succeeded, a declined attempt that makes a later charge a recovery), under the merchant's shared advisory
 * lock that the totalling takes exclusively (`ledger-store.ts`). A day with no movement has its row and
 * no totals.
 */
export const ledgerTotalledDays = processorGatewaySchema.table(
  'ledger_totalled_days',
  {
    merchantId: uuid('merchant_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    timezone: text('timezone').notNull(),
    totalledAt: timestamp('totalled_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.merchantId, table.day, table.timezone] })],
);

/** The totals of a totalled day, per currency (only the currencies with a movement that day). */
export const ledgerDailyTotals = processorGatewaySchema.table(
  'ledger_daily_totals',
  {
    merchantId: uuid('merchant_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    timezone: text('timezone').notNull(),
    currency: text('currency').notNull(),
    collected: numeric('collected', { precision: 20, scale: 2, mode: 'string' }).notNull(),
    refunded: numeric('refunded', { precision: 20, scale: 2, mode: 'string' }).notNull(),
    declinedAttempts: integer('declined_attempts').notNull(),
    recoveredInstallments: integer('recovered_installments').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.merchantId, table.day, table.timezone, table.currency] }),
    foreignKey({
      name: 'ledger_daily_totals_day_fk',
      columns: [table.merchantId, table.day, table.timezone],
      foreignColumns: [ledgerTotalledDays.merchantId, ledgerTotalledDays.day, ledgerTotalledDays.timezone],
    }).onDelete('cascade'),
  ],
);

/**
 * The report's cache of today (migration 0008): a 15-minute UTC bucket of a merchant's ledger (its start,
 * a multiple of 15 minutes since the epoch) whose totals are kept, totalled the first time a summary of
 * the day asked for it once it was over. Zone-independent: every zone's offset is a multiple of 15
 * minutes, so a bucket is within one local day of any zone, and a local day is whole buckets. Exact as
 * the days are: the same trigger deletes the bucket's row (and its totals) in any ledger write that changes
 * what it sums, under the merchant's shared advisory lock that the totalling takes exclusively. A summary
 * of today sums only the rows of the bucket still open. Buckets older than two days are deleted when
 * new ones are kept (only today's are read).
 */
export const ledgerTotalledBuckets = processorGatewaySchema.table(
  'ledger_totalled_buckets',
  {
    merchantId: uuid('merchant_id').notNull(),
    bucket: timestamp('bucket', { withTimezone: true }).notNull(),
    totalledAt: timestamp('totalled_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.merchantId, table.bucket] })],
);

/** The totals of a totalled bucket, per currency (only the currencies with a movement in it). */
export const ledgerBucketTotals = processorGatewaySchema.table(
  'ledger_bucket_totals',
  {
    merchantId: uuid('merchant_id').notNull(),
    bucket: timestamp('bucket', { withTimezone: true }).notNull(),
    currency: text('currency').notNull(),
    collected: numeric('collected', { precision: 20, scale: 2, mode: 'string' }).notNull(),
    refunded: numeric('refunded', { precision: 20, scale: 2, mode: 'string' }).notNull(),
    declinedAttempts: integer('declined_attempts').notNull(),
    recoveredInstallments: integer('recovered_installments').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.merchantId, table.bucket, table.currency] }),
    foreignKey({
      name: 'ledger_bucket_totals_bucket_fk',
      columns: [table.merchantId, table.bucket],
      foreignColumns: [ledgerTotalledBuckets.merchantId, ledgerTotalledBuckets.bucket],
    }).onDelete('cascade'),
  ],
);
