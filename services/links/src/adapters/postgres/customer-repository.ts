import type { Database } from '@payrail/db';
import { and, eq, sql } from 'drizzle-orm';
import type { CustomerRepository } from '../../ports/customer-repository';
import { customers } from './schema';

export function postgresCustomerRepository(db: Database): CustomerRepository {
  return {
    async findOrCreateByDocument({ merchantId, documentNumber, now }) {
      // Insert-or-find in one statement: two first confirmations at once still make one customer.
      const [customer] = await db
        .insert(customers)
        .values({
          merchantId,
          documentNumber,
          firstName: '',
          lastName: '',
          status: 'active',
          createdAt: now,
          activatedAt: now,
        })
        .onConflictDoUpdate({
          target: [customers.merchantId, customers.documentNumber],
          set: { documentNumber: sql`excluded.document_number` },
        })
        .returning({ id: customers.id });
      if (!customer) throw new Error('customer upsert returned no row');
      return customer.id;
    },
    async emailOf(merchantId, customerId) {
      const [row] = await db
        .select({ email: customers.email })
        .from(customers)
        .where(and(eq(customers.id, customerId), eq(customers.merchantId, merchantId)));
      return row ? row.email : undefined;
    },
  };
}
