import { SUBSCRIPTION_STATUSES } from '@payrail/contracts';
import { inboxTable, outboxTable } from '@payrail/messaging';
import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  date,
  index,
  integer,
  jsonb,
  pgSchema,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { INSTALLMENT_STATES } from '../../domain/due-installment';
import { RUN_TRIGGERS, RUN_ITEM_OUTCOMES } from '../../domain/billing-run';

/** The billing-scheduler service owns this schema: when to charge, never whether or how much. */
export const billingSchedulerSchema = pgSchema('billing_scheduler');

export const outbox = outboxTable(billingSchedulerSchema);
export const inbox = inboxTable(billingSchedulerSchema);

/** Subscriptions as their events last described them: whether they may be charged, and in which time zone. */
export const subscriptions = billingSchedulerSchema.table('subscriptions', {
  subscriptionId: bigint('subscription_id', { mode: 'number' }).primaryKey(),
  merchantId: uuid('merchant_id').notNull(),
  status: text('status', { enum: SUBSCRIPTION_STATUSES }).notNull(),
  /** The merchant's IANA time zone: due dates are calendar days there. */
  timezone: text('timezone').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The due-charge projection: one row per installment of a subscription. `dueOn` is the day the next
 * attempt may be made (the payment date, or a dunning retry's date); `attempt` is that attempt's number.
 */
export const installments = billingSchedulerSchema.table(
  'installments',
  {
    installmentId: bigint('installment_id', { mode: 'number' }).primaryKey(),
    subscriptionId: bigint('subscription_id', { mode: 'number' }).notNull(),
    merchantId: uuid('merchant_id').notNull(),
    number: integer('number').notNull(),
    paymentDate: date('payment_date', { mode: 'string' }).notNull(),
    dueOn: date('due_on', { mode: 'string' }).notNull(),
    attempt: integer('attempt').notNull().default(1),
    state: text('state', { enum: INSTALLMENT_STATES }).notNull(),
    /** The day the first attempt was made (a run's as-of day): dunning offsets count from it. */
    firstAttemptOn: date('first_attempt_on', { mode: 'string' }),
    /** The run that last claimed the row, and that run's as-of day for the row. */
    lastRunId: uuid('last_run_id'),
    lastAttemptOn: date('last_attempt_on', { mode: 'string' }),
    /** When a run last claimed the row (the clock's time): a claim with no outcome for long is claimed again. */
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    // The claim: scheduled rows by day, read with FOR UPDATE SKIP LOCKED.
    index('installments_scheduled_due_idx')
      .on(table.dueOn, table.installmentId)
      .where(sql`state = 'scheduled'`),
    // The reclaim: claims whose outcome never came, oldest first.
    index('installments_claimed_at_idx').on(table.claimedAt).where(sql`state = 'claimed'`),
    index('installments_subscription_idx').on(table.subscriptionId),
    check('installments_attempt_positive', sql`${table.attempt} >= 1`),
  ],
);

/** A billing run: one claim of due installments, by the minute ticker or an operator. */
export const runs = billingSchedulerSchema.table(
  'runs',
  {
    id: uuid('id').primaryKey(),
    trigger: text('trigger', { enum: RUN_TRIGGERS }).notNull(),
    /** Null for the ticker: "today" in each merchant's own time zone. */
    asOf: date('as_of', { mode: 'string' }),
    merchantId: uuid('merchant_id'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    /** When the claim finished; until then the run is `claiming`. */
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
  },
  (table) => [index('runs_started_idx').on(table.startedAt)],
);

/** What a run claimed: one attempt of one installment, and how it ended (the run's progress counts). */
export const runItems = billingSchedulerSchema.table(
  'run_items',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    runId: uuid('run_id').notNull(),
    installmentId: bigint('installment_id', { mode: 'number' }).notNull(),
    attempt: integer('attempt').notNull(),
    requestedAt: timestamp('requested_at', { withTimezone: true }),
    outcome: text('outcome', { enum: RUN_ITEM_OUTCOMES }),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('run_items_run_installment_uq').on(table.runId, table.installmentId),
    index('run_items_attempt_idx').on(table.installmentId, table.attempt),
  ],
);

/** Each merchant's dunning policy; a merchant without a row has the defaults. */
export const dunningPolicies = billingSchedulerSchema.table('dunning_policies', {
  merchantId: uuid('merchant_id').primaryKey(),
  /** Days after the first attempt on which a soft decline is retried, ascending (`[1, 3, 5]`). */
  retryOffsetDays: jsonb('retry_offset_days').$type<number[]>().notNull(),
  /** Cancel the subscription after this many consecutive failed installments; null: never. */
  cancelAfterFailedInstallments: integer('cancel_after_failed_installments'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
});
