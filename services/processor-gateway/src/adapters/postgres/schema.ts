import { inboxTable, outboxTable } from '@payrail/messaging';
import { pgSchema } from 'drizzle-orm/pg-core';

/** The processor-gateway service owns this schema; its own tables arrive with the capabilities that need them. */
export const processorGatewaySchema = pgSchema('processor_gateway');

export const outbox = outboxTable(processorGatewaySchema);
export const inbox = inboxTable(processorGatewaySchema);
