import type { Database } from '@payrail/db';
import { and, count, eq, gt, min, sql } from 'drizzle-orm';
import type { CustomerRepository } from '../../ports/customer-repository';
import { customers, documentCheckFailures } from './schema';

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
    async tryDocument({ linkId, requesterHash, matches, now, windowStart, limit }) {
      return db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`document:${linkId}`}, 0))`);
        const [counted] = await tx
          .select({ failures: count(), oldest: min(documentCheckFailures.failedAt) })
          .from(documentCheckFailures)
          .where(
            and(eq(documentCheckFailures.linkId, linkId), gt(documentCheckFailures.failedAt, windowStart)),
          );
        if ((counted?.failures ?? 0) >= limit)
          return { outcome: 'limited', oldestCounted: counted?.oldest ?? now };
        if (matches) return { outcome: 'match' };
        await tx.insert(documentCheckFailures).values({ linkId, requesterHash, failedAt: now });
        return { outcome: 'wrong' };
      });
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
