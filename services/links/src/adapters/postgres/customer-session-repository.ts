import type { Database } from '@payrail/db';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { CustomerSessionRepository } from '../../ports/customer-session-repository';
import { customerSessions } from './schema';

export function postgresCustomerSessionRepository(db: Database): CustomerSessionRepository {
  return {
    async create(session) {
      await db.insert(customerSessions).values(session);
    },
    async findLive(tokenHash, now) {
      const [row] = await db
        .select({ merchantId: customerSessions.merchantId, customerId: customerSessions.customerId })
        .from(customerSessions)
        .where(
          and(
            eq(customerSessions.tokenHash, tokenHash),
            gt(customerSessions.expiresAt, now),
            isNull(customerSessions.endedAt),
          ),
        );
      return row;
    },
    async end(tokenHash, now) {
      await db
        .update(customerSessions)
        .set({ endedAt: now })
        .where(and(eq(customerSessions.tokenHash, tokenHash), isNull(customerSessions.endedAt)));
    },
  };
}
