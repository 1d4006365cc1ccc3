import { inboxTable, outboxTable } from '@payrail/messaging';
import { pgSchema } from 'drizzle-orm/pg-core';

/** The billing-scheduler service owns this schema; its own tables arrive with the capabilities that need them. */
export const billingSchedulerSchema = pgSchema('billing_scheduler');

export const outbox = outboxTable(billingSchedulerSchema);
export const inbox = inboxTable(billingSchedulerSchema);
