import { MAX_LENGTH } from '@payrail/contracts';
import { inboxTable, outboxTable } from '@payrail/messaging';
import { sql } from 'drizzle-orm';
import type { LinkPayer } from '../../domain/payment-link';
import {
  bigint,
  boolean,
  check,
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

/**
 * Service users of a merchant (spec 2.3 `userId`): one per e-mail, whatever its case, or, for the
 * customers of `noLoginRequired` links, one per document number. Exactly one of the two identifies a row.
 */
export const customers = linksSchema.table(
  'customers',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    merchantId: uuid('merchant_id').notNull(),
    email: varchar('email', { length: MAX_LENGTH.email }),
    /** Lower-cased e-mail: the unique key, so `Ana@x.com` and `ana@x.com` are one user. */
    emailKey: varchar('email_key', { length: MAX_LENGTH.email }),
    /** The document number confirmed on a `noLoginRequired` link: the customer's identity there. */
    documentNumber: varchar('document_number', { length: MAX_LENGTH.documentNumber }),
    firstName: varchar('first_name', { length: MAX_LENGTH.personName }).notNull(),
    lastName: varchar('last_name', { length: MAX_LENGTH.personName }).notNull(),
    status: text('status', { enum: ['active', 'inactive'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    activatedAt: timestamp('activated_at', { withTimezone: true }),
    /** The language of the customer's last visit to the pay pages (`es`, `en`): their e-mails speak it. */
    language: text('language'),
  },
  (table) => [
    unique('customers_merchant_email_key').on(table.merchantId, table.emailKey),
    unique('customers_merchant_document_number').on(table.merchantId, table.documentNumber),
    check('customers_one_identity', sql`(${table.emailKey} is null) <> (${table.documentNumber} is null)`),
  ],
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
    customIdentifier2: varchar('custom_identifier2', { length: MAX_LENGTH.customIdentifier2 }),
    singlePayment: boolean('single_payment').notNull(),
    creditAndDebitCard: boolean('credit_and_debit_card').notNull(),
    /** STATIC or DYNAMIC terms when the link starts a subscription. */
    recurrence: jsonb('recurrence').$type<Record<string, unknown> | null>(),
    payWaitHours: integer('pay_wait_hours').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    redirectUrl: varchar('redirect_url', { length: MAX_LENGTH.redirectUrl }),
    noLoginRequired: boolean('no_login_required').notNull().default(false),
    documentNumber: varchar('document_number', { length: MAX_LENGTH.documentNumber }),
    paymentMethods: jsonb('payment_methods').$type<string[]>().notNull(),
    statusId: integer('status_id').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    /** The signed-in user the link was made for (spec 4.2). */
    customerId: bigint('customer_id', { mode: 'number' }).references(() => customers.id),
    /** A card payment on the pay page: the processor, the vault's card, our charge and who paid. */
    paidProcessor: text('paid_processor'),
    paidPaymentMethodId: uuid('paid_payment_method_id'),
    paidChargeId: uuid('paid_charge_id'),
    paidCustomerId: bigint('paid_customer_id', { mode: 'number' }),
    /**
     * The payment of a paid link (issue 27): its movement id (the `txId` of its webhooks and of
     * processor-gateway's ledger: the card charge's id, the registered transfer's), `CARD` or
     * `BANK_TRANSFER`, the card's brand and last 4 when the vault card is known, and who paid (the service
     * user as they were then). Null on an unpaid link, and the payment id on a link paid by transfer before
     * these columns.
     */
    paidPaymentId: uuid('paid_payment_id'),
    paidMethod: text('paid_method', { enum: ['CARD', 'BANK_TRANSFER'] }),
    paidCardBrand: varchar('paid_card_brand', { length: 40 }),
    paidCardLast4: varchar('paid_card_last4', { length: 4 }),
    paidBy: jsonb('paid_by').$type<LinkPayer | null>(),
    /** Why the last card attempt was declined (statusId 5): shown to the customer in their language. */
    lastDeclineCode: text('last_decline_code'),
    lastDeclineCategory: text('last_decline_category'),
    /** When statusId 6 was written (lazily on read, or by the sweep). */
    expiredAt: timestamp('expired_at', { withTimezone: true }),
    /**
     * What was given back of the link's payment: the greatest `refundedTotal` of its `refund.succeeded`
     * (processor-gateway's refunds add up under the payment's lock, so it only grows). The link stays paid.
     */
    refundedAmount: numeric('refunded_amount', { precision: 18, scale: 2 }).notNull().default('0'),
  },
  (table) => [
    index('payment_links_merchant_idx').on(table.merchantId, table.id),
    // The expiry sweep reads only links still payable that have a validity.
    index('payment_links_payable_expiry_idx')
      .on(table.expiresAt)
      .where(sql`${table.statusId} in (1, 5) and ${table.expiresAt} is not null`),
  ],
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

/**
 * The merchant's settings as the gateway last signed them (name, processors, time zone): the public pay
 * page has no merchant request to read them from. Refreshed whenever the merchant calls the API.
 */
export const merchantProfiles = linksSchema.table('merchant_profiles', {
  merchantId: uuid('merchant_id').primaryKey(),
  context: jsonb('context').$type<Record<string, unknown>>().notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
});

/**
 * Payment attempts on a link's pay page, numbered per link: attempt n charges with the key
 * `link:<id>:payment:<n>`. The number is decided under the link's row lock, and an open attempt is
 * continued rather than a new one started, so double clicks, two tabs and retries make one charge.
 */
export const linkPayments = linksSchema.table(
  'link_payments',
  {
    linkId: bigint('link_id', { mode: 'number' })
      .notNull()
      .references(() => paymentLinks.id),
    paymentNumber: integer('payment_number').notNull(),
    /** `hosted` (a new card on the processor's form), `saved-card`, or `registration` (save, then charge). */
    kind: text('kind', { enum: ['hosted', 'saved-card', 'registration'] }).notNull(),
    processor: text('processor').notNull(),
    customerId: bigint('customer_id', { mode: 'number' }),
    /** Whether the customer chose the subscription (the link's recurrence) rather than a one-off payment. */
    subscription: boolean('subscription').notNull(),
    registrationId: uuid('registration_id'),
    paymentMethodId: uuid('payment_method_id'),
    chargeId: uuid('charge_id'),
    /** The processor's id of the hosted form (A's process id, B's order hash): B sends the browser back with it. */
    processorReference: text('processor_reference'),
    status: text('status', { enum: ['open', 'succeeded', 'failed'] }).notNull(),
    declineCode: text('decline_code'),
    declineCategory: text('decline_category'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (table) => [
    primaryKey({ columns: [table.linkId, table.paymentNumber] }),
    index('link_payments_charge_idx').on(table.chargeId),
    index('link_payments_processor_reference_idx').on(table.processorReference),
  ],
);

/**
 * One-time login codes sent by e-mail (the pay page's own login). Only a keyed hash of the 6 digits is
 * kept (a plain hash of a 6-digit code is reversed by trying a million). One row per code sent: the rows
 * of the last hour are also what the request limits count.
 */
export const emailLoginCodes = linksSchema.table(
  'email_login_codes',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    merchantId: uuid('merchant_id').notNull(),
    emailKey: varchar('email_key', { length: MAX_LENGTH.email }).notNull(),
    codeHash: text('code_hash').notNull(),
    /** Keyed hash of the requester's IP address: counted for the per-address limit, never shown. */
    requesterHash: text('requester_hash').notNull(),
    attempts: integer('attempts').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** Set when the code was used, or when a newer code for the same e-mail replaced it. */
    closedAt: timestamp('closed_at', { withTimezone: true }),
  },
  (table) => [
    index('email_login_codes_email_idx').on(table.merchantId, table.emailKey, table.createdAt),
    index('email_login_codes_requester_idx').on(table.requesterHash, table.createdAt),
  ],
);

/**
 * A customer's signed-in session on the pay pages, bound to one merchant. The cookie carries the token;
 * only its SHA-256 is kept here.
 */
export const customerSessions = linksSchema.table('customer_sessions', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  tokenHash: text('token_hash').notNull().unique(),
  merchantId: uuid('merchant_id').notNull(),
  customerId: bigint('customer_id', { mode: 'number' })
    .notNull()
    .references(() => customers.id),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  endedAt: timestamp('ended_at', { withTimezone: true }),
});

/**
 * Wrong document numbers typed on a `noLoginRequired` link: counted per link and hour, so that a link's
 * document number cannot be found by trying (only a keyed hash of the requester's address is kept).
 */
export const documentCheckFailures = linksSchema.table(
  'document_check_failures',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    linkId: bigint('link_id', { mode: 'number' })
      .notNull()
      .references(() => paymentLinks.id),
    requesterHash: text('requester_hash').notNull(),
    failedAt: timestamp('failed_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('document_check_failures_link_idx').on(table.linkId, table.failedAt)],
);

// ---------------------------------------------------------------------------------------------------
// Customer e-mails (issue 29): what links knows of its customers' subscriptions from events, the e-mails'
// outbox, the signed links to the card change, and a merchant's simulated day.

/** A subscription as its events told it, with the link (so the customer) it was made from and its card. */
export const emailSubscriptions = linksSchema.table(
  'email_subscriptions',
  {
    subscriptionId: bigint('subscription_id', { mode: 'number' }).primaryKey(),
    merchantId: uuid('merchant_id').notNull(),
    linkId: bigint('link_id', { mode: 'number' }).notNull(),
    status: text('status').notNull(),
    timezone: text('timezone').notNull(),
    currency: text('currency').notNull(),
    /** The card its installments are charged to: the last one that paid or was charged. */
    paymentMethodId: uuid('payment_method_id'),
  },
  (table) => [index('email_subscriptions_merchant_idx').on(table.merchantId, table.status)],
);

export const emailInstallments = linksSchema.table(
  'email_installments',
  {
    installmentId: bigint('installment_id', { mode: 'number' }).primaryKey(),
    subscriptionId: bigint('subscription_id', { mode: 'number' }).notNull(),
    number: integer('number').notNull(),
    paymentDate: text('payment_date').notNull(),
    amount: numeric('amount', { precision: 18, scale: 2 }).notNull(),
    status: text('status').notNull(),
  },
  (table) => [index('email_installments_subscription_idx').on(table.subscriptionId, table.paymentDate)],
);

/** The vault's cards as `payment-method.*` told them: brand, last 4 and expiry, never a number. */
export const emailCards = linksSchema.table('email_cards', {
  paymentMethodId: uuid('payment_method_id').primaryKey(),
  merchantId: uuid('merchant_id').notNull(),
  customerId: bigint('customer_id', { mode: 'number' }).notNull(),
  brand: text('brand').notNull(),
  last4: varchar('last4', { length: 4 }).notNull(),
  expiryMonth: integer('expiry_month').notNull(),
  expiryYear: integer('expiry_year').notNull(),
  removed: boolean('removed').notNull().default(false),
});

/**
 * The customer e-mails' outbox and log: one row per e-mail (its `dedupe_key` unique: one per event), tried
 * by the mail relay in order per customer, retried with backoff for 3 days, its outcome kept. The body holds
 * `{{action}}` where the signed link goes: the link itself is made when the mail leaves, never stored.
 */
export const customerEmails = linksSchema.table(
  'customer_emails',
  {
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id').notNull(),
    customerId: bigint('customer_id', { mode: 'number' }).notNull(),
    kind: text('kind').notNull(),
    dedupeKey: text('dedupe_key').notNull().unique(),
    recipient: varchar('recipient', { length: MAX_LENGTH.email }).notNull(),
    language: text('language').notNull(),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    htmlBody: text('html_body').notNull(),
    fromName: text('from_name').notNull(),
    replyTo: text('reply_to'),
    subscriptionId: bigint('subscription_id', { mode: 'number' }),
    linkId: bigint('link_id', { mode: 'number' }),
    /** The subscription the signed link opens the card change of (null: no action link). */
    actionSubscriptionId: bigint('action_subscription_id', { mode: 'number' }),
    status: text('status', { enum: ['pending', 'sent', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    /** A relay took it until then (no transaction is held while the SMTP server answers). */
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (table) => [
    index('customer_emails_due_idx').on(table.nextAttemptAt).where(sql`${table.status} = 'pending'`),
    index('customer_emails_customer_idx').on(table.merchantId, table.customerId, table.createdAt),
    index('customer_emails_merchant_idx').on(table.merchantId, table.id),
  ],
);

/**
 * Signed links to a subscription's card change (`/pay/care/{token}`): single-use, valid 7 days of the
 * merchant's time. Only the SHA-256 of the token is kept.
 */
export const careLinks = linksSchema.table('care_links', {
  tokenHash: text('token_hash').primaryKey(),
  merchantId: uuid('merchant_id').notNull(),
  customerId: bigint('customer_id', { mode: 'number' }).notNull(),
  subscriptionId: bigint('subscription_id', { mode: 'number' }).notNull(),
  emailId: uuid('email_id').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
});

/**
 * `SIMULATED_TIME`: the day of a merchant's latest as-of billing run (`scope` its id, or `all`), which is
 * that merchant's today for its customers' e-mails when it is after the clock's.
 */
export const simulatedDays = linksSchema.table('simulated_days', {
  scope: text('scope').primaryKey(),
  asOf: text('as_of').notNull(),
});

export const outbox = outboxTable(linksSchema);
export const inbox = inboxTable(linksSchema);
