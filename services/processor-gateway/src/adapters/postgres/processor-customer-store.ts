import { randomUUID } from 'node:crypto';
import type { Executor } from '@payrail/db';
import { and, eq } from 'drizzle-orm';
import { newProcessorReference } from '../../application/processor-references';
import type { ProcessorCustomerStore } from '../../ports/processor-customer-store';
import { processorCustomers } from './schema';

/** The customers' ids at the processors on PostgreSQL, bound to the database or to one transaction. */
export function postgresProcessorCustomerStore(db: Executor): ProcessorCustomerStore {
  return {
    async processorCustomerRef(merchantId, customerId, processor, at) {
      const find = async () => {
        const [row] = await db
          .select({ customerRef: processorCustomers.customerRef })
          .from(processorCustomers)
          .where(
            and(
              eq(processorCustomers.merchantId, merchantId),
              eq(processorCustomers.customerId, customerId),
              eq(processorCustomers.processor, processor),
            ),
          );
        return row?.customerRef;
      };
      const existing = await find();
      if (existing) return existing;
      await db
        .insert(processorCustomers)
        .values({
          id: randomUUID(),
          merchantId,
          customerId,
          processor,
          customerRef: newProcessorReference(),
          createdAt: at,
        })
        .onConflictDoNothing();
      const created = await find();
      if (!created) throw new Error('processor customer neither inserted nor found');
      return created;
    },
  };
}
