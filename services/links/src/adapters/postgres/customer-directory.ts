import type { Executor } from '@payrail/db';
import { and, desc, eq, ilike, lt, or, type SQL, sql } from 'drizzle-orm';
import type { CustomerDirectory, CustomerEntry } from '../../ports/customer-directory';
import { toLink } from './payment-link-repository';
import { customers, paymentLinks } from './schema';

function toEntry(row: typeof customers.$inferSelect): CustomerEntry {
  return {
    id: row.id,
    email: row.email,
    documentNumber: row.documentNumber,
    firstName: row.firstName,
    lastName: row.lastName,
    status: row.status,
    createdAt: row.createdAt,
  };
}

/** The text anywhere in the e-mail, the name or the document number (`%` and `_` taken literally). */
function searchCondition(search: string | undefined): SQL | undefined {
  if (search === undefined) return undefined;
  const pattern = `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
  return or(
    ilike(customers.email, pattern),
    ilike(customers.documentNumber, pattern),
    ilike(sql`${customers.firstName} || ' ' || ${customers.lastName}`, pattern),
  );
}

export function postgresCustomerDirectory(db: Executor): CustomerDirectory {
  return {
    async list(merchantId, filter, page) {
      const rows = await db
        .select()
        .from(customers)
        .where(
          and(
            // Scoped by merchant: another merchant's customers never appear.
            eq(customers.merchantId, merchantId),
            searchCondition(filter.search),
            page.beforeId === null ? undefined : lt(customers.id, page.beforeId),
          ),
        )
        .orderBy(desc(customers.id))
        .limit(page.limit);
      return rows.map(toEntry);
    },

    async find(merchantId, customerId) {
      const [row] = await db
        .select()
        .from(customers)
        .where(and(eq(customers.merchantId, merchantId), eq(customers.id, customerId)));
      return row ? toEntry(row) : undefined;
    },

    async linksOf(merchantId, customerId, limit) {
      const rows = await db
        .select()
        .from(paymentLinks)
        .where(
          and(
            eq(paymentLinks.merchantId, merchantId),
            or(eq(paymentLinks.customerId, customerId), eq(paymentLinks.paidCustomerId, customerId)),
          ),
        )
        .orderBy(desc(paymentLinks.id))
        .limit(limit);
      return rows.map(toLink);
    },
  };
}
